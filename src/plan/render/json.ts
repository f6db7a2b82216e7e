/**
 * The machine-readable plan of the contract (`format_version: 1`), written by the plan document's
 * codec (src/core/plan-document.ts). Fields of the contract never change meaning; the extra ones
 * (`forced_by`, `target`, `fingerprint`, `duplicate_of`, `objects`, `problems`, `warnings`) are
 * additions the contract allows, and are what `apply --plan` needs to apply exactly this plan;
 * `unmanaged`, also an addition, names the remote objects the plan leaves alone.
 */
import * as z from 'zod';
import type { Plan } from '../../core/model.js';
import { PLAN_FORMAT_VERSION, type PlanJson, planDocumentSchema } from '../../core/plan-document.js';

export { PLAN_FORMAT_VERSION } from '../../core/plan-document.js';

/** The plan as the JSON document of the contract (`format_version` first). */
export function planToJson(plan: Plan): PlanJson {
  return z.encode(planDocumentSchema, { format_version: PLAN_FORMAT_VERSION, ...plan });
}

/** The JSON plan as written: indented by two spaces, with a final newline. */
export function renderJsonPlan(plan: Plan): string {
  return `${JSON.stringify(planToJson(plan), null, 2)}\n`;
}
