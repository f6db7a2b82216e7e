/** What an apply did: one result per operation (a replacement is a create and a delete). */
import type { Change, PlanProblem } from '../../core/model.js';

export type Operation = 'create' | 'update' | 'delete';

export type Outcome =
  | {
      status: 'done';
      id?: string;
      /**
       * An answer was ambiguous (no answer, a 5xx, an unreadable 2xx, a 303, a create's ids that a
       * re-read did not bear out), and the work was then verified: found done by re-reading, or found
       * missing and sent again with a clean answer.
       */
      ambiguous?: true;
    }
  | {
      status: 'failed';
      message: string;
      /** The request that failed, when the error names one (the API client's errors do). */
      request?: FailedRequest;
    }
  | { status: 'skipped'; reason: string }
  /** Never started: the apply was interrupted (SIGINT/SIGTERM) before its turn came. */
  | { status: 'interrupted' };

/** What the API client's error says of the request that failed; `path` and `serverMessage` are redacted. */
export interface FailedRequest {
  method: string;
  /** The API path (`/api/v1/...`), without host or query. */
  path: string;
  /** The HTTP status, when the server answered. */
  status?: number;
  /** The body's `message`, when the server sent one. */
  serverMessage?: string;
}

export type OutcomeStatus = Outcome['status'];

export const INTERRUPTED: Outcome = { status: 'interrupted' };

export interface OperationResult {
  change: Change;
  operation: Operation;
  outcome: Outcome;
}

export interface ApplyReport {
  results: OperationResult[];
  /** Objects the plan refused (duplicates, protected): nothing was sent for them. */
  refused: PlanProblem[];
  /**
   * API calls the apply made: write calls, the re-read that proves each create call, and re-reads
   * after an ambiguous answer (one per call of the family's writer; a call the client retried on its
   * own after a transient failure counts once).
   * Reading the firewall to plan is not counted. Set by the applier.
   */
  requests?: number;
}

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

export function worstStatus(outcomes: readonly Outcome[]): OutcomeStatus {
  return outcomes.reduce<OutcomeStatus>(
    (worst, { status }) => (SEVERITY.indexOf(status) > SEVERITY.indexOf(worst) ? status : worst),
    'done',
  );
}

export function applySucceeded(report: ApplyReport): boolean {
  return report.refused.length === 0 && report.results.every((r) => r.outcome.status === 'done');
}
