/**
 * What an apply did, in memory: one result per operation (a replacement is a create and a delete),
 * each holding the plan's change it carried out. The types are derived from the zod schemas here, the
 * memory side of the apply report (report-document.ts): its encoder takes what they describe and
 * writes the report's JSON.
 */
import * as z from 'zod';
import type { Change, PlanProblem } from '../../core/model.js';

/** What one operation sends, in this order in reports: a replacement is a create and a delete. */
export const operationSchema = z.enum(['create', 'update', 'delete']);
export type Operation = z.output<typeof operationSchema>;

/** What the API client's error says of the request that failed; `path` and `server_message` are redacted. */
const failedRequestSchema = z.object({
  method: z.string(),
  /** The API path (`/api/v1/...`), without host or query. */
  path: z.string(),
  /** The HTTP status, when the server answered. */
  status: z.int().optional(),
  /** The body's `message`, when the server sent one. */
  server_message: z.string().optional(),
});
export type FailedRequest = z.output<typeof failedRequestSchema>;

/** A failure, with the API client's words for it: an operation's, or the wait's read (wait.ts). */
const failedOutcomeSchema = z.object({
  status: z.literal('failed'),
  message: z.string(),
  /** The request that failed, when the error names one (the API client's errors do). */
  request: failedRequestSchema.optional(),
});
export type FailedOutcome = z.output<typeof failedOutcomeSchema>;

/** How one operation ended (the report's `outcome`, report-document.ts, says each in words). */
const outcomeSchema = z.discriminatedUnion('status', [
  z.object({
    status: z.literal('done'),
    /** A create's new object, as the re-read that proved it found it. */
    id: z.string().optional(),
    /**
     * An answer was ambiguous (no answer, a 5xx, an unreadable 2xx, a 303, a create's ids that a
     * re-read did not bear out), and the work was then verified: found done by re-reading, or found
     * missing and sent again with a clean answer.
     */
    ambiguous: z.literal(true).optional(),
  }),
  failedOutcomeSchema,
  z.object({ status: z.literal('skipped'), reason: z.string() }),
  /** Never started: the apply was interrupted (SIGINT/SIGTERM) before its turn came. */
  z.object({ status: z.literal('interrupted') }),
]);
export type Outcome = z.output<typeof outcomeSchema>;
export type OutcomeStatus = Outcome['status'];

export const INTERRUPTED: Outcome = { status: 'interrupted' };

/** One operation: the plan's change (a live object, as planned), what was sent for it, how it ended. */
const operationResultSchema = z.object({
  change: z.custom<Change>(),
  operation: operationSchema,
  outcome: outcomeSchema,
});
export type OperationResult = z.output<typeof operationResultSchema>;

/**
 * How one action of a rule the apply wrote was found when read back (wait.ts):
 * - as written (the firewall and `firewall_action` planned): what its `sync_status` says
 *   (core/sync-status.ts `syncState`): `synced`, `pending`, `error`, `unknown`;
 * - `missing`: a planned action not read back: the rule was not found, or it has no action on this
 *   firewall;
 * - `changed`: read back on the planned firewall with another `firewall_action`;
 * - `unplanned`: read back on a firewall the plan did not give the rule (the action moved there, or
 *   was added).
 * Only `synced` is enforced.
 */
export const ENFORCEMENT_STATES = [
  'synced',
  'pending',
  'error',
  'unknown',
  'missing',
  'changed',
  'unplanned',
] as const;
export type EnforcementState = (typeof ENFORCEMENT_STATES)[number];

/** One action of a rule the apply wrote, as `apply --wait` last read it (wait.ts). */
const enforcedActionSchema = z.object({
  /** The plan's change that wrote the rule: its kind, key and address. */
  change: z.custom<Change>(),
  /** The rule written: the new one of a create or a replacement, the one updated. */
  id: z.string(),
  firewall: z.string(),
  /** As read back; for an action not read back (or never read), as planned. */
  firewall_action: z.string().optional(),
  /** With `changed`: the `firewall_action` the plan gave this firewall. */
  planned_action: z.string().optional(),
  /** The `sync_status` as the API gave it; absent when it gave none (never guessed). */
  status: z.string().optional(),
  state: z.enum(ENFORCEMENT_STATES),
  /**
   * For a planned action that was not read: the rule was not found (`rule`), the rule read back has
   * no action on this firewall (`action`), or the rule was never read, the wait having stopped first
   * (`unread`).
   */
  absent: z.enum(['rule', 'action', 'unread']).optional(),
});
export type EnforcedAction = z.output<typeof enforcedActionSchema>;

/**
 * How `apply --wait` ended: every planned action read back as written and synced; none left pending
 * but some in error or not read back as written; the timeout passed with some not settled (reads in
 * flight cancelled); a signal stopped the wait; or the rules could not be read.
 */
export const WAIT_RESULTS = ['enforced', 'not_enforced', 'timed_out', 'interrupted', 'unreadable'] as const;
export type WaitResult = (typeof WAIT_RESULTS)[number];

/** What `apply --wait` found once it stopped waiting (wait.ts). */
export const enforcementSchema = z.object({
  result: z.enum(WAIT_RESULTS),
  timeoutMs: z.number(),
  /** From the end of the writes to the end of the wait, on the run's clock. */
  waitedMs: z.number(),
  /** Rounds of reads. */
  polls: z.number(),
  /** API calls the reads made (a listing's pages each count). */
  requests: z.number(),
  /** Rules waited for (some may have no action). */
  rules: z.number(),
  /**
   * Every planned action of every rule waited for, and every action read back that the plan did not
   * give, as last read, by change then firewall.
   */
  actions: z.array(enforcedActionSchema),
  /** With `unreadable`: the read that failed. */
  error: failedOutcomeSchema.optional(),
});
export type Enforcement = z.output<typeof enforcementSchema>;

/** What an apply did, as the applier returns it. */
export const applyReportSchema = z.object({
  results: z.array(operationResultSchema),
  /** Objects the plan refused (duplicates, protected): nothing was sent for them. */
  refused: z.array(z.custom<PlanProblem>()),
  /**
   * API calls the apply made: write calls, the re-read that proves each create call, and re-reads
   * after an ambiguous answer (one per call of the family's writer; a call the client retried on its
   * own after a transient failure counts once).
   * Reading the firewall to plan is not counted. Set by the applier.
   */
  requests: z.number().optional(),
  /** With `--wait`: whether the rules written reached their firewalls (set by the workflow). */
  enforcement: enforcementSchema.optional(),
});
export type ApplyReport = z.output<typeof applyReportSchema>;

/** One finished API call (or one recovery step), for progress output. */
export interface CallEvent {
  kind: Change['kind'];
  operation: Operation;
  objects: number;
  /** The worst outcome among the call's objects: failed, then skipped, then interrupted, then done. */
  status: OutcomeStatus;
  /** Operations finished so far, and in all. */
  finished: number;
  total: number;
}

const SEVERITY: readonly OutcomeStatus[] = ['done', 'interrupted', 'skipped', 'failed'];

/** The worst of `outcomes`' statuses (`done` for none): failed, then skipped, then interrupted. */
export function worstStatus(outcomes: readonly Outcome[]): OutcomeStatus {
  return outcomes.reduce<OutcomeStatus>(
    (worst, { status }) => (SEVERITY.indexOf(status) > SEVERITY.indexOf(worst) ? status : worst),
    'done',
  );
}

/** Whether everything planned was applied: every operation done, nothing refused. */
export function applySucceeded(report: ApplyReport): boolean {
  return report.refused.length === 0 && report.results.every((r) => r.outcome.status === 'done');
}

/**
 * The exit code of an apply no signal stopped: 0 when everything planned was applied and, with
 * `--wait`, every planned action of the rules written is read back as written and synced; else 1.
 */
export function applyExitCode(report: ApplyReport): 0 | 1 {
  const enforced = report.enforcement === undefined || report.enforcement.result === 'enforced';
  return applySucceeded(report) && enforced ? 0 : 1;
}
