/**
 * One environment's row in a run over several (`--env all`, globs, shards: issue 45): what it gave
 * (`3 changes`, `drift: 2 objects`, `valid`, `applied`...), how many (changes, drifted objects,
 * problems), the worst impact class of its changes, and the error that stopped it, on one redacted
 * line. The text and markdown outputs open with a table of these rows (plan/render/environments.ts);
 * the JSON documents of several environments hold them under `summary`, by name. Its zod schema is
 * the source of that part of the plan, drift, validation and apply report schemas.
 */
import * as z from 'zod';
import { IMPACT_CLASSES, type ImpactClass } from './impact-classes.js';
import { redact } from './secrets.js';
import { printable } from './text.js';

/** One environment's summary: `error` is null unless it failed or was refused. */
export const environmentSummarySchema = z.strictObject({
  /** As the summary table shows it: `3 changes`, `no drift`, `invalid: 2 problems`, `failed`... */
  result: z.string(),
  /** Changes (plan, apply), drifted objects (drift) or problems (validate); null when it failed. */
  count: z.int().min(0).nullable(),
  /** The worst impact class of its changes (weakens_protection, broadens_access, reduces_audit). */
  impact: z.enum(IMPACT_CLASSES).nullable(),
  /** Why it failed or was refused: the first line of the error, redacted. */
  error: z.string().nullable(),
});

/** Each environment's summary, by name, in the order of the run. */
export const environmentsSummarySchema = z.record(z.string(), environmentSummarySchema);

export type EnvironmentSummary = z.output<typeof environmentSummarySchema>;

/** The longest error line a summary keeps: a row stays one readable line, the full error is on stderr. */
export const SUMMARY_ERROR_MAX_CHARS = 200;

/** The worst of the classes whose count is above zero (a plan's `summary.impact`); null when none. */
export function worstImpact(counts: Readonly<Record<ImpactClass, number>>): ImpactClass | null {
  return IMPACT_CLASSES.find((impact) => counts[impact] > 0) ?? null;
}

/** An error as a summary shows it: its first line, printable, redacted, at most SUMMARY_ERROR_MAX_CHARS. */
export function errorLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const first = redact(printable(message.split('\n')[0] ?? '').trim());
  return first.length > SUMMARY_ERROR_MAX_CHARS ? `${first.slice(0, SUMMARY_ERROR_MAX_CHARS - 1)}…` : first;
}
