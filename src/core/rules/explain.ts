/**
 * What a test case's result says in words: what decided, what was expected instead, and the closest
 * rule that did not apply with the first reason it did not.
 */
import type { CompiledRule, Outcome } from './compiled.js';
import { verdict, whyNot } from './conditions.js';
import { comparePriority } from './priority.js';
import type { RequestValues } from './request-values.js';
import type { RuleTestCase, TestExpectation } from './types.js';

/** The closest rule that did not apply, and the first of its conditions that did not match. */
export interface NearMiss {
  readonly rule: string;
  /** Index of the condition in the rule's `conditions`; -1 when every condition matched. */
  readonly condition: number;
  /** One line: why the rule did not decide (`disabled`, its host, `conditions[N]: ...`). */
  readonly why: string;
}

const sameAction = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** `block by shop.example.com/Block admin (waf-eu-1, waf-us-1)`, or `no rule applies`. */
export function explainOutcome(
  actual: Outcome,
  decider: CompiledRule | undefined,
  firewall?: string,
): string {
  if (decider === undefined) {
    return firewall === undefined ? 'no rule applies' : `no rule with an action on ${firewall} applies`;
  }
  const firewalls = actual.firewall === undefined ? [...decider.firewalls].join(', ') : actual.firewall;
  return `${actual.action} by ${decider.rule.key} (${firewalls})`;
}

/** How `actual` falls short of `expect` ("expected block on waf-eu-1"), or undefined when it does not. */
export function mismatchOf(
  expect: TestExpectation,
  actual: Outcome,
  rules: readonly CompiledRule[],
): string | undefined {
  const actionOk = sameAction(expect.action, actual.action);
  const ruleOk = expect.rule === undefined || expect.rule === actual.rule;
  if (actionOk && ruleOk) return undefined;
  const where = expect.firewall === undefined ? '' : ` on ${expect.firewall}`;
  const by = expect.rule === undefined ? '' : ` by ${expect.rule}`;
  const unknownRule =
    expect.rule !== undefined && !rules.some(({ rule }) => rule.key === expect.rule)
      ? ` (no rule has the key ${JSON.stringify(expect.rule)})`
      : '';
  return `expected ${expect.action}${where}${by}${unknownRule}`;
}

/** Whether `candidate` would give the expected outcome had it decided. */
function couldGive(candidate: CompiledRule, expect: TestExpectation): boolean {
  if (expect.rule !== undefined) return candidate.rule.key === expect.rule;
  return candidate.rule.actions.some(
    (action) =>
      sameAction(action.firewall_action, expect.action) &&
      (expect.firewall === undefined || action.firewall_name === expect.firewall),
  );
}

/** The reasons a rule did not decide, and the index of its first condition that did not match. */
function reasonsOf(
  candidate: CompiledRule,
  values: RequestValues,
  decider: CompiledRule | undefined,
): NearMiss {
  const { rule } = candidate;
  const host = values.request.host;
  const parts: string[] = [];
  if (!rule.enabled) parts.push('disabled');
  if (!candidate.matchesHost(host)) {
    parts.push(`rq_host ${JSON.stringify(rule.rq_host)} does not match host ${JSON.stringify(host)}`);
  }
  const index = candidate.conditions.findIndex((condition) => verdict(condition, values) !== true);
  const condition = candidate.conditions[index];
  if (condition !== undefined) parts.push(`conditions[${index}]: ${whyNot(condition, values)}`);
  if (parts.length === 0 && decider !== undefined) {
    const tie = comparePriority(decider.rule.priority, rule.priority) === 0;
    parts.push(
      `it applies, but ${decider.rule.key} decides first (${tie ? `same priority ${rule.priority}: ties go by rule key` : `priority ${decider.rule.priority} before ${rule.priority}`})`,
    );
  }
  return { rule: rule.key, condition: index, why: parts.join('; ') };
}

const matchedConditions = (candidate: CompiledRule, values: RequestValues) =>
  candidate.conditions.filter((condition) => verdict(condition, values) === true).length;

/**
 * For a failure where the expected outcome did not happen: among the rules that would have given it
 * (the expected rule, or any rule with the expected action on the expected firewall), the closest:
 * host matching first, then enabled, then the most matching conditions; ties in decision order.
 * Undefined when `none` was expected (the reason names the rule that applied) or no rule fits.
 */
export function nearMiss(
  rules: readonly CompiledRule[],
  test: RuleTestCase,
  decider: CompiledRule | undefined,
  values: RequestValues,
): NearMiss | undefined {
  if (sameAction(test.expect.action, 'none')) return undefined;
  const pool = rules.filter((candidate) => candidate !== decider && couldGive(candidate, test.expect));
  // Conditions are evaluated only in the best (host, enabled) tier: a failure costs one pass over the rules.
  const tier = (candidate: CompiledRule) =>
    (candidate.matchesHost(values.request.host) ? 2 : 0) + (candidate.rule.enabled ? 1 : 0);
  const best = pool.reduce((max, candidate) => Math.max(max, tier(candidate)), -1);
  let closest: CompiledRule | undefined;
  let closestScore = -1;
  for (const candidate of pool) {
    if (tier(candidate) !== best) continue;
    const score = matchedConditions(candidate, values);
    if (score > closestScore) {
      closest = candidate;
      closestScore = score;
    }
  }
  return closest === undefined ? undefined : reasonsOf(closest, values, decider);
}

/** Why a rule that could decide the request cannot be evaluated: its first undecidable condition. */
export function cannotEvaluate(candidate: CompiledRule, values: RequestValues): string {
  const index = candidate.conditions.findIndex((condition) => verdict(condition, values) === undefined);
  const condition = candidate.conditions[index];
  const why = condition === undefined ? 'no condition' : `conditions[${index}] ${whyNot(condition, values)}`;
  return `${candidate.rule.key} could decide this request, but wafctl cannot evaluate it: ${why}`;
}
