/**
 * Wording shared by every renderer, so text, markdown and drift reports never disagree. Every name,
 * key and id from configuration or the API goes through `printable` here, where it is put into a
 * line: a `\n` in a name must not forge a line of the plan, nor an ESC recolour or erase one.
 */
import type { Action, Change, Plan, PlanProblem, SafetyWarning } from '../../core/model.js';
import { printable } from '../../core/text.js';

export const SYMBOL: Record<Action, string> = { create: '+', update: '~', delete: '-', replace: '-/+' };

export const LEGEND: Record<Action, string> = {
  create: 'create',
  update: 'update in-place',
  delete: 'destroy',
  replace: 'replace (the new object is created before the old one is deleted)',
};

const VERB: Record<Action, string> = {
  create: 'will be created',
  update: 'will be updated in-place',
  replace: 'will be replaced',
  delete: 'will be destroyed',
};

/** `kind.key`, the key shown escaped (`group.a\nb`), so it always stays on one line. */
export const address = (change: Pick<Change, 'kind' | 'key'>): string =>
  `${change.kind}.${printable(change.key)}`;

/** Why an object is destroyed when it is not a prune, e.g. ` (duplicate of 12)`; else empty. */
const deleteReason = (change: Change): string =>
  change.action === 'delete' && change.duplicateOf !== undefined
    ? ` (duplicate of ${printable(change.duplicateOf)})`
    : '';

export const headline = (change: Change): string =>
  `${address(change)} ${VERB[change.action]}${deleteReason(change)}`;

/** `kind.key: message` for a problem the plan refused, one line whatever the key and message hold. */
export const problemLine = (problem: PlanProblem): string =>
  `${address(problem)}: ${printable(problem.message)}`;

/** Terraform's count: a replacement is one add and one destroy. */
export function planLine(plan: Plan): string {
  const { create, update, replace, delete: destroy } = plan.summary;
  return `Plan: ${create + replace} to add, ${update} to change, ${destroy + replace} to destroy.`;
}

export const NO_CHANGES = 'No changes. The firewall matches the configuration.';

export function warningLine(w: SafetyWarning): string {
  const percent = Math.round((w.deletes * 100) / w.existing);
  const duplicates = w.duplicates > 0 ? `, ${w.duplicates} of them duplicates` : '';
  return `the plan deletes ${w.deletes} of ${w.existing} existing ${w.kind} objects (${percent}%${duplicates}), above the safety limit of ${w.maxDeletePercent}%; apply refuses this without --force.`;
}

export function unmanagedLine(plan: Plan): string | undefined {
  const n = plan.summary.unmanaged;
  if (n === 0) return undefined;
  return `${n} remote ${n === 1 ? 'object is' : 'objects are'} not managed by this configuration and will be left alone.`;
}

export const actionsUsed = (plan: Plan): Action[] =>
  (['create', 'update', 'delete', 'replace'] as const).filter((a) =>
    plan.changes.some((c) => c.action === a),
  );
