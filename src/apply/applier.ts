/**
 * The applier: runs a Plan against the API in the order `order.ts` writes down, with the fewest
 * calls the API allows (bulk creates, updates and deletes where it has them), at most
 * `parallelism` requests in flight, and safe recovery from ambiguous failures (`recovery.ts`).
 *
 * An operation that fails does not stop independent ones; operations that depend on it are skipped
 * with the reason (the old half of a replacement whose successor could not be created stays).
 */
import pLimit from 'p-limit';
import type { ApiClient } from '../api/index.js';
import { KINDS } from '../kinds/index.js';
import type { Kind, WriteContext } from '../kinds/kind.js';
import type { Change, Plan } from '../plan/model.js';
import type { ApplyReport, CallEvent, Operation, OperationResult, Outcome } from './model.js';
import { type CreateItem, chunks, type DeleteItem, kindWork } from './order.js';
import { createWithRecovery, deleteWithRecovery, type RecoveryContext, updateWithRetry } from './recovery.js';

export interface ApplyOptions {
  /** Requests in flight at once, across all kinds. */
  parallelism: number;
  /** Objects per bulk call (application rule creates and deletes, schedule deletes). */
  batchSize: number;
  username: string;
  onCall?: (event: CallEvent) => void;
}

/** Operations of a plan: one per change, two for a replacement. */
export const operationCount = (plan: Plan): number =>
  plan.changes.reduce((n, c) => n + (c.action === 'replace' ? 2 : 1), 0);

export async function applyPlan(plan: Plan, api: ApiClient, options: ApplyOptions): Promise<ApplyReport> {
  const ctx: WriteContext = { api, username: options.username };
  const limit = pLimit(options.parallelism);
  const results: OperationResult[] = [];
  const total = operationCount(plan);

  const record = (kind: Kind, operation: Operation, entries: [Change, Outcome][]) => {
    for (const [change, outcome] of entries) results.push({ change, operation, outcome });
    options.onCall?.({
      kind: kind.name,
      operation,
      objects: entries.length,
      ok: entries.every(([, outcome]) => outcome.status === 'done'),
      finished: results.length,
      total,
    });
  };

  await Promise.all(
    KINDS.map((kind) => {
      const changes = plan.changes.filter((c) => c.kind === kind.name);
      return changes.length === 0 ? undefined : applyKind(kind, changes, { ctx, limit, options, record });
    }),
  );
  return { results, refused: plan.problems };
}

interface KindRun {
  ctx: WriteContext;
  limit: ReturnType<typeof pLimit>;
  options: ApplyOptions;
  record: (kind: Kind, operation: Operation, entries: [Change, Outcome][]) => void;
}

async function applyKind(kind: Kind, changes: readonly Change[], run: KindRun): Promise<void> {
  const { writer } = kind;
  const work = kindWork(changes, writer.bulkUpdate);
  const recovery: RecoveryContext = { writer, ctx: run.ctx, keyOf: (item) => kind.keyOf(item.attributes) };
  const preexisting = new Set(work.replacements.map((r) => r.id));

  const createAll = async (items: CreateItem[]): Promise<Set<Change>> => {
    const created = new Set<Change>();
    const size = writer.bulkCreate ? run.options.batchSize : 1;
    await Promise.all(
      chunks(items, size).map((chunk) =>
        run.limit(async () => {
          const outcomes = await createWithRecovery(recovery, chunk, preexisting);
          for (const [item, outcome] of outcomes) if (outcome.status === 'done') created.add(item.change);
          run.record(
            kind,
            'create',
            [...outcomes].map(([item, outcome]) => [item.change, outcome]),
          );
        }),
      ),
    );
    return created;
  };

  const deleteAll = async (items: DeleteItem[]): Promise<void> => {
    const size = writer.bulkDelete ? run.options.batchSize : 1;
    await Promise.all(
      chunks(items, size).map((chunk) =>
        run.limit(async () => {
          const outcomes = await deleteWithRecovery(recovery, chunk);
          run.record(
            kind,
            'delete',
            [...outcomes].map(([item, outcome]) => [item.change, outcome]),
          );
        }),
      ),
    );
  };

  const updateAll = () =>
    Promise.all(
      work.updateGroups.map((group) =>
        run.limit(async () => {
          const outcome = await updateWithRetry(recovery, group);
          run.record(
            kind,
            'update',
            group.map((change) => [change, outcome]),
          );
        }),
      ),
    );

  /** The old halves of replacements: deleted only once their successor exists. */
  const replacedOlds = (created: Set<Change>): DeleteItem[] => {
    const skipped = work.replacements.filter((r) => !created.has(r));
    if (skipped.length > 0) {
      const reason = `kept: its replacement could not be created, so deleting it would leave nothing in its place`;
      run.record(
        kind,
        'delete',
        skipped.map((r) => [r, { status: 'skipped', reason }]),
      );
    }
    return work.replacements.filter((r) => created.has(r)).map((r) => ({ change: r, id: r.id }));
  };

  /**
   * Pruned objects, unless a create of this kind failed: a rename is a create under the new key and
   * a delete of the old one, and nothing links the two, so any pruned object may be the old version
   * of one that could not be created. Deleting it could leave requests unprotected.
   */
  const prunable = (failedCreates: number): DeleteItem[] => {
    if (failedCreates === 0) return work.deletes;
    const reason = `kept: ${failedCreates} new ${kind.name}${failedCreates === 1 ? '' : 's'} could not be created, and this may be the old version of one of them (a rename); apply again once the creates succeed`;
    if (work.deletes.length > 0)
      run.record(
        kind,
        'delete',
        work.deletes.map((d) => [d.change, { status: 'skipped', reason }]),
      );
    return [];
  };

  if (writer.deletesFirst) {
    await deleteAll(work.deletes);
    const [created] = await Promise.all([createAll(work.creates), updateAll()]);
    await deleteAll(replacedOlds(created));
  } else {
    const created = await createAll(work.creates);
    await updateAll();
    await deleteAll([...prunable(work.creates.length - created.size), ...replacedOlds(created)]);
  }
}
