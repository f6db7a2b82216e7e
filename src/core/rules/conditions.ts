/**
 * One condition, compiled: "a condition matches when some expression matches some value of some
 * target, inverted by not_op" (the contract; the vendor: "Each condition is composed by multiple
 * targets and expressions, and an operator"). A condition wafctl cannot fully evaluate (an operator or
 * a target known only through settings.extra_*, an expression RE2 refuses) is `unknown` unless what it
 * can evaluate already decides it.
 */
import { isKnownOperator, isKnownTarget, operatorProblem, targetProblem } from './catalog.js';
import { type ExpressionCache, type ExpressionTest, expressionTest } from './expressions.js';
import { hasKnownValues, isFormEncoded, type RequestValues } from './request-values.js';
import type { CatalogExtensions, EvalCondition } from './types.js';

export interface CompiledCondition {
  readonly source: EvalCondition;
  /** Why wafctl cannot evaluate the operator; then the condition is always unknown. */
  readonly operatorProblem?: string;
  readonly tests: readonly ExpressionTest[];
  /** Targets wafctl knows no value of, and why. */
  readonly targetProblems: ReadonlyMap<string, string>;
  /**
   * The verdict for the last request asked about: a condition that many rules share (the same
   * SQL-injection condition on every host) is evaluated once per request. The only state that
   * changes after compiling; `decide` and `run` are synchronous, so it never interleaves.
   */
  readonly memo: { values: RequestValues | undefined; verdict: boolean | undefined };
}

/** The first expression found in a value. */
export interface Hit {
  readonly target: string;
  readonly value: string;
  readonly expression: string;
}

/** No hit, but a part wafctl could not evaluate might have been one. */
export const UNKNOWN = Symbol('unknown');

const VERBS: Readonly<Record<string, string>> = { match: 'matches', equals: 'equals', contains: 'contains' };

function whyNoOperator(operator: string, extensions: CatalogExtensions): string {
  if (isKnownOperator(operator, extensions)) {
    return `operator ${JSON.stringify(operator)} comes from settings.extra_operators: wafctl cannot evaluate it`;
  }
  return operatorProblem(operator, extensions) ?? `operator ${JSON.stringify(operator)} is unknown`;
}

function whyNoValues(target: string, extensions: CatalogExtensions): string {
  if (isKnownTarget(target, extensions)) {
    return `target ${JSON.stringify(target)} comes from settings.extra_targets: wafctl does not know its values`;
  }
  return targetProblem(target, extensions) ?? `target ${JSON.stringify(target)} is unknown`;
}

/** Compiles one condition; never throws (what cannot be compiled is recorded as a problem). */
export function compileCondition(
  source: EvalCondition,
  extensions: CatalogExtensions,
  cache: ExpressionCache,
): CompiledCondition {
  const targetProblems = new Map<string, string>();
  for (const target of source.targets) {
    if (!hasKnownValues(target)) targetProblems.set(target, whyNoValues(target, extensions));
  }
  const memo = { values: undefined, verdict: undefined };
  if (!Object.hasOwn(VERBS, source.operator)) {
    const operatorProblem = whyNoOperator(source.operator, extensions);
    return { source, operatorProblem, tests: [], targetProblems, memo };
  }
  const tests = source.expressions.map((expression) => expressionTest(source.operator, expression, cache));
  return { source, tests, targetProblems, memo };
}

/**
 * The first (target, value, expression) that matches; UNKNOWN when none does but one might. The
 * evaluator's inner loop: indexed loops, nothing allocated unless there is a hit.
 */
export function search(
  condition: CompiledCondition,
  values: RequestValues,
): Hit | typeof UNKNOWN | undefined {
  if (condition.operatorProblem !== undefined) return UNKNOWN;
  const { targets } = condition.source;
  const { tests } = condition;
  let unknown = false;
  for (let t = 0; t < targets.length; t++) {
    const target = targets[t] as string;
    const found = values.of(target);
    if (found === undefined) {
      unknown = true;
      continue;
    }
    for (let v = 0; v < found.length; v++) {
      const value = found[v] as string;
      for (let e = 0; e < tests.length; e++) {
        const test = tests[e] as ExpressionTest;
        const matched = test.matches(value);
        if (matched === true) return { target, value, expression: test.expression };
        if (matched === undefined) unknown = true;
      }
    }
  }
  return unknown ? UNKNOWN : undefined;
}

/** Whether the condition matches: true, false, or undefined when wafctl cannot tell. */
export function verdict(condition: CompiledCondition, values: RequestValues): boolean | undefined {
  const { memo } = condition;
  if (memo.values === values) return memo.verdict;
  const found = search(condition, values);
  memo.values = values;
  memo.verdict = found === UNKNOWN ? undefined : (found !== undefined) !== condition.source.not_op;
  return memo.verdict;
}

/** The same condition written twice is compiled once: identical conditions share one memo. */
export type ConditionCache = Map<string, CompiledCondition>;

export function sharedCondition(
  source: EvalCondition,
  extensions: CatalogExtensions,
  expressions: ExpressionCache,
  conditions: ConditionCache,
): CompiledCondition {
  const key = JSON.stringify([source.operator, source.not_op, source.expressions, source.targets]);
  let compiled = conditions.get(key);
  if (compiled === undefined) {
    compiled = compileCondition(source, extensions, expressions);
    conditions.set(key, compiled);
  }
  return compiled;
}

const SHOWN = 60;
const quote = (text: string) => JSON.stringify(text.length > SHOWN ? `${text.slice(0, SHOWN)}…` : text);

/** `"a"`, or `any of "a", "b"`, at most three shown. */
function quoteList(items: readonly string[], several: string): string {
  const shown = items.slice(0, 3).map(quote).join(', ');
  const more = items.length > 3 ? `, … (${items.length} in all)` : '';
  return items.length === 1 ? shown : `${several}${shown}${more}`;
}

/** What the request holds for `target`, in a few words. */
function describeValues(target: string, values: RequestValues): string {
  const found = values.of(target) ?? [];
  if (found.length > 0) return `${target} is ${quoteList(found, '')}`;
  if (target.startsWith('request_body:') && !isFormEncoded(values.request)) {
    return 'the Content-Type is not application/x-www-form-urlencoded';
  }
  return target.startsWith('request:') ? `${target} is absent` : `${target} has no value`;
}

/** Why a condition whose verdict is not `true` did not match, in one line. */
export function whyNot(condition: CompiledCondition, values: RequestValues): string {
  const { source } = condition;
  const found = search(condition, values);
  if (found === UNKNOWN) {
    const problem =
      condition.operatorProblem ??
      [...condition.targetProblems.values()][0] ??
      condition.tests.map((test) => test.problem()).find((problem) => problem !== undefined);
    return `cannot be evaluated: ${problem}`;
  }
  const verb = VERBS[source.operator] ?? source.operator;
  if (found !== undefined) {
    return `${found.target} ${verb} ${quote(found.expression)} and not_op is true (${describeValues(found.target, values)})`;
  }
  if (source.targets.length === 0 || source.expressions.length === 0) {
    return `it has no ${source.targets.length === 0 ? 'target' : 'expression'}`;
  }
  const targets = source.targets.join(' or ');
  const expressions = quoteList(source.expressions, 'any of ');
  const described = source.targets.map((target) => describeValues(target, values)).join('; ');
  return `no value of ${targets} ${verb} ${expressions} (${described})`;
}
