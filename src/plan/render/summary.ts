/**
 * Wording shared by every renderer, so text, markdown and drift reports never disagree. Every name,
 * key and id from configuration or the API goes through `printable` here, where it is put into a
 * line: a `\n` in a name must not forge a line of the plan, nor an ESC recolour or erase one.
 */
import type {
  Action,
  Change,
  Plan,
  PlanNote,
  PlanProblem,
  RenameSuggestion,
  SafetyWarning,
  UnmanagedObject,
} from '../../core/model.js';
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
  change.action === 'delete' && change.duplicate_of !== undefined
    ? ` (duplicate of ${printable(change.duplicate_of)})`
    : '';

/** `ADDRESS will be created`: a change's address and what happens to it (a duplicate's delete says so). */
export const headline = (change: Change): string =>
  `${address(change)} ${VERB[change.action]}${deleteReason(change)}`;

/**
 * `renamed from "OLD"` for a change matched by its old key (`renamed_from:`), with why a rename is a
 * replacement when it is one; undefined for any other change.
 */
export function renamedFromText(change: Change): string | undefined {
  if (change.action !== 'update' && change.action !== 'replace') return undefined;
  if (change.renamed_from === undefined) return undefined;
  const from = `renamed from ${printable(JSON.stringify(change.renamed_from))}`;
  if (change.action === 'update') return from;
  return `${from}: cannot be renamed in place: the API does not update ${change.forced_by.map(printable).join(', ')}`;
}

/** `kind.key: message`, a note on one object. */
export const noteLine = (note: PlanNote): string => `${address(note)}: ${printable(note.message)}`;

/** The line to add to the configuration for a suggested rename: `renamed_from: "OLD"`. */
export const renamedFromLine = (suggestion: RenameSuggestion): string =>
  `renamed_from: ${printable(JSON.stringify(suggestion.from))}`;

/**
 * `kind.OLD looks renamed to kind.NEW: add renamed_from: "OLD" to keep its id`. `code`
 * formats the addresses and the line to add (a code span in markdown); the rest is plain words.
 */
export function suggestionLine(
  suggestion: RenameSuggestion,
  code: (text: string) => string = (text) => text,
): string {
  const from = code(address({ kind: suggestion.kind, key: suggestion.from }));
  const to = code(address({ kind: suggestion.kind, key: suggestion.to }));
  return `${from} looks renamed to ${to}: add ${code(renamedFromLine(suggestion))} to keep its id`;
}

/** `kind.key: message` for a problem the plan refused, one line whatever the key and message hold. */
export const problemLine = (problem: PlanProblem): string =>
  `${address(problem)}: ${printable(problem.message)}`;

/** Terraform's count: a replacement is one add and one destroy. */
export function planLine(plan: Plan): string {
  const { create, update, replace, delete: destroy } = plan.summary;
  return `Plan: ${create + replace} to add, ${update} to change, ${destroy + replace} to destroy.`;
}

export const NO_CHANGES = 'No changes. The firewall matches the configuration.';

/** What a safety warning says: the deletes of a kind above the limit, which apply refuses without --force. */
export function warningLine(w: SafetyWarning): string {
  const lost = w.deletes - w.duplicates;
  const percent = Math.round((lost * 100) / w.existing);
  const duplicates =
    w.duplicates > 0
      ? ` (and ${w.duplicates} ${w.duplicates === 1 ? 'duplicate' : 'duplicates'}, not counted)`
      : '';
  return `the plan deletes ${lost} of ${w.existing} existing ${w.kind} objects (${percent}%)${duplicates}, above the safety limit of ${w.max_delete_percent}%; apply refuses this without --force.`;
}

/**
 * `Note: 20 application_rule objects are duplicates ...`: what a plan that deletes duplicates says
 * of them, one line a kind, so a reviewer knows why the safety threshold let them through.
 */
export function duplicatesLines(plan: Pick<Plan, 'changes'>): string[] {
  const byKind = new Map<string, number>();
  for (const change of plan.changes) {
    if (change.action !== 'delete' || change.duplicate_of === undefined) continue;
    byKind.set(change.kind, (byKind.get(change.kind) ?? 0) + 1);
  }
  return [...byKind].map(
    ([kind, n]) =>
      `${n} ${kind} ${n === 1 ? 'object is a duplicate' : 'objects are duplicates'} of declared ones (two applies at once leave such copies): deleted, a copy with the same key stays; the safety threshold does not count ${n === 1 ? 'it' : 'them'}.`,
  );
}

/**
 * The warning of a partial plan (`--target`, `--exclude`, `--kind`), as Terraform's: what it selected,
 * and that the rest is neither shown nor applied. Undefined for a whole plan. `shorten` cuts each
 * flag shown (default: to 200 characters); the markdown plan cuts them to fit its budget once escaped.
 */
export function partialLine(
  plan: Pick<Plan, 'targets'>,
  what = 'plan',
  shorten: (flag: string) => string = (flag) => truncate(flag, 200),
): string | undefined {
  const targets = plan.targets;
  if (targets === undefined) return undefined;
  const flags = [
    ...targets.kind.map((kind) => `--kind ${kind}`),
    ...targets.target.map((address) => `--target ${JSON.stringify(address)}`),
    ...targets.exclude.map((address) => `--exclude ${JSON.stringify(address)}`),
  ];
  // A few, shortened: the line is in the header every budget keeps.
  const shown = flags.slice(0, PARTIAL_FLAGS_SHOWN).map(shorten);
  const more = flags.length > shown.length ? ` and ${flags.length - shown.length} more` : '';
  return printable(
    `this ${what} is partial (${shown.join(' ')}${more}): changes outside the selection are neither shown nor applied, and the firewall may still differ from the configuration. Run a whole ${what === 'plan' ? 'plan' : 'drift check'} to see them.`,
  );
}

const PARTIAL_FLAGS_SHOWN = 5;

const truncate = (text: string, max: number): string =>
  text.length <= max ? text : `${text.slice(0, max - 3)}...`;

/** How many unmanaged objects a plan names before it says "and N more". */
export const UNMANAGED_SHOWN = 10;

const UNMANAGED_WHY: Record<UnmanagedObject['reason'], string> = {
  outside_scope: 'outside the manage scope',
  not_declared: 'in scope but in no file, and prune is off',
};

/**
 * `2 remote objects are not managed by this configuration and will be left alone: group.ops (outside
 * the manage scope), ...`: the first UNMANAGED_SHOWN named (`name` formats an escaped address, e.g.
 * as a code span), then `and N more`. A plan without the list (a saved plan's) only counts them.
 */
export function unmanagedLine(plan: Plan, name: (address: string) => string = (a) => a): string | undefined {
  const n = plan.summary.unmanaged;
  if (n === 0) return undefined;
  const head = `${n} remote ${n === 1 ? 'object is' : 'objects are'} not managed by this configuration and will be left alone`;
  const objects = plan.unmanaged ?? [];
  if (objects.length === 0) return `${head}.`;
  const shown = objects
    .slice(0, UNMANAGED_SHOWN)
    .map((object) => `${name(address(object))} (${UNMANAGED_WHY[object.reason]})`);
  const more = n - shown.length;
  return `${head}: ${shown.join(', ')}${more > 0 ? ` and ${more} more` : ''}.`;
}

/** The actions the plan's changes use, in the order create, update, delete, replace. */
export const actionsUsed = (plan: Plan): Action[] =>
  (['create', 'update', 'delete', 'replace'] as const).filter((a) =>
    plan.changes.some((c) => c.action === a),
  );
