/**
 * The Behaviour section of a plan: the configuration's rule tests (docs/rule-tests.md) run on the
 * live application rules and on the rules the plan would leave, so that a reviewer reads what a
 * change does to requests (`admin panel from outside: block -> log`), not only to fields. Pure: the
 * live rules and the tests are given (src/ops/refresh.ts reads them).
 */
import type { Attributes, BehaviourChange, Change, FailingTest, PlanBehaviour } from '../core/model.js';
import { type CaseResult, compileRules, type Outcome } from '../core/rules/evaluate.js';
import type { CatalogExtensions, RuleTestCase } from '../core/rules/types.js';
import { applicationRulesKind, evalRuleOf } from '../kinds/application-rules.js';

/** What the section is computed from. */
export interface BehaviourInput {
  /** The live application rules, every one (managed or not: all of them decide requests), by id. */
  readonly live: readonly { readonly id: string; readonly attributes: Attributes }[];
  /** The plan's changes, as they would be applied (a `--target` plan's selected ones); other kinds' are ignored. */
  readonly changes: readonly Change[];
  readonly tests: readonly RuleTestCase[];
  readonly extensions: CatalogExtensions;
}

/**
 * Every test run on the live rules and on the rules after the plan: the tests whose outcome changes,
 * and those that do not pass after it. A plan that changes no application rule runs them once.
 */
export function planBehaviour(input: BehaviourInput): PlanBehaviour {
  const changes = input.changes.filter((change) => change.kind === applicationRulesKind.name);
  const live = input.live.map((rule) => rule.attributes);
  const before = compileRules(live.map(evalRuleOf), input.extensions);
  const after =
    changes.length === 0
      ? before
      : compileRules(rulesAfter(input.live, changes).map(evalRuleOf), input.extensions);
  const changed: BehaviourChange[] = [];
  const failing: FailingTest[] = [];
  for (const test of input.tests) {
    const was = before.run(test);
    const now = after === before ? was : after.run(test);
    const flip = outcomeChange(was, now);
    if (flip !== undefined) changed.push(flip);
    if (now.status !== 'pass') failing.push(failingTest(now, now.status));
  }
  return { tests: input.tests.length, changed, failing };
}

/**
 * The rules after the plan: the live ones, less each one a change replaces, updates or deletes (by
 * id, so that of two duplicates only the one changed goes), plus what each change leaves.
 */
export function rulesAfter(live: BehaviourInput['live'], changes: readonly Change[]): Attributes[] {
  const gone = new Set(changes.flatMap((change) => (change.action === 'create' ? [] : [change.id])));
  const kept = live.filter((rule) => !gone.has(rule.id)).map((rule) => rule.attributes);
  return [...kept, ...changes.flatMap((change) => (change.after === null ? [] : [change.after]))];
}

/**
 * The change of one test's outcome: its action (ignoring case, as the firewall reads it) or its
 * deciding rule differs. None when either side could not be evaluated: a test that cannot be
 * evaluated after the plan is among the failing ones, with why.
 */
function outcomeChange(was: CaseResult, now: CaseResult): BehaviourChange | undefined {
  const before = was.actual;
  const after = now.actual;
  if (before === undefined || after === undefined) return undefined;
  const same = before.action.toLowerCase() === after.action.toLowerCase() && before.rule === after.rule;
  return same ? undefined : { name: now.name, before: outcomeOf(before), after: outcomeOf(after) };
}

function failingTest(result: CaseResult, status: 'fail' | 'error'): FailingTest {
  return {
    name: result.name,
    status,
    expected: outcomeOf(result.expected),
    ...(result.actual === undefined ? {} : { actual: outcomeOf(result.actual) }),
    reason: result.reason,
  };
}

/** An outcome (or expectation) with only the fields it has: the JSON writes no `undefined`. */
function outcomeOf(outcome: Outcome): Outcome {
  const { action, rule, firewall } = outcome;
  return { action, ...(rule === undefined ? {} : { rule }), ...(firewall === undefined ? {} : { firewall }) };
}
