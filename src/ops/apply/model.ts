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
  z.object({
    status: z.literal('failed'),
    message: z.string(),
    /** The request that failed, when the error names one (the API client's errors do). */
    request: failedRequestSchema.optional(),
  }),
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
