/**
 * Rules ready to evaluate, and the walk that finds the deciding rule (docs/rule-tests.md, "How wafctl
 * evaluates a request"): enabled rules of the request's host, in decision order, until the first
 * whose every condition matches.
 */
import { type CompiledCondition, type ConditionCache, sharedCondition, verdict } from './conditions.js';
import type { ExpressionCache } from './expressions.js';
import { hostMatcher } from './hosts.js';
import type { RequestValues } from './request-values.js';
import type { CatalogExtensions, EvalRule } from './types.js';

/** What a firewall does with a request: the deciding rule's action, or `none`. */
export interface Outcome {
  /** The deciding rule's `firewall_action` (as written), or `none`. */
  readonly action: string;
  /** The deciding rule's key, when a rule decided. */
  readonly rule?: string | undefined;
  /** The firewall of the action, when a rule decided. */
  readonly firewall?: string | undefined;
}

/** A rule ready to evaluate. */
export interface CompiledRule {
  readonly rule: EvalRule;
  readonly conditions: readonly CompiledCondition[];
  readonly matchesHost: (host: string) => boolean;
  /** The firewalls it has an action on: the ones that enforce it. */
  readonly firewalls: ReadonlySet<string>;
}

/** What the rules of one rule set share: compiled expressions, conditions and host tests. */
export interface CompileCaches {
  readonly expressions: ExpressionCache;
  readonly conditions: ConditionCache;
  readonly hosts: Map<string, (host: string) => boolean>;
}

export const newCaches = (): CompileCaches => ({
  expressions: new Map(),
  conditions: new Map(),
  hosts: new Map(),
});

/** Compiles one rule, sharing the caches of its rule set. */
export function compileRule(
  rule: EvalRule,
  extensions: CatalogExtensions,
  caches: CompileCaches,
): CompiledRule {
  let matchesHost = caches.hosts.get(rule.rq_host);
  if (matchesHost === undefined) {
    matchesHost = hostMatcher(rule.rq_host);
    caches.hosts.set(rule.rq_host, matchesHost);
  }
  return {
    rule,
    conditions: rule.conditions.map((condition) =>
      sharedCondition(condition, extensions, caches.expressions, caches.conditions),
    ),
    matchesHost,
    firewalls: new Set(rule.actions.map((action) => action.firewall_name)),
  };
}

/** Every condition must match: false as soon as one does not; undefined when wafctl cannot tell. */
export function ruleVerdict(rule: CompiledRule, values: RequestValues): boolean | undefined {
  let unknown = false;
  for (const condition of rule.conditions) {
    const matched = verdict(condition, values);
    if (matched === false) return false;
    if (matched === undefined) unknown = true;
  }
  return unknown ? undefined : true;
}

/** The rule that decides, and the first rule before it that wafctl could not evaluate. */
export interface Walk {
  readonly decider?: CompiledRule;
  readonly unknown?: CompiledRule;
}

/**
 * The candidates (the host's enabled rules with an action, in decision order) until the first that
 * applies. With a firewall, only the rules with an action on it: the rules that firewall enforces.
 */
export function walk(
  candidates: readonly CompiledRule[],
  values: RequestValues,
  firewall: string | undefined,
): Walk {
  let unknown: CompiledRule | undefined;
  for (const rule of candidates) {
    if (firewall !== undefined && !rule.firewalls.has(firewall)) continue;
    const applies = ruleVerdict(rule, values);
    if (applies === true) return unknown ? { decider: rule, unknown } : { decider: rule };
    if (applies === undefined) unknown ??= rule;
  }
  return unknown ? { unknown } : {};
}

/** Whether every action of the rule is the same (ignoring case): the same outcome on every firewall. */
export const actionsAgree = (rule: EvalRule): boolean =>
  new Set(rule.actions.map((action) => action.firewall_action.toLowerCase())).size <= 1;

/**
 * The outcome of the deciding rule. With a firewall: its action there. Without: its first action, and
 * the firewall when that outcome is one firewall's (the rule acts on one firewall, or its actions
 * disagree and the outcome is the first action's).
 */
export function outcomeOf(decider: CompiledRule | undefined, firewall: string | undefined): Outcome {
  if (decider === undefined) return { action: 'none' };
  const { rule } = decider;
  const action =
    (firewall === undefined ? undefined : rule.actions.find((a) => a.firewall_name === firewall)) ??
    rule.actions[0];
  if (action === undefined) return { action: 'none' };
  const single = firewall !== undefined || decider.firewalls.size === 1 || !actionsAgree(rule);
  return single
    ? { action: action.firewall_action, rule: rule.key, firewall: action.firewall_name }
    : { action: action.firewall_action, rule: rule.key };
}
