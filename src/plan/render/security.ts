/**
 * The Security impact section, shared by the text, markdown and drift renderers: the first thing a
 * reviewer reads after the summary, one line per classified change and reason. The classification
 * itself is the planner's (src/core/impact.ts); this only words it.
 */
import { driftCount, IMPACT_CLASSES, type ImpactClass, type Plan } from '../../core/model.js';
import { printable } from '../../core/text.js';
import { address } from './summary.js';

/** Singular and plural verb phrases: "1 change weakens protection", "2 changes weaken protection". */
const WORDS: Record<ImpactClass, readonly [string, string]> = {
  weakens_protection: ['weakens protection', 'weaken protection'],
  broadens_access: ['broadens access', 'broaden access'],
  reduces_audit: ['reduces audit', 'reduce audit'],
};

export interface ImpactEntry {
  class: ImpactClass;
  /** `kind.key`, escaped. */
  address: string;
  /** Escaped. */
  reason: string;
}

/**
 * One entry per change and class, grouped by class in the contract's order, then in plan order: a
 * change with several reasons of one class is one line (its reasons joined by `; `), so the lines of
 * a class are as many as the changes the headline counts.
 */
export function impactEntries(plan: Plan): ImpactEntry[] {
  const entries: ImpactEntry[] = [];
  const objects = [...plan.changes, ...(plan.read_only ?? []), ...(plan.enforcement ?? [])];
  for (const klass of IMPACT_CLASSES) {
    for (const object of objects) {
      const reasons = object.impact.filter((impact) => impact.class === klass).map((impact) => impact.reason);
      if (reasons.length === 0) continue;
      // A read-only object's difference was made by hand, and stays until a person undoes it. (An
      // enforcement finding's reason says what it is: `not enforced on waf-eu-1: sync error`.)
      const readOnly =
        !('action' in object) && !('firewalls' in object) ? ' (read-only: wafctl cannot change it)' : '';
      entries.push({
        class: klass,
        address: address(object),
        reason: `${printable(reasons.join('; '))}${readOnly}`,
      });
    }
  }
  return entries;
}

/**
 * `1 change reduces audit`, `2 changes reduce audit`: the one wording of a count of changes with a
 * class, wherever one is written (the verb agrees with the count; the class's name is not a verb).
 */
export function changesWith(n: number, klass: ImpactClass, noun = 'change'): string {
  return `${n} ${n === 1 ? noun : `${noun}s`} ${WORDS[klass][n === 1 ? 0 : 1]}`;
}

/**
 * `2 changes weaken protection, 1 change broadens access.`, or `none: no change weakens protection,
 * broadens access or reduces audit.`: said explicitly, so a reviewer knows it was looked at.
 */
export function impactSummary(plan: Plan): string {
  const parts = IMPACT_CLASSES.filter((c) => plan.summary.impact[c] > 0).map((c) =>
    changesWith(plan.summary.impact[c], c),
  );
  const others = [
    { entries: plan.read_only ?? [], noun: 'read-only object' },
    { entries: plan.enforcement ?? [], noun: 'unenforced rule' },
  ];
  for (const { entries, noun } of others) {
    for (const klass of IMPACT_CLASSES) {
      const n = entries.filter((entry) => entry.impact.some((i) => i.class === klass)).length;
      if (n > 0) parts.push(changesWith(n, klass, noun));
    }
  }
  if (parts.length === 0) return 'none: no change weakens protection, broadens access or reduces audit.';
  return `${parts.join(', ')}.`;
}

/**
 * Whether a plan has a Security impact section to show: a change, a read-only object that differs,
 * or a rule not enforced (drift).
 */
export function hasImpactSection(plan: Plan): boolean {
  return driftCount(plan) > 0;
}

/** The section's title in a drift report, whose impacts are those of what was changed by hand. */
export const DRIFT_IMPACT_TITLE = 'Security impact of the drift (what was changed outside wafctl)';

/** The text section: a heading line, then `  ! class  address: reason` lines, labels aligned. */
export function textImpactSection(
  plan: Plan,
  paint: (klass: ImpactClass, text: string) => string,
  title = 'Security impact',
): string[] {
  const entries = impactEntries(plan);
  const width = entries.reduce((max, e) => Math.max(max, e.class.length), 0);
  return [
    `${title}: ${impactSummary(plan)}`,
    ...entries.map((e) => `  ! ${paint(e.class, e.class.padEnd(width))}  ${e.address}: ${e.reason}`),
  ];
}
