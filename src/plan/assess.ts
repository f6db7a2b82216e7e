/**
 * What a plan's changes are judged by: their security impact, the safety threshold on deletes, and
 * the summary counts. Pure, and shared: the planner calls these for a fresh plan, and `apply --plan`
 * calls them again for a saved one (src/ops/apply/replan.ts), so a saved plan is judged at apply time by
 * exactly the rules a fresh one is, never by what its file says.
 */
import {
  classifyChange,
  countImpacts,
  type ImpactContext,
  type ImpactDirection,
  type ImpactRule,
} from '../core/impact.js';
import type { Change, KindName, PlanSummary, SafetyWarning } from '../core/model.js';
import type { SafetySettings } from '../core/safety.js';

/** The threshold's settings and defaults live in src/core/safety.ts (the configuration reads them there). */
export { DEFAULT_SAFETY, type SafetySettings } from '../core/safety.js';

/** One kind's pure deletes (duplicates included) and its existing in-scope remote objects. */
export interface DeleteCounts {
  deletes: number;
  /** How many of `deletes` delete a duplicate of a surviving object. */
  duplicates: number;
  existing: number;
}

/**
 * The warning when a kind's pure deletes exceed `maxDeletePercent` of its existing in-scope objects
 * and at least `minExisting` exist (apply refuses it without --force), else undefined. Duplicates (a
 * declared object's extra copies, `duplicate_of`) are counted neither among the deletes nor among the
 * existing objects: two applies at once leave such copies, removing them loses nothing, and copies
 * must not make a real loss look smaller. The warning's `existing` is the objects without them.
 */
export function safetyWarning(
  kind: KindName,
  counts: DeleteCounts,
  safety: SafetySettings,
): SafetyWarning | undefined {
  const { deletes, duplicates } = counts;
  const existing = counts.existing - duplicates;
  if (existing < safety.minExisting || !exceedsDeleteLimit(counts, existing, safety.maxDeletePercent)) {
    return undefined;
  }
  return { kind, deletes, duplicates, existing, max_delete_percent: safety.maxDeletePercent };
}

/**
 * Whether deleting `deletes` objects (`duplicates` of them copies of declared ones) loses more than
 * `maxDeletePercent` of `existing` (duplicates not counted). A duplicate of a declared object is no
 * loss: a copy with its key stays. Only the rest counts.
 */
export function exceedsDeleteLimit(
  { deletes, duplicates }: Pick<DeleteCounts, 'deletes' | 'duplicates'>,
  existing: number,
  maxDeletePercent: number,
): boolean {
  const lost = deletes - duplicates;
  return lost > 0 && lost * 100 > maxDeletePercent * existing;
}

/**
 * Sets each change's `impact` from its kind's table (no table: no impact). Attached once, here, so
 * every consumer (renderers, --fail-on, the apply gate) reads the same classification.
 */
export function attachImpact(
  changes: readonly Change[],
  rules: readonly ImpactRule[] | undefined,
  context: ImpactContext,
  direction: ImpactDirection = 'apply',
): void {
  for (const change of changes)
    change.impact = rules ? classifyChange(change, rules, context, direction) : [];
}

/** The summary of `changes`: counts per action and per impact class, plus the objects left alone. */
export function summarize(
  changes: readonly Change[],
  untouched: { unchanged: number; unmanaged: number },
): PlanSummary {
  const summary: PlanSummary = {
    create: 0,
    update: 0,
    replace: 0,
    delete: 0,
    unchanged: untouched.unchanged,
    unmanaged: untouched.unmanaged,
    impact: countImpacts(changes),
  };
  for (const change of changes) summary[change.action] += 1;
  return summary;
}
