/**
 * `apply --wait`: after the writes, whether the application rules the apply created, replaced or
 * updated reached their firewalls as they were written. In Seer Box a saved rule is not yet
 * protection: each of its actions is synchronized to its firewall and carries a `sync_status`
 * (core/sync-status.ts reads it).
 *
 * Enforced means read back as written: every planned (rule, firewall, action), the change's
 * `after.actions`, is compared with what is read back. A planned action not read back (`missing`),
 * read back with another `firewall_action` (`changed`), or an action read back on a firewall the
 * plan did not give the rule (`unplanned`: moved or added) is not enforced, whatever its status; a
 * rule read back with no action enforces nothing. Only every planned action read back as written
 * and synced is `enforced`. A server's answer is never taken for more than it shows.
 *
 * The rules are read back until every action of each is settled (synced, in error, or not as
 * written), or the timeout passes, or the run's signal stops the wait (the writes are done: only the
 * waiting stops):
 *
 * - the first read comes at once, the next 1 s later, then 2, 4, 8 and every 10 s, on the run's
 *   clock, which tests replace: none sleeps for real;
 * - the timeout bounds the whole wait, reads in flight included: when it passes (the clock's
 *   `timer`) or the signal aborts, the reads in flight are cancelled through the API client's
 *   signal, and the wait ends at once; no read starts at or after the timeout;
 * - each round reads only the rules not yet settled: with the listing filtered by id (`id_list`, up
 *   to `batchSize` ids a call), and GET-one for the rows the listing gave without their `actions`
 *   array. A server whose listing gives such rows is read with GET-one from the next round on, as
 *   the listing would then only add calls. At most `concurrency` calls are in flight;
 * - a value the API gives but wafctl does not know counts as not enforced: it is polled until the
 *   timeout and then reported as it is. A rule that is not found any more is `missing`.
 *
 * Deleted rules are not waited for, nor the old half of a replacement: its new rule is.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { ApiError } from '../../api/errors.js';
import type { ApiClient } from '../../api/index.js';
import type { ApplicationRule } from '../../api/records.js';
import type { Change } from '../../core/model.js';
import { syncState } from '../../core/sync-status.js';
import { applicationRulesKind } from '../../kinds/application-rules.js';
import { mapLimited } from '../../kinds/normalize.js';
import { address } from '../../plan/render/summary.js';
import type {
  ApplyReport,
  EnforcedAction,
  Enforcement,
  EnforcementState,
  FailedOutcome,
  WaitResult,
} from './model.js';
import { failed } from './recovery.js';

/** The wait between the first read and the second; each next one doubles, up to `MAX_POLL_DELAY_MS`. */
export const FIRST_POLL_DELAY_MS = 1000;
export const MAX_POLL_DELAY_MS = 10_000;

/**
 * Calls `fire` once `ms` have passed on the clock, while other work runs; the function it returns
 * cancels it. Unlike a sleep, it never moves a test's clock: a test's clock fires it when its time
 * is moved past it (test/helpers/firewall.ts `manualClock`).
 */
export type WaitTimer = (ms: number, fire: () => void) => () => void;

/** The run's time: `sleep` returns early when `signal` aborts; `timer` is the wait's deadline. */
export interface WaitClock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  timer: WaitTimer;
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

/** The states that end the wait for an action: synced or in error as written, or not as written. */
const SETTLED: readonly EnforcementState[] = ['synced', 'error', 'missing', 'changed', 'unplanned'];

/** Why the wait stopped early: the deadline passed, or the run's signal aborted. */
const STOPPED_BY = { deadline: 'timed_out', signal: 'interrupted' } as const;

/**
 * Reads `rules` until every action is settled, the timeout passes or `options.signal` aborts; gives
 * what it last read of each, compared with what the plan gave it.
 */
export async function waitForEnforcement(
  api: ApiClient,
  rules: readonly WrittenRule[],
  options: WaitOptions,
): Promise<Enforcement> {
  const { clock, signal, timeoutMs } = options;
  // Aborted, with the result it stands for, at the deadline or by the run's signal: it ends the
  // sleep between rounds and cancels the reads in flight.
  const stop = new AbortController();
  const cancelTimer = clock.timer(timeoutMs, () => stop.abort(STOPPED_BY.deadline));
  const interrupt = () => stop.abort(STOPPED_BY.signal);
  if (signal?.aborted) interrupt();
  signal?.addEventListener('abort', interrupt, { once: true });
  try {
    return await poll(api, rules, options, stop.signal);
  } finally {
    cancelTimer();
    signal?.removeEventListener('abort', interrupt);
  }
}

/** The rounds of reads (see the module comment), until `stop` aborts or nothing is left pending. */
async function poll(
  api: ApiClient,
  rules: readonly WrittenRule[],
  options: WaitOptions,
  stop: AbortSignal,
): Promise<Enforcement> {
  const { clock, timeoutMs } = options;
  const started = clock.now();
  const reads = new Map<string, Read>();
  const reader = ruleReader(api, options);
  let pending = [...new Set(rules.map((rule) => rule.id))];
  let delay = FIRST_POLL_DELAY_MS;
  let polls = 0;
  const end = (result: WaitResult, error?: FailedOutcome) =>
    enforcement(rules, reads, { result, timeoutMs, waitedMs: clock.now() - started, polls, error }, reader);
  // The deadline on the clock itself, for a clock whose timer runs on other time (a caller's).
  const stopped = (): WaitResult | undefined =>
    stop.aborted ? (stop.reason as WaitResult) : clock.now() - started >= timeoutMs ? 'timed_out' : undefined;
  if (pending.length === 0) return end('enforced');
  for (;;) {
    const early = stopped();
    if (early !== undefined) return end(early);
    polls += 1;
    try {
      for (const [id, read] of await reader.read(pending, stop)) reads.set(id, read);
    } catch (error) {
      // A read cancelled by the deadline or the signal is how the wait stopped, not a failure.
      return stop.aborted ? end(stop.reason as WaitResult) : end('unreadable', failed(error));
    }
    const verdict = judgeAll(rules, reads);
    pending = pending.filter((id) => !(verdict.get(id) ?? []).every((a) => SETTLED.includes(a.state)));
    if (pending.length === 0) return end(allEnforced(verdict) ? 'enforced' : 'not_enforced');
    const left = started + timeoutMs - clock.now();
    if (left <= 0) return end('timed_out');
    await clock.sleep(Math.min(delay, left), stop);
    delay = Math.min(delay * 2, MAX_POLL_DELAY_MS);
  }
}

/**
 * Each rule's actions as the wait judges them (`judge`), by rule id. A rule written twice (an id
 * met in two changes) is judged against each.
 */
function judgeAll(rules: readonly WrittenRule[], reads: ReadonlyMap<string, Read>): Map<string, Judged[]> {
  const verdict = new Map<string, Judged[]>();
  for (const { change, id } of rules) {
    verdict.set(id, [...(verdict.get(id) ?? []), ...judge(change, reads.get(id))]);
  }
  return verdict;
}

/** Whether every rule has an action, and every action is synced as written: an empty rule enforces nothing. */
function allEnforced(verdict: ReadonlyMap<string, readonly Judged[]>): boolean {
  return [...verdict.values()].every(
    (actions) => actions.length > 0 && actions.every((action) => action.state === 'synced'),
  );
}

/** One action of a rule as the wait judges it: the report's entry without the change and the id. */
type Judged = Omit<EnforcedAction, 'change' | 'id'>;

/**
 * The actions of a rule the plan gave `change`, against `read` (undefined: never read; null: not
 * found): each planned action as read back, or `missing`; then each action read back that the plan
 * did not give it, `unplanned`.
 */
function judge(change: Change, read: Read | undefined): Judged[] {
  const planned = plannedActions(change);
  if (read === undefined) return planned.map((action) => ({ ...action, state: 'unknown', absent: 'unread' }));
  if (read === null) return planned.map((action) => ({ ...action, state: 'missing', absent: 'rule' }));
  const left = [...read];
  const take = (matches: (action: ReadAction) => boolean) => {
    const at = left.findIndex(matches);
    return at < 0 ? undefined : left.splice(at, 1)[0];
  };
  // The actions read back as written are paired first, so that a firewall given two actions pairs
  // each with its own; then what is left on a planned firewall is that action, changed.
  const asWritten = planned.map((p) =>
    take((a) => a.firewall_name === p.firewall && a.firewall_action === p.firewall_action),
  );
  const judged = planned.map((p, at): Judged => {
    const found = asWritten[at] ?? take((a) => a.firewall_name === p.firewall);
    if (found === undefined) return { ...p, state: 'missing', absent: 'action' };
    if (found.firewall_action === p.firewall_action) return asRead(found);
    return { ...asRead(found), state: 'changed', planned_action: p.firewall_action };
  });
  return [...judged, ...left.map((action): Judged => ({ ...asRead(action), state: 'unplanned' }))];
}

type ReadAction = ApplicationRule['actions'][number];

/** An action as read back: its firewall, its action, its status as given and what that says. */
function asRead({ firewall_name, firewall_action, sync_status }: ReadAction): Judged {
  const status = shownStatus(sync_status);
  return {
    firewall: firewall_name,
    firewall_action,
    ...(status === undefined ? {} : { status }),
    state: syncState(sync_status),
  };
}

/** Reads rules by id with the fewest calls the server allows (see the module comment); counts them. */
function ruleReader(api: ApiClient, { concurrency, batchSize }: WaitOptions) {
  let requests = 0;
  let listingComplete = true;
  const getOne = async (id: string, signal: AbortSignal): Promise<Read> => {
    requests += 1;
    try {
      return (await api.applicationRules.get(id, { signal })).actions;
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return null;
      throw error;
    }
  };
  const listed = async (ids: readonly string[], signal: AbortSignal): Promise<[string, Read][]> => {
    const wanted = new Set(ids);
    const rows: ApplicationRule[] = [];
    for await (const page of api.applicationRules.pages({ id_list: ids }, { signal })) {
      requests += 1;
      for (const row of page) if (wanted.has(row.id)) rows.push(row);
    }
    if (rows.some((row) => !row.complete)) listingComplete = false;
    const byId = new Map(rows.map((row) => [row.id, row]));
    return mapLimited(ids, concurrency, async (id): Promise<[string, Read]> => {
      const row = byId.get(id);
      if (row === undefined) return [id, null];
      return [id, row.complete ? row.actions : await getOne(id, signal)];
    });
  };
  return {
    requests: () => requests,
    /** The rules `ids` as read now; every call carries `signal`, which cancels those in flight. */
    async read(ids: readonly string[], signal: AbortSignal): Promise<Map<string, Read>> {
      if (!listingComplete)
        return new Map(await mapLimited(ids, concurrency, async (id) => [id, await getOne(id, signal)]));
      const chunks = [];
      for (let at = 0; at < ids.length; at += batchSize) chunks.push(ids.slice(at, at + batchSize));
      return new Map((await mapLimited(chunks, concurrency, (chunk) => listed(chunk, signal))).flat());
    },
  };
}

/**
 * The enforcement of `rules` as last read: each planned action as read back (or `missing`, or
 * `unknown` when the rule was never read), and each action read back that was not planned.
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
  const actions = rules.flatMap(({ change, id }): EnforcedAction[] =>
    judge(change, reads.get(id)).map((action) => ({ change, id, ...action })),
  );
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

/** The actions the plan gave a rule (its `after.actions`): what is compared with what is read back. */
function plannedActions(change: Change): { firewall: string; firewall_action: string }[] {
  const after = change.action === 'delete' ? undefined : change.after;
  const actions = Array.isArray(after?.actions) ? (after.actions as Record<string, unknown>[]) : [];
  return actions.map((action) => ({
    firewall: String(action.firewall_name),
    firewall_action: String(action.firewall_action),
  }));
}

/** Node's timer: unref'd, as the reads or the sleep it bounds keep the process alive. */
const nodeTimer: WaitTimer = (ms, fire) => {
  const handle = setTimeout(fire, ms);
  handle.unref();
  return () => clearTimeout(handle);
};

/**
 * The run's clock as the wait takes it: `sleep` ends early when the signal aborts. Without a sleep
 * of the caller's, Node's timer, cancelled by the signal (nothing keeps the process alive after it).
 * Without a `timer` of the caller's, the deadline of the reads in flight is Node's timer: a caller's
 * clock that moves only when slept on (the library's `clock`) still ends the wait at its timeout,
 * checked before each read and after each sleep.
 */
export function waitClock(
  now: () => number,
  sleep?: (ms: number) => Promise<void>,
  timer: WaitTimer = nodeTimer,
): WaitClock {
  if (sleep === undefined) {
    return {
      now,
      sleep: (ms, signal) => delay(ms, undefined, signal ? { signal } : {}).catch(() => {}),
      timer,
    };
  }
  return {
    now,
    timer,
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
