/**
 * The machine-readable plan of the contract (`format_version: 1`). Fields of the contract never
 * change meaning; the extra ones (`forced_by`, `target`, `fingerprint`, `duplicate_of`, `problems`,
 * `warnings`) are additions the contract allows, and are what `apply --plan` needs to apply exactly
 * this plan.
 */
import type { Change, Plan } from '../../core/model.js';

export const PLAN_FORMAT_VERSION = 1;

function changeToJson(change: Change): Record<string, unknown> {
  const base = { kind: change.kind, key: change.key, action: change.action, impact: change.impact };
  switch (change.action) {
    case 'create':
      return { ...base, fields: change.fields, before: null, after: change.after };
    case 'update':
      return {
        ...base,
        id: change.id,
        fields: change.fields,
        before: change.before,
        after: change.after,
        target: change.target,
        fingerprint: change.fingerprint,
      };
    case 'replace':
      return {
        ...base,
        id: change.id,
        fields: change.fields,
        forced_by: change.forcedBy,
        before: change.before,
        after: change.after,
        fingerprint: change.fingerprint,
      };
    case 'delete':
      return {
        ...base,
        id: change.id,
        fields: change.fields,
        before: change.before,
        after: null,
        fingerprint: change.fingerprint,
        ...(change.duplicateOf === undefined
          ? {}
          : { reason: 'duplicate', duplicate_of: change.duplicateOf }),
      };
  }
}

export function planToJson(plan: Plan): Record<string, unknown> {
  return {
    format_version: PLAN_FORMAT_VERSION,
    summary: plan.summary,
    changes: plan.changes.map(changeToJson),
    problems: plan.problems,
    warnings: plan.warnings.map((w) => ({
      kind: w.kind,
      deletes: w.deletes,
      duplicates: w.duplicates,
      existing: w.existing,
      max_delete_percent: w.maxDeletePercent,
    })),
  };
}

export function renderJsonPlan(plan: Plan): string {
  return `${JSON.stringify(planToJson(plan), null, 2)}\n`;
}
