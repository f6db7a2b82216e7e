/**
 * The comparison as JSON (`compare --format json`): the plan document (src/core/plan-document.ts, same
 * `format_version`) of the changes from environment A to B, with three fields first: `from` (A), `to`
 * (B) and `compared`, what was compared (the live firewalls, or the configurations with `--desired`).
 * Its zod schema is the source of `schemas/compare.schema.json`, and `compareToJson` writes the
 * document through it, so the two cannot diverge.
 */
import * as z from 'zod';
import { PLAN_FORMAT_VERSION, type Plan, planDocumentSchema } from './plan-document.js';

export const compareDocumentSchema = planDocumentSchema.extend({
  /** The environment compared from (A): its objects are the plan's remote side. */
  from: z.string(),
  /** The environment compared to (B): its objects are the plan's desired side. */
  to: z.string(),
  /** What was compared: the two live firewalls, or the two configurations (`--desired`). */
  compared: z.enum(['live', 'desired']),
});

/** The comparison as JSON. */
export type CompareJson = z.input<typeof compareDocumentSchema>;

/**
 * What was compared: environment `from` (A) to `to` (B), their live firewalls (`live`) or their
 * configurations (`--desired`).
 */
export interface ComparedEnvironments {
  from: string;
  to: string;
  live: boolean;
}

/** The comparison `plan` of `from` -> `to`, as JSON: `from`, `to` and `compared` first, then the plan document. */
export function compareToJson(plan: Plan, environments: ComparedEnvironments): CompareJson {
  const encoded = z.encode(compareDocumentSchema, {
    format_version: PLAN_FORMAT_VERSION,
    ...plan,
    from: environments.from,
    to: environments.to,
    compared: environments.live ? 'live' : 'desired',
  });
  // The comparison's own fields first, as they have always been written.
  const { from, to, compared, ...document } = encoded;
  return { from, to, compared, ...document };
}
