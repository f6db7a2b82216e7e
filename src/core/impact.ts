/**
 * Security impact: a pure classification of one change into zero or more `{class, reason}`. The
 * engine knows no resource family: each kind brings a small table of rows (`ImpactRule`, in its file
 * in src/kinds/), and this module runs them over a uniform view of the change and offers the few
 * helpers rows are written with (field transitions, set members added or removed, bounded lists).
 * The planner attaches the result; renderers and `--fail-on` only read it.
 */
import { canonicalJson, sameJson } from './canonical.js';
import { DEFAULT_FIREWALL_ACTIONS, type FirewallActions } from './firewall-actions.js';
import {
  type Action,
  type Attributes,
  type Change,
  IMPACT_CLASSES,
  type Impact,
  type ImpactClass,
} from './model.js';

/** What rows may depend on besides the change: configuration, never the clock or the network. */
export interface ImpactContext {
  firewallActions: FirewallActions;
  /** How a user id reads in a reason (`grace (u-1007)`), where the server's user listing names it. */
  userLabel?: ((id: string) => string) | undefined;
}

export const DEFAULT_IMPACT_CONTEXT: ImpactContext = { firewallActions: DEFAULT_FIREWALL_ACTIONS };

/**
 * Whose change is classified. `apply`: what applying the plan does to the firewall (plan, apply).
 * `drift`: what was done to the firewall outside wafctl, i.e. the change from the configuration to
 * the live state, the reverse of the plan's (a rule disabled by hand weakens protection, even though
 * applying, which re-enables it, does not).
 */
export type ImpactDirection = 'apply' | 'drift';

const REVERSE: Record<Action, Action> = {
  create: 'delete',
  delete: 'create',
  update: 'update',
  replace: 'replace',
};

/** A change seen whole, whatever its action: the object before and after it. */
export interface ImpactSubject {
  action: Action;
  /** The whole object before the change; undefined for a create. */
  before: Attributes | undefined;
  /** The whole object after the change; undefined for a delete. */
  after: Attributes | undefined;
}

/** One row of a kind's table: a class, and the reasons it finds in a change (none: it does not apply). */
export interface ImpactRule {
  class: ImpactClass;
  reasons(subject: ImpactSubject, context: ImpactContext): readonly string[];
}

export function subjectOf(change: Change): ImpactSubject {
  // Every change holds its whole objects; only the missing side of a create or a delete is null.
  return { action: change.action, before: change.before ?? undefined, after: change.after ?? undefined };
}

/**
 * The impacts of one change: every row's reasons, in the contract's class order then table order,
 * one entry per distinct (class, reason). A duplicate's delete has none: an equal-keyed copy
 * survives (and its own change, if any, is classified), so nothing is lost.
 */
export function classifyChange(
  change: Change,
  rules: readonly ImpactRule[],
  context: ImpactContext = DEFAULT_IMPACT_CONTEXT,
  direction: ImpactDirection = 'apply',
): Impact[] {
  if (rules.length === 0) return [];
  // Either way a copy with the key survives: deleting a duplicate, or one appearing, loses nothing.
  if (change.action === 'delete' && change.duplicate_of !== undefined) return [];
  const applied = subjectOf(change);
  const subject: ImpactSubject =
    direction === 'apply'
      ? applied
      : { action: REVERSE[applied.action], before: applied.after, after: applied.before };
  const impacts: Impact[] = [];
  const seen = new Set<string>();
  for (const klass of IMPACT_CLASSES) {
    for (const rule of rules) {
      if (rule.class !== klass) continue;
      for (const reason of rule.reasons(subject, context)) {
        const id = `${klass}\0${reason}`;
        if (seen.has(id)) continue;
        seen.add(id);
        impacts.push({ class: klass, reason });
      }
    }
  }
  return impacts;
}

/** `summary.impact`: per class, the number of changes with at least one impact of it. */
export function countImpacts(changes: readonly Change[]): Record<ImpactClass, number> {
  const counts: Record<ImpactClass, number> = { weakens_protection: 0, broadens_access: 0, reduces_audit: 0 };
  for (const change of changes) {
    for (const klass of IMPACT_CLASSES) {
      if (change.impact.some((impact) => impact.class === klass)) counts[klass] += 1;
    }
  }
  return counts;
}

// --- Helpers rows are written with. Each reads one field, and says nothing when a side is missing.

/** `field` goes from `from` to `to` on an existing object (never on a create or a delete). */
export function turned(subject: ImpactSubject, field: string, from: unknown, to: unknown): boolean {
  const { before, after } = subject;
  return (
    before !== undefined && after !== undefined && sameJson(before[field], from) && sameJson(after[field], to)
  );
}

/** `field` is `value` after the change and was not before (a create counts: it was nothing before). */
export function becomes(subject: ImpactSubject, field: string, value: unknown): boolean {
  const { before, after } = subject;
  return (
    after !== undefined &&
    sameJson(after[field], value) &&
    (before === undefined || !sameJson(before[field], value))
  );
}

/** Both sides exist and `read` differs between them (`read` may reach into nested objects). */
export function differs(subject: ImpactSubject, read: (attributes: Attributes) => unknown): boolean {
  const { before, after } = subject;
  return before !== undefined && after !== undefined && !sameJson(read(before), read(after));
}

/** The set's members after the change that were not in it before (all of them on a create). */
export function added<T>(subject: ImpactSubject, read: (attributes: Attributes) => readonly T[]): T[] {
  if (subject.after === undefined) return [];
  return difference(read(subject.after), subject.before === undefined ? [] : read(subject.before));
}

/** The set's members before the change that are not in it after (all of them on a delete). */
export function removed<T>(subject: ImpactSubject, read: (attributes: Attributes) => readonly T[]): T[] {
  if (subject.before === undefined) return [];
  return difference(read(subject.before), subject.after === undefined ? [] : read(subject.after));
}

/** Members of `from` not in `to`, compared as canonical JSON (sets of objects compare by value). */
function difference<T>(from: readonly T[], to: readonly T[]): T[] {
  if (from.length === 0) return [];
  const present = new Set(to.map(canonicalJson));
  return from.filter((item) => !present.has(canonicalJson(item)));
}

/** A field that is a list, or [] when it is absent or not a list: rows never throw on odd input. */
export function listField<T = unknown>(attributes: Attributes, field: string): readonly T[] {
  const value = attributes[field];
  return Array.isArray(value) ? (value as T[]) : [];
}

/** One fixed reason when `condition` holds, else none: most rows are this. */
export function reasonIf(condition: boolean, reason: string): string[] {
  return condition ? [reason] : [];
}

/** How many values one reason names before it says "and N more": a reason stays one short line. */
export const LISTED_MAX = 5;

/**
 * One reason naming a set of values, e.g. `member added: u-1003` or `members added: u-1, u-2, u-3,
 * u-4, u-5 and 4995 more`; none when `values` is empty. One entry per field, not per value: a group
 * gaining 5,000 members is one line of the plan, not 5,000.
 */
export function listed(singular: string, plural: string, values: readonly string[]): string[] {
  if (values.length === 0) return [];
  const shown = values.slice(0, LISTED_MAX).join(', ');
  const more = values.length > LISTED_MAX ? ` and ${values.length - LISTED_MAX} more` : '';
  return [`${values.length === 1 ? singular : plural}: ${shown}${more}`];
}

/** A scalar for a reason: strings as they are, anything else as JSON (`null`, `514`, `true`). */
export function shown(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
}
