/**
 * The evaluator (docs/rule-tests.md, "How wafctl evaluates a request"): which rule decides a request,
 * and whether a test case passes. Rules are compiled once: each distinct expression compiled once,
 * rules indexed by host and sorted in decision order, so a request reads only its host's rules and
 * stops at the first that applies.
 */
import {
  actionsAgree,
  type CompiledRule,
  compileRule,
  newCaches,
  type Outcome,
  outcomeOf,
  walk,
} from './compiled.js';
import { cannotEvaluate, explainOutcome, mismatchOf, type NearMiss, nearMiss } from './explain.js';
import { HostIndex } from './hosts.js';
import { compareRuleOrder } from './priority.js';
import { RequestValues } from './request-values.js';
import {
  type CatalogExtensions,
  type EvalRule,
  NO_EXTENSIONS,
  type RuleTestCase,
  type TestExpectation,
  type TestRequest,
} from './types.js';

export type { Outcome } from './compiled.js';
export type { NearMiss } from './explain.js';
export { comparePriority } from './priority.js';

export type CaseStatus = 'pass' | 'fail' | 'error';

/** One test case run. */
export interface CaseResult {
  readonly name: string;
  readonly status: CaseStatus;
  readonly expected: TestExpectation;
  /** What happened; absent when the case could not be evaluated (`error`). */
  readonly actual?: Outcome | undefined;
  /** One line: what decided (pass), why not as expected (fail), why it could not be evaluated (error). */
  readonly reason: string;
  /** For a failure where no rule or another rule decided: the closest rule that did not apply. */
  readonly closest?: NearMiss | undefined;
}

/** Rules compiled once (each distinct expression compiled once, rules indexed by host). */
export interface RuleSet {
  readonly size: number;
  /** What `firewall` (or, without one, the rule set as a whole) does with `request`. */
  decide(request: TestRequest, firewall?: string): Outcome;
  /** The test case run against these rules. */
  run(test: RuleTestCase): CaseResult;
}

/** The failure of a case whose deciding rule acts differently on different firewalls. */
function differsPerFirewall(decider: CompiledRule): string {
  const perFirewall = decider.rule.actions
    .map((action) => `${action.firewall_action} on ${action.firewall_name}`)
    .join(', ');
  return `the outcome differs per firewall (${decider.rule.key}: ${perFirewall}): set expect.firewall`;
}

/** A test case against compiled rules (`rules` in decision order, for the closest-rule search). */
function runCase(
  rules: readonly CompiledRule[],
  index: HostIndex<CompiledRule>,
  test: RuleTestCase,
): CaseResult {
  const { name, request, expect } = test;
  const values = new RequestValues(request);
  const { decider, unknown } = walk(index.candidates(request.host), values, expect.firewall);
  const base = { name, expected: expect };
  if (unknown !== undefined) return { ...base, status: 'error', reason: cannotEvaluate(unknown, values) };
  const actual = outcomeOf(decider, expect.firewall);
  if (expect.firewall === undefined && decider !== undefined && !actionsAgree(decider.rule)) {
    return { ...base, status: 'fail', actual, reason: differsPerFirewall(decider) };
  }
  const explained = explainOutcome(actual, decider, expect.firewall);
  const mismatch = mismatchOf(expect, actual, rules);
  if (mismatch === undefined) return { ...base, status: 'pass', actual, reason: explained };
  const reason = `${mismatch}, got ${decider === undefined ? 'none: ' : ''}${explained}`;
  const closest = nearMiss(rules, test, decider, values);
  return { ...base, status: 'fail', actual, reason, ...(closest ? { closest } : {}) };
}

/**
 * Compiles `rules` once for any number of requests. Never throws: a rule wafctl cannot evaluate (an
 * operator or target known only through `extensions`, an expression RE2 refuses) is passed over by
 * `decide` (which answers with the rules it can evaluate) and makes `run` report `error` when it
 * could decide the request.
 */
export function compileRules(
  rules: readonly EvalRule[],
  extensions: CatalogExtensions = NO_EXTENSIONS,
): RuleSet {
  const caches = newCaches();
  const ordered = [...rules].sort(compareRuleOrder).map((rule) => compileRule(rule, extensions, caches));
  const index = new HostIndex<CompiledRule>();
  for (const compiled of ordered) {
    // A rule with no action is enforced by no firewall: it never decides.
    if (compiled.rule.enabled && compiled.firewalls.size > 0) {
      index.add(compiled.rule.rq_host, compiled, compiled.matchesHost);
    }
  }
  return {
    size: rules.length,
    decide: (request, firewall) =>
      outcomeOf(walk(index.candidates(request.host), new RequestValues(request), firewall).decider, firewall),
    run: (test) => runCase(ordered, index, test),
  };
}
