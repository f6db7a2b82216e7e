/**
 * `apply --wait`: after the writes, whether the application rules the apply created, replaced or
 * updated reached their firewalls. In Seer Box a saved rule is not yet protection: each of its
 * actions is synchronized to its firewall and carries a `sync_status` (core/sync-status.ts reads it).
 *
 * The rules are read back until every action of each is settled (synced, or in error), or the timeout
 * passes, or the run's signal stops the wait (the writes are done: only the waiting stops):
 *
 * - the first read comes at once, the next 1 s later, then 2, 4, 8 and every 10 s (the last one at the
 *   timeout), on the run's clock, which tests replace: none sleeps for real;
 * - each round reads only the rules not yet settled: with the listing filtered by id (`id_list`, up
 *   to `batchSize` ids a call), and GET-one for the rows the listing gave without their `actions`
 *   array. A server whose listing gives such rows is read with GET-one from the next round on, as
 *   the listing would then only add calls. At most `concurrency` calls are in flight;
 * - a value the API gives but wafctl does not know counts as not enforced: it is polled until the
 *   timeout and then reported as it is. A rule that is not found any more is `missing`.
 *
 * Deleted rules are not waited for, nor the old half of a replacement: its new rule is.
 */
import { setTimeout as timer } from 'node:timers/promises';
import { ApiError } from '../../api/errors.js';
import type { ApiClient } from '../../api/index.js';
import type { ApplicationRule } from '../../api/records.js';
import type { Change } from '../../core/model.js';
import { syncState } from '../../core/sync-status.js';
import { applicationRulesKind } from '../../kinds/application-rules.js';
import { mapLimited } from '../../kinds/normalize.js';
import { address } from '../../plan/render/summary.js';
import type { ApplyReport, EnforcedAction, Enforcement, FailedOutcome, WaitResult } from './model.js';
import { failed } from './recovery.js';

/** The wait between the first read and the second; each next one doubles, up to `MAX_POLL_DELAY_MS`. */
export const FIRST_POLL_DELAY_MS = 1000;
export const MAX_POLL_DELAY_MS = 10_000;

/** The run's time: `sleep` returns early when `signal` aborts. */
export interface WaitClock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export interface WaitOptions {
  timeoutMs: number;
  /** Read calls in flight at once. */
  concurrency: number;
  /** Ids per filtered listing call. */
  batchSize: number;
  clock: WaitClock;
  /** Aborted by an interrupt: the wait stops, reporting what it last read. */
  signal?: AbortSignal | undefined;
}

/** A rule the apply wrote: the change that wrote it, and its id. */
export interface WrittenRule {
  change: Change;
  id: string;
}

/** A rule as last read: its actions, or null when it was not found. */
type Read = ApplicationRule['actions'] | null;

/**
 * The application rules `report` created (a replacement's new rule included) or updated, done:
 * deletes are not waited for, nor writes that failed.
 */
export function writtenRules(report: ApplyReport): WrittenRule[] {
  return report.results.flatMap(({ change, operation, outcome }) => {
    if (change.kind !== applicationRulesKind.name || outcome.status !== 'done') return [];
    if (operation === 'update' && change.action === 'update') return [{ change, id: change.id }];
    // A create that is done always has the id the re-read that proved it found (recovery.ts).
    if (operation === 'create' && outcome.id !== undefined) return [{ change, id: outcome.id }];
    return [];
  });
}

/** Whether every action of the rule is settled: synced, or in error (a rule not found is too). */
function settled(read: Read): boolean {
  return read === null || read.every((action) => ['synced', 'error'].includes(syncState(action.sync_status)));
}

/**
 * Reads `rules` until every action is settled, the timeout passes or `options.signal` aborts; gives
 * what it last read of each.
 */
export async function waitForEnforcement(
  api: ApiClient,
  rules: readonly WrittenRule[],
  options: WaitOptions,
): Promise<Enforcement> {
  const { clock, signal, timeoutMs } = options;
  const started = clock.now();
  const reads = new Map<string, Read>();
  const reader = ruleReader(api, options);
  let pending = [...new Set(rules.map((rule) => rule.id))];
  let delay = FIRST_POLL_DELAY_MS;
  let polls = 0;
  const end = (result: WaitResult, error?: FailedOutcome) =>
    enforcement(rules, reads, { result, timeoutMs, waitedMs: clock.now() - started, polls, error }, reader);
  if (pending.length === 0) return end('enforced');
  for (;;) {
    if (signal?.aborted) return end('interrupted');
    polls += 1;
    try {
      for (const [id, read] of await reader.read(pending)) reads.set(id, read);
    } catch (error) {
      return end('unreadable', failed(error));
    }
    pending = pending.filter((id) => !settled(reads.get(id) ?? null));
    if (pending.length === 0) return end(allSynced(reads) ? 'enforced' : 'not_enforced');
    const left = started + timeoutMs - clock.now();
    if (left <= 0) return end('timed_out');
    await clock.sleep(Math.min(delay, left), signal);
    delay = Math.min(delay * 2, MAX_POLL_DELAY_MS);
  }
}

function allSynced(reads: ReadonlyMap<string, Read>): boolean {
  return [...reads.values()].every(
    (read) => read?.every((action) => syncState(action.sync_status) === 'synced') === true,
  );
}

/** Reads rules by id with the fewest calls the server allows (see the module comment); counts them. */
function ruleReader(api: ApiClient, { concurrency, batchSize }: WaitOptions) {
  let requests = 0;
  let listingComplete = true;
  const getOne = async (id: string): Promise<Read> => {
    requests += 1;
    try {
      return (await api.applicationRules.get(id)).actions;
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return null;
      throw error;
    }
  };
  const listed = async (ids: readonly string[]): Promise<[string, Read][]> => {
    const wanted = new Set(ids);
    const rows: ApplicationRule[] = [];
    for await (const page of api.applicationRules.pages({ id_list: ids })) {
      requests += 1;
      for (const row of page) if (wanted.has(row.id)) rows.push(row);
    }
    if (rows.some((row) => !row.complete)) listingComplete = false;
    const byId = new Map(rows.map((row) => [row.id, row]));
    return mapLimited(ids, concurrency, async (id): Promise<[string, Read]> => {
      const row = byId.get(id);
      if (row === undefined) return [id, null];
      return [id, row.complete ? row.actions : await getOne(id)];
    });
  };
  return {
    requests: () => requests,
    async read(ids: readonly string[]): Promise<Map<string, Read>> {
      if (!listingComplete)
        return new Map(await mapLimited(ids, concurrency, async (id) => [id, await getOne(id)]));
      const chunks = [];
      for (let at = 0; at < ids.length; at += batchSize) chunks.push(ids.slice(at, at + batchSize));
      return new Map((await mapLimited(chunks, concurrency, listed)).flat());
    },
  };
}

/**
 * The enforcement of `rules` as last read: one entry per action; for a rule not found (`missing`) or
 * never read (`unknown`: the wait stopped first), one per action the plan gave it.
 */
function enforcement(
  rules: readonly WrittenRule[],
  reads: ReadonlyMap<string, Read>,
  end: {
    result: WaitResult;
    timeoutMs: number;
    waitedMs: number;
    polls: number;
    error?: FailedOutcome | undefined;
  },
  reader: { requests(): number },
): Enforcement {
  const actions = rules.flatMap(({ change, id }): EnforcedAction[] => {
    const read = reads.get(id);
    if (read === undefined || read === null) {
      const state = read === null ? 'missing' : 'unknown';
      return plannedActions(change).map((action) => ({ change, id, ...action, state }));
    }
    return read.map(({ firewall_name, firewall_action, sync_status }) => {
      const status = shownStatus(sync_status);
      const shown = status === undefined ? {} : { status };
      return {
        change,
        id,
        firewall: firewall_name,
        firewall_action,
        ...shown,
        state: syncState(sync_status),
      };
    });
  });
  const { error, ...rest } = end;
  actions.sort((a, b) => byText(address(a.change), address(b.change)) || byText(a.firewall, b.firewall));
  return {
    ...rest,
    requests: reader.requests(),
    rules: rules.length,
    actions,
    ...(error === undefined ? {} : { error }),
  };
}

/** A `sync_status` as the API gave it, as text: none (absent, null) is left out, never guessed. */
function shownStatus(status: unknown): string | undefined {
  if (status === undefined || status === null) return undefined;
  return typeof status === 'string' ? status : JSON.stringify(status);
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The actions the plan gave a rule: its firewalls, when the rule itself is not found. */
function plannedActions(change: Change): { firewall: string; firewall_action: string }[] {
  const after = change.action === 'delete' ? undefined : change.after;
  const actions = Array.isArray(after?.actions) ? (after.actions as Record<string, unknown>[]) : [];
  return actions.map((action) => ({
    firewall: String(action.firewall_name),
    firewall_action: String(action.firewall_action),
  }));
}

/**
 * The run's clock as the wait takes it: `sleep` ends early when the signal aborts. Without a clock of
 * the caller's, Node's timer, cancelled by the signal (nothing keeps the process alive after it).
 */
export function waitClock(now: () => number, sleep?: (ms: number) => Promise<void>): WaitClock {
  if (sleep === undefined) {
    return { now, sleep: (ms, signal) => timer(ms, undefined, signal ? { signal } : {}).catch(() => {}) };
  }
  return {
    now,
    sleep: (ms, signal) =>
      new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return resolve();
        const stop = () => resolve();
        signal?.addEventListener('abort', stop, { once: true });
        sleep(ms).then(() => {
          signal?.removeEventListener('abort', stop);
          resolve();
        }, reject);
      }),
  };
}
