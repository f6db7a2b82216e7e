/**
 * The test of one expression against one value, per operator: `match` searches an RE2 expression
 * (compiled once per rule set, on first use), `equals` compares the whole value, `contains` looks
 * for a substring; all case-sensitive, all in time linear in the value. A `match` expression that
 * must begin with literal text (`^/admin/`, `sqlmap`) is first checked with a string search: most
 * values fail there, without RE2.
 */
import type { RE2JS } from 're2js';
import { compileExpression } from './catalog.js';

/** Each distinct `match` expression compiled once, shared by every rule of a rule set. */
export type ExpressionCache = Map<string, { regex: RE2JS } | { problem: string }>;

export interface ExpressionTest {
  readonly expression: string;
  /** Whether the expression matches `value`; undefined when wafctl cannot tell (RE2 refuses it). */
  matches(value: string): boolean | undefined;
  /** Why wafctl cannot test it, if it cannot. */
  problem(): string | undefined;
}

/** Characters with a meaning in a regular expression outside a class. */
const META = new Set([...'\\.+*?()[]{}|^$']);
const PUNCTUATION = /^[!-/:-@[-`{-~]$/u;

/** Whether `|` occurs outside any group and class: then no literal text is required. */
function hasTopLevelBar(expression: string): boolean {
  let depth = 0;
  for (let i = 0; i < expression.length; i++) {
    const c = expression[i];
    if (c === '\\') i++;
    else if (c === '(') depth++;
    else if (c === ')' && --depth < 0)
      return true; // unbalanced: no simple reading
    else if (c === '|' && depth === 0) return true;
    else if (c === '[') {
      i += expression[i + 1] === '^' ? 2 : 1;
      if (expression[i] === ']') i++; // a `]` first in a class is literal
      while (i < expression.length && expression[i] !== ']') i += expression[i] === '\\' ? 2 : 1;
    }
  }
  return false;
}

/**
 * The literal text every match starts with, and whether it is anchored at the start of the value
 * (`^/admin/x` → `/admin/x`, anchored); undefined when there is none or the expression is beyond this
 * simple reading (`\Q...\E` quoting, the `x` flag, a top-level `|`). The last character before a
 * quantifier is left out (`^/ab?` requires `/a`).
 */
export function literalPrefix(expression: string): { literal: string; anchored: boolean } | undefined {
  if (expression.includes('\\Q') || /\(\?[a-zA-Z-]*x/u.test(expression)) return undefined;
  const anchored = expression.startsWith('^');
  const chars = [...expression.slice(anchored ? 1 : 0)];
  const literal: string[] = [];
  let i = 0;
  for (; i < chars.length; i++) {
    const c = chars[i] as string;
    if (c === '\\' && PUNCTUATION.test(chars[i + 1] ?? '')) literal.push(chars[++i] as string);
    else if (META.has(c)) break;
    else literal.push(c);
  }
  if ('?*+{'.includes(chars[i] ?? '-')) literal.pop();
  if (literal.length === 0 || hasTopLevelBar(expression)) return undefined;
  return { literal: literal.join(''), anchored };
}

/**
 * Past this length a needle is searched with KMP: String.prototype.includes takes time proportional
 * to the value's length times the needle's on some inputs (a needle of 4,096 `a`s with a `b` in the
 * middle, against 1 MiB of `a`s, takes half a second), KMP time proportional to their sum.
 */
const SHORT_NEEDLE = 32;

/** A substring search in time linear in `value`'s length, whatever `needle` is. */
export function substringSearch(needle: string): (value: string) => boolean {
  if (needle.length <= SHORT_NEEDLE) return (value) => value.includes(needle);
  const fallback = new Int32Array(needle.length); // KMP: the longest proper border of needle[0..i]
  for (let i = 1, k = 0; i < needle.length; i++) {
    while (k > 0 && needle[i] !== needle[k]) k = fallback[k - 1] as number;
    if (needle[i] === needle[k]) k++;
    fallback[i] = k;
  }
  return (value) => {
    for (let i = 0, k = 0; i < value.length; i++) {
      while (k > 0 && value[i] !== needle[k]) k = fallback[k - 1] as number;
      if (value[i] === needle[k]) k++;
      if (k === needle.length) return true;
    }
    return false;
  };
}

/** The compiled expression, from the rule set's cache or compiled now and kept there. */
function compiled(expression: string, cache: ExpressionCache): { regex: RE2JS } | { problem: string } {
  let found = cache.get(expression);
  if (found === undefined) {
    found = compileExpression(expression);
    cache.set(expression, found);
  }
  return found;
}

/**
 * The test of a `match` expression. Without its literal text a value cannot match, whatever dialect
 * reads the rest, so such values are answered without compiling.
 */
function matchTest(expression: string, cache: ExpressionCache): ExpressionTest {
  const prefix = literalPrefix(expression);
  const present =
    prefix === undefined
      ? undefined
      : prefix.anchored
        ? (value: string) => value.startsWith(prefix.literal)
        : substringSearch(prefix.literal);
  const regex = (): RE2JS | undefined => {
    const found = compiled(expression, cache);
    return 'regex' in found ? found.regex : undefined;
  };
  return {
    expression,
    matches: (value) => {
      if (present !== undefined && !present(value)) return false;
      return regex()?.test(value);
    },
    problem: () => {
      const found = compiled(expression, cache);
      return 'problem' in found ? `expression ${JSON.stringify(expression)}: ${found.problem}` : undefined;
    },
  };
}

const noProblem = () => undefined;

/** The test of `expression` under `operator` (one of the catalog's). */
export function expressionTest(operator: string, expression: string, cache: ExpressionCache): ExpressionTest {
  if (operator === 'equals')
    return { expression, matches: (value) => value === expression, problem: noProblem };
  if (operator === 'contains')
    return { expression, matches: substringSearch(expression), problem: noProblem };
  return matchTest(expression, cache);
}
