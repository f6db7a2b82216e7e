/**
 * The applier: runs a Plan against the API in the order `order.ts` writes down, with the fewest
 * calls the API allows (bulk creates, updates and deletes where it has them), at most
 * `parallelism` requests in flight, and safe recovery from ambiguous failures (`recovery.ts`).
 *
 * An operation that fails does not stop independent ones; operations that depend on it are skipped
 * with the reason (the old half of a replacement whose successor could not be created stays).
 *
 * This run loop is also the one place that decides what stopping means (`options.signal`): see
 * "Interruption" in `order.ts`.
 */
import pLimit from 'p-limit';
import type { ApiClient } from '../../api/index.js';
import type { Change, Plan } from '../../core/model.js';
import { KINDS } from '../../kinds/index.js';
import type { Kind, WriteContext, Writer } from '../../kinds/kind.js';
import { createLedger } from './create-proof.js';
import {
  type ApplyReport,
  type CallEvent,
  INTERRUPTED,
  type Operation,
  type OperationResult,
  type Outcome,
  worstStatus,
} from './model.js';
import {
  type CreateItem,
  chunks,
  type DeleteItem,
  type DependentDelete,
  type KindWork,
  kindWork,
  type UpdateItem,
} from './order.js';
import {
  createWithRecovery,
  deleteWithRecovery,
  type RecoveryContext,
  updateWithRecovery,
} from './recovery.js';

export interface ApplyOptions {
  /** Requests in flight at once, across all kinds. */
  parallelism: number;
  /** Objects per bulk call (application rule creates and deletes, schedule deletes). */
  batchSize: number;
  username: string;
  onCall?: (event: CallEvent) => void;
  /**
   * Aborting it stops the apply gracefully (the CLI does on the first SIGINT/SIGTERM): calls in
   * flight finish, replacements whose new half exists are completed, nothing else is started.
   */
  signal?: AbortSignal;
  /** The families the plan's changes belong to: the registry's, unless a test registers its own. */
  kinds?: readonly Kind[];
}

/** Operations of a plan: one per change, two for a replacement. */
export const operationCount = (plan: Plan): number =>
  plan.changes.reduce((n, c) => n + (c.action === 'replace' ? 2 : 1), 0);

/**
 * Applies `plan`: every family at once under one request limit, each in the order `order.ts` writes
 * down; one result per operation, reported as each call settles (`onCall`).
 */
export async function applyPlan(plan: Plan, api: ApiClient, options: ApplyOptions): Promise<ApplyReport> {
  const ctx: WriteContext = { api, username: options.username };
  const limit = pLimit(options.parallelism);
  const results: OperationResult[] = [];
  const total = operationCount(plan);
  let requests = 0;

  const record = (kind: Kind, operation: Operation, entries: readonly [Change, Outcome][]) => {
    if (entries.length === 0) return;
    for (const [change, outcome] of entries) results.push({ change, operation, outcome });
    options.onCall?.({
      kind: kind.name,
      operation,
      objects: entries.length,
      status: worstStatus(entries.map(([, outcome]) => outcome)),
      finished: results.length,
      total,
    });
  };

  await Promise.all(
    (options.kinds ?? KINDS).map((kind) => {
      const changes = plan.changes.filter((c) => c.kind === kind.name);
      const count = () => {
        requests += 1;
      };
      return changes.length === 0
        ? undefined
        : applyKind(kind, changes, { ctx, limit, options, record, count });
    }),
  );
  return { results, refused: plan.problems, requests };
}

/** `writer`, counting its calls (each one API call: see ApplyReport.requests). */
function counted(writer: Writer, count: () => void): Writer {
  return {
    ...writer,
    create(ctx, objects) {
      count();
      return writer.create(ctx, objects);
    },
    update(ctx, changes) {
      count();
      return writer.update(ctx, changes);
    },
    delete(ctx, ids) {
      count();
      return writer.delete(ctx, ids);
    },
    idsByKey(ctx, objects) {
      count();
      return writer.idsByKey(ctx, objects);
    },
    current(ctx, ids) {
      count();
      return writer.current(ctx, ids);
    },
  };
}

/** The ids of live objects a change names: the object it changes, and a duplicate's survivor. */
function remoteIds(change: Change): string[] {
  switch (change.action) {
    case 'create':
      return [];
    case 'delete':
      return change.duplicate_of === undefined ? [change.id] : [change.id, change.duplicate_of];
    default:
      return [change.id];
  }
}

interface KindRun {
  ctx: WriteContext;
  limit: ReturnType<typeof pLimit>;
  options: ApplyOptions;
  record: (kind: Kind, operation: Operation, entries: readonly [Change, Outcome][]) => void;
  /** Counts one call of the family's writer. */
  count: () => void;
}

type Outcomes = ReadonlyMap<Change, Outcome>;

/**
 * Applies one family's changes in the order `order.ts` writes down: a writer that deletes first
 * deletes the pruned objects, then creates and updates together; any other creates, then updates.
 * Last come the deletes that wait on those: the old halves of replacements, the duplicates, and
 * (not deleting first) the pruned objects, unless a create failed.
 */
async function applyKind(kind: Kind, changes: readonly Change[], run: KindRun): Promise<void> {
  const writer = counted(kind.writer, run.count);
  const work = kindWork(changes, writer.bulkUpdate);
  const calls = kindCalls(kind, writer, changes, run);
  // A replacement's create is done only once a re-read proved the new object live (recovery.ts).
  const replacedOlds = (settled: Outcomes) =>
    readyDeletes(work.replacements, settled, calls.keep, () => REPLACEMENT_UNPROVEN);
  // Until the survivor matches the configuration, a duplicate may be the copy that does.
  const duplicates = (settled: Outcomes) => readyDeletes(work.duplicates, settled, calls.keep, duplicateKept);
  if (writer.deletesFirst) {
    await calls.deleteAll(work.deletes);
    const [created, updated] = await Promise.all([
      calls.createAll(work.creates),
      calls.updateAll(work.updateGroups),
    ]);
    const settled = new Map([...created, ...updated]);
    await Promise.all([calls.completeAll(replacedOlds(settled)), calls.deleteAll(duplicates(settled))]);
  } else {
    const created = await calls.createAll(work.creates);
    const settled = new Map([...created, ...(await calls.updateAll(work.updateGroups))]);
    await Promise.all([
      calls.completeAll(replacedOlds(settled)),
      calls.deleteAll([...prunable(kind, work, created, calls.keep), ...duplicates(settled)]),
    ]);
  }
}

/** Records `items` as deletes kept with `outcome` (never sent). */
type Keep = (items: readonly { change: Change }[], outcome: Outcome) => void;

/**
 * One family's calls, each through recovery.ts under the shared limit, recording their outcomes:
 * creates and deletes in batches where the writer has bulk calls, updates in the groups `kindWork`
 * made, and the deletes that complete replacements (`completeAll`: they run even once interrupted).
 */
function kindCalls(kind: Kind, writer: Writer, changes: readonly Change[], run: KindRun) {
  const { batchSize, signal } = run.options;
  const recovery: RecoveryContext = {
    writer,
    ctx: run.ctx,
    keyOf: (attributes) => kind.keyOf(attributes),
    noun: kind.noun,
    signal,
  };
  // Completing a replacement whose new half exists is not new work: it runs even once interrupted.
  const completion: RecoveryContext = { ...recovery, signal: undefined };
  // The plan's ids of this kind were live before any create: never a new object, whatever an answer
  // or a re-read by key says. The ledger also catches an id given twice in this run.
  const ledger = createLedger(changes.flatMap(remoteIds));
  const deleteAll = (items: readonly DeleteItem[], context = recovery) =>
    sendCalls(kind, run, 'delete', chunks(items, writer.bulkDelete ? batchSize : 1), (chunk) =>
      deleteWithRecovery(context, chunk),
    );
  const keep: Keep = (items, outcome) =>
    run.record(
      kind,
      'delete',
      items.map((i) => [i.change, outcome]),
    );
  return {
    createAll: (items: readonly CreateItem[]) =>
      sendCalls(kind, run, 'create', chunks(items, writer.bulkCreate ? batchSize : 1), (chunk) =>
        createWithRecovery(recovery, chunk, ledger),
      ),
    updateAll: (groups: readonly (readonly UpdateItem[])[]) =>
      sendCalls(kind, run, 'update', groups, (items) => updateWithRecovery(recovery, items)),
    deleteAll,
    completeAll: (items: readonly DeleteItem[]) => deleteAll(items, completion),
    keep,
  };
}

/** Sends `calls` (each a list of objects for one call) under the shared limit; records outcomes. */
async function sendCalls<I extends { change: Change }>(
  kind: Kind,
  run: KindRun,
  operation: Operation,
  calls: readonly (readonly I[])[],
  send: (items: readonly I[]) => Promise<ReadonlyMap<I, Outcome>>,
): Promise<Outcomes> {
  const outcomes = new Map<Change, Outcome>();
  await Promise.all(
    calls.map((items) =>
      run.limit(async () => {
        const entries = [...(await send(items))].map(([item, o]): [Change, Outcome] => [item.change, o]);
        for (const [change, outcome] of entries) outcomes.set(change, outcome);
        run.record(kind, operation, entries);
      }),
    ),
  );
  return outcomes;
}

/**
 * The deletes whose prerequisite (`after`) is done, or that have none. The others are kept: as
 * interrupted when the prerequisite never started, else skipped with `why`.
 */
function readyDeletes(
  items: readonly DependentDelete[],
  settled: Outcomes,
  keep: Keep,
  why: (item: DependentDelete) => string,
): DeleteItem[] {
  const ready: DeleteItem[] = [];
  for (const item of items) {
    const status = item.after === undefined ? 'done' : settled.get(item.after)?.status;
    if (status === 'done') ready.push(item);
    else if (status === 'interrupted') keep([item], INTERRUPTED);
    else keep([item], { status: 'skipped', reason: why(item) });
  }
  return ready;
}

const REPLACEMENT_UNPROVEN =
  'kept: its replacement could not be created and proven live by a re-read, so deleting it would leave nothing in its place';

/** Why a duplicate is kept: its survivor's update or replacement did not succeed. */
const duplicateKept = ({ change, after }: DependentDelete): string =>
  `kept: the copy that survives (id ${change.action === 'delete' ? change.duplicate_of : ''}) could not be ${after?.action === 'replace' ? 'replaced' : 'updated'} first, and until it matches the configuration this one may be the copy that does; apply again`;

/**
 * Pruned objects, unless a create of this kind failed: a rename is a create under the new key and
 * a delete of the old one, and nothing links the two, so any pruned object may be the old version
 * of one that could not be created. Deleting it could leave requests unprotected.
 */
function prunable(kind: Kind, work: KindWork, created: Outcomes, keep: Keep): DeleteItem[] {
  const failed = work.creates.filter((c) => created.get(c.change)?.status === 'failed').length;
  if (failed === 0) return work.deletes;
  const reason = `kept: ${failed} new ${kind.name}${failed === 1 ? '' : 's'} could not be created, and this may be the old version of one of them (a rename); apply again once the creates succeed`;
  keep(work.deletes, { status: 'skipped', reason });
  return [];
}
