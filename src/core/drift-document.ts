/**
 * The drift report as JSON (`drift --format json`, the body of `drift --report FILE`): the plan
 * document (src/core/plan-document.ts, same `format_version`) with two fields first, `drift` (whether
 * anything differs) and `objects` (how many changes). Its zod schema is the source of
 * `schemas/drift-report.schema.json`, and the drift renderer builds its output through this type, so
 * the two cannot diverge.
 *
 * What only a drift report carries (issue 44), in the plan document's schema as optional fields a
 * plan never sets: `changed_by` and `changed_at` on each change with a live record and each
 * `read_only` entry, where the record gives them; and `enforcement`, the managed rules not enforced
 * on a firewall (src/plan/enforcement.ts). A report written before them decodes as it did.
 */
import * as z from 'zod';
import { environmentsSummarySchema } from './fleet-summary.js';
import { driftCount } from './model.js';
import { PLAN_FORMAT_VERSION, type Plan, planDocumentSchema } from './plan-document.js';

export const driftDocumentSchema = planDocumentSchema.extend({
  /** Whether the firewall differs from the configuration: `objects > 0`. */
  drift: z.boolean(),
  /**
   * How many objects differ: the number of changes, of read-only objects that differ, and of managed
   * rules not enforced (`enforcement`).
   */
  objects: z.int().min(0),
});

/** Several environments' drift reports in one document (`drift --env all --format json`), as for plans. */
export const driftEnvironmentsSchema = z.strictObject({
  format_version: z.literal(PLAN_FORMAT_VERSION),
  environments: z.record(z.string(), driftDocumentSchema.nullable()),
  /** One row per environment (issue 45); absent from documents written before it. */
  summary: environmentsSummarySchema.optional(),
});

/** The drift report as JSON. */
export type DriftJson = z.input<typeof driftDocumentSchema>;

/** The drift report of `plan`, as JSON: `drift` and `objects` first, then the plan document. */
export function driftToJson(plan: Plan): DriftJson {
  const encoded = z.encode(driftDocumentSchema, {
    format_version: PLAN_FORMAT_VERSION,
    ...plan,
    drift: driftCount(plan) > 0,
    objects: driftCount(plan),
  });
  // The report's own fields first, as they have always been written.
  const { drift, objects, ...document } = encoded;
  return { drift, objects, ...document };
}
