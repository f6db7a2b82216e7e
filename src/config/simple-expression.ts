/**
 * Which `match` expressions compile for certain, told without compiling them. RE2 (re2js) takes some
 * 15 µs to compile an expression: 125,000 distinct ones, as a configuration of 100,000 rules holds,
 * would add two seconds to every `validate`. Nearly all are of a simple shape that RE2 always
 * compiles; those are taken here, and the rest is compiled (rule-catalog-check.ts).
 *
 * The shape: optional leading flags (`(?i)`), then literals, `.`, `^`, `$`, escapes of a class
 * (`\d`, `\s`, `\w` and their negations), of ASCII punctuation or of an assertion (`\b`, `\B`, `\A`,
 * `\z`), classes of such characters and of ASCII ranges in order (`[a-z0-9_]`, `[^/]`), groups
 * `(...)` and `(?:...)` at most MAX_DEPTH deep, `|`, and `*`, `+`, `?` (lazy or not) after something
 * they can repeat; counted repetition (`{2}`, `{1,3}`, `{2,}`, at most 1,000) after one character
 * or class only, so that no expression nears RE2's limit on its size. Anything else is left to RE2.
 * The property this rests on (whatever is taken, RE2 compiles) is tested with random expressions by
 * test/config/rule-catalog.test.ts.
 */
import { MAX_EXPRESSION_LENGTH } from '../core/rules/catalog.js';

/** Inline flags at the start of an expression: `(?i)`, `(?s)`, `(?is)`. */
const LEADING_FLAGS = /^\(\?[imsU]+\)/;

/** After `\`: a class (`\d`, `\s`, `\w` and their negations) or ASCII punctuation (a literal). */
const CHARACTER_ESCAPE = /[dDsSwW!-/:-@[-`{-~]/;

/** After `\`: an assertion, which takes no quantifier. */
const ASSERTION_ESCAPE = /[bBAz]/;

/** Groups nested: far below RE2's limit on the height of its tree (1,000). */
const MAX_DEPTH = 50;

/** RE2's largest count in `{n,m}`. */
const MAX_COUNT = 1000;

/** `{n}`, `{n,}` or `{n,m}`, read from `lastIndex`. */
const COUNT = /\{(\d{1,4})(?:(,)(\d{0,4}))?\}/y;

/** What the item before can take: nothing, `*` `+` `?` (a group), or also a count (a character or class). */
enum Repeat {
  None,
  Quantifier,
  Count,
}

/** Where a simple class starting at `start` (its `[`) ends, past its `]`; undefined when it is not simple. */
function classEnd(expression: string, start: number): number | undefined {
  let i = expression.charAt(start + 1) === '^' ? start + 2 : start + 1;
  let items = 0;
  for (;;) {
    const c = expression.charAt(i);
    if (c === ']') return items > 0 ? i + 1 : undefined;
    if (c === '' || c === '[') return undefined;
    if (c === '-') {
      // A literal `-` only last: elsewhere it could be read as a range.
      if (items === 0 || expression.charAt(i + 1) !== ']') return undefined;
      i++;
    } else if (c === '\\') {
      if (!CHARACTER_ESCAPE.test(expression.charAt(i + 1))) return undefined;
      i += 2;
    } else if (expression.charAt(i + 1) === '-' && expression.charAt(i + 2) !== ']') {
      const high = expression.charAt(i + 2);
      if (!/[ -Z^-~]/.test(high) || !/[ -~]/.test(c) || high < c) return undefined; // ASCII, no `\` `[` `]`
      i += 3;
    } else i++;
    items++;
  }
}

/** Where a counted repetition starting at `start` (its `{`) ends; undefined when RE2 could refuse it. */
function countEnd(expression: string, start: number): number | undefined {
  COUNT.lastIndex = start;
  const found = COUNT.exec(expression);
  if (found === null) return undefined;
  const min = Number(found[1]);
  const max = found[2] === undefined ? min : found[3] === '' ? MAX_COUNT : Number(found[3]);
  return min <= MAX_COUNT && max <= MAX_COUNT && min <= max ? COUNT.lastIndex : undefined;
}

/** The scan of an expression under way: where it is, how deep, what the last item can take. */
interface Scan {
  i: number;
  depth: number;
  repeat: Repeat;
}

/** Reads the item at `scan.i` (see the module comment); false when it is not of the simple shape. */
function step(expression: string, scan: Scan): boolean {
  const c = expression.charAt(scan.i++);
  if (c === '\\') {
    const next = expression.charAt(scan.i++);
    scan.repeat = CHARACTER_ESCAPE.test(next) ? Repeat.Count : Repeat.None;
    return scan.repeat === Repeat.Count || ASSERTION_ESCAPE.test(next);
  }
  if (c === '*' || c === '+' || c === '?' || c === '{') {
    if (scan.repeat === Repeat.None || (c === '{' && scan.repeat !== Repeat.Count)) return false;
    const end = c === '{' ? countEnd(expression, scan.i - 1) : scan.i;
    if (end === undefined) return false;
    scan.i = expression.charAt(end) === '?' ? end + 1 : end;
    scan.repeat = Repeat.None;
    return true;
  }
  if (c === '[') {
    const end = classEnd(expression, scan.i - 1);
    scan.i = end ?? scan.i;
    scan.repeat = Repeat.Count;
    return end !== undefined;
  }
  if (c === '(') {
    if (expression.charAt(scan.i) === '?') {
      if (expression.charAt(scan.i + 1) !== ':') return false;
      scan.i += 2;
    }
    scan.repeat = Repeat.None;
    return ++scan.depth <= MAX_DEPTH;
  }
  if (c === ')') {
    scan.repeat = Repeat.Quantifier;
    return --scan.depth >= 0;
  }
  if (c === ']' || c === '}') return false;
  scan.repeat = c === '|' || c === '^' || c === '$' ? Repeat.None : Repeat.Count;
  return true;
}

/** Whether `expression` compiles for certain (see the module comment). */
export function compilesForCertain(expression: string): boolean {
  if (expression.length > MAX_EXPRESSION_LENGTH) return false;
  const scan: Scan = { i: LEADING_FLAGS.exec(expression)?.[0].length ?? 0, depth: 0, repeat: Repeat.None };
  while (scan.i < expression.length) {
    if (!step(expression, scan)) return false;
  }
  return scan.depth === 0;
}
