/**
 * Targeted runs: `--target ADDRESS`, `--exclude ADDRESS` and `--kind KIND` on plan, apply and drift
 * (Terraform's `-target`). Pure: a whole plan and a selection in, the partial plan out.
 *
 * - An address is a change's as plans print it, `KIND.KEY` (`application_rule.shop.example.com/Block
 *   admin`, `group.soc`), where `*` in the key matches any run of characters (`application_rule.*`).
 * - A change is selected when its kind is among `--kind` (if any), one of the addresses it touches
 *   matches a `--target` (if any), and no `--exclude` matches all of them.
 * - The addresses a change touches: its own; a rename's, also the old one (`renamed_from`), so a
 *   target of either includes the rename. A selected change an `--exclude` matches only in part
 *   (the old address of a rename, not the new one) cannot be split: the run is refused, saying why.
 *   (Families are independent of each other, src/ops/apply/order.ts; a replacement is one change and
 *   a key's duplicates share its address, so they are always selected together.)
 * - A `--target` that matches no address of the whole plan (a typo) is refused, naming the closest
 *   addresses, when the plan has changes: "No changes" would hide what the whole plan does.
 * - Problems, unmanaged objects and a drift report's enforcement findings are kept when their
 *   address is selected. The safety threshold
 *   keeps counting against the whole family: the family's existing objects are the denominator, the
 *   selected deletes the numerator.
 */

import { usageError } from '../core/errors.js';
import { anyGlobMatcher } from '../core/glob.js';
import type { Change, KindName, Plan, PlanTargets, SafetyWarning } from '../core/model.js';
import { didYouMean, editDistance } from '../core/suggest.js';
import { KINDS } from '../kinds/index.js';
import { spellingsOf } from '../kinds/kind.js';
import { exceedsDeleteLimit, summarize } from './assess.js';

/**
 * What a targeted run selects, as given on the command line (`kind`: kind names as plans print them,
 * `application_rule`); recorded in a partial plan as `targets`, and so in a saved one.
 */
export type Selection = PlanTargets;

/** At most this many `--target` and `--exclude` addresses, each at most this long. */
export const MAX_ADDRESSES = 1000;
export const MAX_ADDRESS_LENGTH = 4096;

/** Whether a selection narrows anything. */
export function isPartial(selection: Selection | undefined): selection is Selection {
  return (
    selection !== undefined &&
    (selection.target.length > 0 || selection.exclude.length > 0 || selection.kind.length > 0)
  );
}

/**
 * Checks the addresses of `--target` and `--exclude` (`KIND.KEY`, a kind wafctl plans), before any
 * request; `kinds` are already resolved (`--kind`). An unknown kind is a usage error with a hint.
 */
export function checkSelection(selection: Selection): Selection {
  for (const [flag, addresses] of [
    ['--target', selection.target],
    ['--exclude', selection.exclude],
  ] as const) {
    if (addresses.length > MAX_ADDRESSES) {
      throw usageError(`${flag} is given ${addresses.length} times: at most ${MAX_ADDRESSES}`);
    }
    for (const address of addresses) {
      if (address.length > MAX_ADDRESS_LENGTH) {
        throw usageError(`${flag}: an address is longer than ${MAX_ADDRESS_LENGTH} characters`);
      }
      const dot = address.indexOf('.');
      const kind = dot < 0 ? address : address.slice(0, dot);
      if (dot <= 0 || dot === address.length - 1) {
        throw usageError(
          `${flag} ${JSON.stringify(address)}: expected KIND.KEY as plans print it, e.g. application_rule.shop.example.com/* or group.soc`,
        );
      }
      if (!KINDS.some((candidate) => candidate.name === kind)) {
        const suggestion = didYouMean(kind, KINDS.flatMap(spellingsOf));
        const named = KINDS.find((candidate) => spellingsOf(candidate).includes(kind));
        const hint = named
          ? ` (write ${named.name}.KEY, as plans print it)`
          : suggestion
            ? ` (did you mean "${suggestion}"?)`
            : '';
        throw usageError(
          `${flag} ${JSON.stringify(address)}: unknown kind "${kind}"${hint}; expected one of ${KINDS.map((k) => k.name).join(', ')}`,
        );
      }
    }
  }
  return selection;
}

/**
 * `*` matches any run of characters (`/` and `.` included); everything else, `?` too (a key may
 * hold one), matches itself. Linear (core/glob.ts).
 */
const globMatcher = (patterns: readonly string[]) => anyGlobMatcher(patterns, { anyChar: false });

const addressOf = (kind: KindName, key: string): string => `${kind}.${key}`;

/** The addresses a change touches: its own, and a rename's old one. */
function touched(change: Change): string[] {
  const own = addressOf(change.kind, change.key);
  const renamedFrom = 'renamed_from' in change ? change.renamed_from : undefined;
  return renamedFrom === undefined ? [own] : [own, addressOf(change.kind, renamedFrom)];
}

/** The selection as flags, for messages and the plan's partial warning. */
export function selectionFlags(selection: Selection): string {
  return [
    ...selection.kind.map((kind) => `--kind ${kind}`),
    ...selection.target.map((address) => `--target ${JSON.stringify(address)}`),
    ...selection.exclude.map((address) => `--exclude ${JSON.stringify(address)}`),
  ].join(' ');
}

/**
 * The plan restricted to the selection (see the module comment). Throws a usage error when a
 * selected change cannot be split from an address `--exclude` leaves out.
 */
export function selectPlan(plan: Plan, selection: Selection): Plan {
  refuseUnmatchedTargets(plan, selection);
  const targeted = globMatcher(selection.target);
  const excluded = globMatcher(selection.exclude);
  const kindSelected = (kind: KindName) => selection.kind.length === 0 || selection.kind.includes(kind);
  const addressSelected = (addresses: readonly string[]) =>
    (selection.target.length === 0 || addresses.some(targeted)) && !addresses.every(excluded);

  const changes: Change[] = [];
  for (const change of plan.changes) {
    const addresses = touched(change);
    if (!kindSelected(change.kind) || !addressSelected(addresses)) continue;
    const left = addresses.filter(excluded);
    if (left.length > 0) {
      throw usageError(
        `${addresses[0]} is renamed from ${addresses[1]}, and --exclude leaves out ${left.join(', ')}: one change updates both, so it cannot be split; target both addresses or exclude both`,
      );
    }
    changes.push(change);
  }
  const keep = (object: { kind: KindName; key: string }) =>
    kindSelected(object.kind) && addressSelected([addressOf(object.kind, object.key)]);
  const unmanaged = plan.unmanaged?.filter(keep) ?? [];
  const notes = plan.notes?.filter(keep) ?? [];
  const enforcement = plan.enforcement?.filter(keep) ?? [];
  const suggestions =
    plan.rename_suggestions?.filter(
      ({ kind, from, to }) =>
        kindSelected(kind) && addressSelected([addressOf(kind, to), addressOf(kind, from)]),
    ) ?? [];
  return {
    summary: summarize(changes, { unchanged: plan.summary.unchanged, unmanaged: unmanaged.length }),
    changes,
    problems: plan.problems.filter(keep),
    warnings: plan.warnings.flatMap((warning) => selectedWarning(warning, changes)),
    // The optional lists only when non-empty, as the planner writes them.
    ...(unmanaged.length > 0 ? { unmanaged } : {}),
    ...(notes.length > 0 ? { notes } : {}),
    ...(suggestions.length > 0 ? { rename_suggestions: suggestions } : {}),
    ...(enforcement.length > 0 ? { enforcement } : {}),
    targets: selection,
  };
}

/** How many addresses a refused `--target` is compared with, and how many of the closest are named. */
const MAX_COMPARED = 10_000;
const CLOSEST = 3;

/**
 * Refuses a `--target` that matches none of the plan's addresses (its changes, problems, unmanaged
 * objects and notes) while the plan has changes, naming the closest addresses.
 */
function refuseUnmatchedTargets(plan: Plan, selection: Selection): void {
  if (plan.changes.length === 0 || selection.target.length === 0) return;
  const addresses = [
    ...new Set([
      ...plan.changes.flatMap(touched),
      ...[
        ...plan.problems,
        ...(plan.unmanaged ?? []),
        ...(plan.notes ?? []),
        ...(plan.enforcement ?? []),
      ].map((o) => addressOf(o.kind, o.key)),
    ]),
  ];
  for (const pattern of selection.target) {
    const matches = globMatcher([pattern]);
    if (addresses.some(matches)) continue;
    // An address holding the pattern's text (a shortened key) first, then the fewest edits (a typo).
    const text = pattern.replaceAll('*', '');
    const compared = addresses.slice(0, MAX_COMPARED);
    const closest = compared
      .map((address) => ({
        address,
        distance: (address.includes(text) ? 0 : MAX_ADDRESS_LENGTH) + editDistance(pattern, address),
      }))
      .sort((a, b) => a.distance - b.distance || (a.address < b.address ? -1 : 1))
      .slice(0, CLOSEST)
      .map(({ address }) => address);
    const n = plan.changes.length;
    throw usageError(
      `--target ${JSON.stringify(pattern)} matches nothing in this plan, which has ${n} ${n === 1 ? 'change' : 'changes'}; the closest addresses: ${closest.join(', ')}`,
    );
  }
}

/**
 * A family's safety warning, recounted for the selected deletes against all its existing objects;
 * none when they are within the threshold. (A family without a warning deletes few enough in the
 * whole plan, so it does in any part of it.)
 */
function selectedWarning(warning: SafetyWarning, changes: readonly Change[]): SafetyWarning[] {
  const deletes = changes.filter((change) => change.kind === warning.kind && change.action === 'delete');
  const counts = {
    deletes: deletes.length,
    duplicates: deletes.filter((change) => 'duplicate_of' in change && change.duplicate_of !== undefined)
      .length,
  };
  if (!exceedsDeleteLimit(counts, warning.existing, warning.max_delete_percent)) return [];
  return [{ ...warning, ...counts }];
}
