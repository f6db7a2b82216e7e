/** What an apply did: one result per operation (a replacement is a create and a delete). */
import type { Change, PlanProblem } from '../plan/model.js';

export type Operation = 'create' | 'update' | 'delete';

export type Outcome =
  | { status: 'done'; id?: string }
  | { status: 'failed'; message: string }
  | { status: 'skipped'; reason: string };

export interface OperationResult {
  change: Change;
  operation: Operation;
  outcome: Outcome;
}

export interface ApplyReport {
  results: OperationResult[];
  /** Objects the plan refused (duplicates, protected): nothing was sent for them. */
  refused: PlanProblem[];
}

/** One finished API call (or one recovery step), for progress output. */
export interface CallEvent {
  kind: Change['kind'];
  operation: Operation;
  objects: number;
  ok: boolean;
  /** Operations finished so far, and in all. */
  finished: number;
  total: number;
}

export function applySucceeded(report: ApplyReport): boolean {
  return report.refused.length === 0 && report.results.every((r) => r.outcome.status === 'done');
}
