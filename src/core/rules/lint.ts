/**
 * Lint of application rules (docs/rule-tests.md, "Lint"): rules that can never decide, duplicates,
 * blocking rules that match everything. Near-linear: rules are grouped by host and by their
 * conditions written canonically (as sets), so only rules of one group are ever compared.
 */
import { compileExpression } from './catalog.js';
import { literalPrefix } from './expressions.js';
import { comparePriority, compareRuleOrder } from './priority.js';
import type { EvalCondition, EvalRule } from './types.js';

export type RuleLintCode = 'shadowed' | 'identical' | 'matches_empty';

export interface RuleLint {
  readonly code: RuleLintCode;
  /** The rule the warning is about (its key). */
  readonly rule: string;
  /** The other rule involved (the shadowing or identical one), if any. */
  readonly other?: string | undefined;
  /** For `matches_empty`: the condition and expression indexes. */
  readonly condition?: number | undefined;
  readonly expression?: number | undefined;
  /** One line, naming the other rule when there is one. */
  readonly message: string;
}

/** Sorted, without duplicates: the canonical form of a set. */
const setOf = (items: Iterable<string>): string[] => [...new Set(items)].sort();

/** A header name is matched ignoring case: `request:User-Agent` is `request:user-agent`. */
const canonicalTarget = (target: string): string =>
  target.startsWith('request:') ? target.toLowerCase() : target;

const canonicalCondition = (condition: EvalCondition): string =>
  JSON.stringify([
    condition.operator,
    condition.not_op,
    setOf(condition.expressions),
    setOf(condition.targets.map(canonicalTarget)),
  ]);

/** The host and the conditions as sets: two rules with the same one apply to the same requests. */
const groupKey = (rule: EvalRule): string =>
  JSON.stringify([rule.rq_host.toLowerCase(), setOf(rule.conditions.map(canonicalCondition))]);

const actionsKey = (rule: EvalRule): string =>
  JSON.stringify(
    setOf(rule.actions.map((a) => JSON.stringify([a.firewall_action.toLowerCase(), a.firewall_name]))),
  );

const byKey = (a: EvalRule, b: EvalRule) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

/** Each rule whose conditions and actions equal an earlier rule's (key order), naming the first. */
function identical(group: readonly EvalRule[]): RuleLint[] {
  const first = new Map<string, EvalRule>();
  const found: RuleLint[] = [];
  for (const rule of [...group].sort(byKey)) {
    const key = actionsKey(rule);
    const other = first.get(key);
    if (other === undefined) {
      first.set(key, rule);
      continue;
    }
    const message = `identical to ${other.key} (same host, conditions and actions): one of them can go`;
    found.push({ code: 'identical', rule: rule.key, other: other.key, message });
  }
  return found;
}

/**
 * Each rule that an enabled rule of strictly higher priority, with the same host and conditions,
 * decides before on every firewall it acts on. Rules of one priority do not shadow each other: the
 * vendor does not say how it breaks ties. One sweep over the group's priority levels.
 */
function shadowed(group: readonly EvalRule[], skip: ReadonlySet<string>): RuleLint[] {
  const ordered = [...group].sort(compareRuleOrder);
  const coveredBy = new Map<string, EvalRule>(); // firewall -> the first enabled rule acting on it
  const found: RuleLint[] = [];
  let level: EvalRule[] = [];
  const closeLevel = () => {
    for (const rule of level.filter((r) => r.enabled)) {
      for (const action of rule.actions) {
        if (!coveredBy.has(action.firewall_name)) coveredBy.set(action.firewall_name, rule);
      }
    }
    level = [];
  };
  for (const rule of ordered) {
    const previous = level[0];
    if (previous !== undefined && comparePriority(previous.priority, rule.priority) !== 0) closeLevel();
    level.push(rule);
    if (skip.has(rule.key) || rule.actions.length === 0) continue;
    const by = rule.actions.map((action) => coveredBy.get(action.firewall_name));
    if (by.some((other) => other === undefined)) continue;
    const others = setOf(by.map((other) => (other as EvalRule).key));
    const message = `shadowed by ${others.join(', ')} (same host and conditions, higher priority): it can never decide`;
    found.push({ code: 'shadowed', rule: rule.key, other: others[0], message });
  }
  return found;
}

/** Whether an expression matches "" (false when it does not compile: validation reports that). */
type EmptyTest = (expression: string) => boolean;

/**
 * One compile per distinct expression, and none for one that requires literal text (`^/admin`,
 * `sqlmap`): it cannot match "". Compiling every expression of 100,000 blocking rules would add
 * seconds to every `validate`.
 */
function emptyTest(): EmptyTest {
  const known = new Map<string, boolean>();
  return (expression) => {
    if (literalPrefix(expression) !== undefined) return false;
    let matches = known.get(expression);
    if (matches === undefined) {
      const compiled = compileExpression(expression);
      matches = 'regex' in compiled && compiled.regex.test('');
      known.set(expression, matches);
    }
    return matches;
  };
}

/** Each `match` expression of a blocking rule that matches the empty string: it matches every value. */
function matchesEmpty(
  rule: EvalRule,
  isBlocking: (firewallAction: string) => boolean,
  matchesEmptyString: EmptyTest,
): RuleLint[] {
  if (!rule.actions.some((action) => isBlocking(action.firewall_action))) return [];
  const found: RuleLint[] = [];
  rule.conditions.forEach((condition, c) => {
    if (condition.operator !== 'match' || condition.not_op) return;
    condition.expressions.forEach((expression, e) => {
      if (!matchesEmptyString(expression)) return;
      const message = `conditions[${c}].expressions[${e}] ${JSON.stringify(expression)} matches the empty string, so it matches every request that has a value of ${condition.targets.join(', ')}, and the rule blocks`;
      found.push({ code: 'matches_empty', rule: rule.key, condition: c, expression: e, message });
    });
  });
  return found;
}

/**
 * The warnings of `rules`, in the rules' order. `isBlocking` says whether a `firewall_action`
 * blocks (settings.firewall_actions). A rule identical to another is reported as `identical` only:
 * removing one of them settles any shadowing between them too.
 */
export function lintRules(
  rules: readonly EvalRule[],
  isBlocking: (firewallAction: string) => boolean,
): RuleLint[] {
  const groups = new Map<string, EvalRule[]>();
  for (const rule of rules) {
    const key = groupKey(rule);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [rule]);
    else group.push(rule);
  }
  const byRule = new Map<string, RuleLint[]>();
  const add = (lint: RuleLint) => {
    const list = byRule.get(lint.rule);
    if (list === undefined) byRule.set(lint.rule, [lint]);
    else list.push(lint);
  };
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    const duplicates = identical(group);
    duplicates.forEach(add);
    shadowed(group, new Set(duplicates.map((lint) => lint.rule))).forEach(add);
  }
  const matchesEmptyString = emptyTest();
  for (const rule of rules) matchesEmpty(rule, isBlocking, matchesEmptyString).forEach(add);
  const seen = new Set<string>();
  return rules.flatMap((rule) => {
    if (seen.has(rule.key)) return [];
    seen.add(rule.key);
    return byRule.get(rule.key) ?? [];
  });
}
