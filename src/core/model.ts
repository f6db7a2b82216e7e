/**
 * The plan is plain data: a list of typed changes plus counts, problems and warnings. Renderers turn
 * it into strings, the applier into API calls, `plan --out` into a file. Nothing here does I/O.
 */

import { IMPACT_CLASSES } from './impact-classes.js';
import type { ChangeOf, Plan, ReadOnlyDrift } from './plan-document.js';

export { IMPACT_CLASSES, type ImpactClass } from './impact-classes.js';

/** A family's name in plans (`group`, `application_rule`, ...): the registry in src/kinds/ lists them. */
export type KindName = string;

/**
 * What `--fail-on` takes: the impact classes, and two classes of the plan as a whole rather than of a
 * change: `changes_trust`, which a plan has when the work tree (the pull request) changes what
 * `--trusted-ref` pins (connections, the variables allow-list, policy), and `fails_tests`, when a rule
 * test of the configuration does not pass after the plan (its Behaviour section).
 */
export const CHANGES_TRUST = 'changes_trust';
export const FAILS_TESTS = 'fails_tests';
export const FAIL_ON_CLASSES = [...IMPACT_CLASSES, CHANGES_TRUST, FAILS_TESTS] as const;
export type FailOnClass = (typeof FAIL_ON_CLASSES)[number];

/**
 * The plan's types are derived from its document's schema (src/core/plan-document.ts): every change
 * holds the whole object `before` (null for a create) and `after` (null for a delete), and `fields`.
 */
export type {
  Action,
  Attributes,
  BehaviourChange,
  Change,
  ChangeOf,
  CreateChange,
  DeleteChange,
  EnforcementFinding,
  FailingTest,
  Impact,
  Plan,
  PlanBehaviour,
  PlanNote,
  PlanProblem,
  PlanSummary,
  PlanTargets,
  PlanTrust,
  ReadOnlyDrift,
  RenameSuggestion,
  ReplaceChange,
  SafetyWarning,
  TrustChange,
  UnmanagedObject,
} from './plan-document.js';

/**
 * How many objects differ: the changes, the read-only objects that differ (`read_only`), and the
 * managed rules not enforced on a firewall (`enforcement`, drift reports only).
 */
export function driftCount(plan: Plan): number {
  return plan.changes.length + (plan.read_only?.length ?? 0) + (plan.enforcement?.length ?? 0);
}

/**
 * A read-only object's drift as the update a person made by hand: the expected fields before, the
 * live ones after (how the planner classifies its impact, and how plans show it).
 */
export function readOnlyAsChange(
  entry: Omit<ReadOnlyDrift, 'impact'> & Partial<ReadOnlyDrift>,
): ChangeOf<'update'> {
  const { kind, key, id, fields, before, after, impact = [] } = entry;
  return { kind, key, action: 'update', id, fingerprint: '', fields, before, after, impact };
}
