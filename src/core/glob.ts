/**
 * Globs, as every pattern a file or a flag holds is written (`manage` match lists, `--target`,
 * `--env`, a rule's `rq_host`): `*` matches any run of characters (dots and slashes included), `?`
 * one character (a code point), everything else itself.
 *
 * A pull request writes these patterns, so they are matched without backtracking: a glob is split
 * at its stars into fixed-width segments; the first must match at the start, the last at the end,
 * and each one between is taken at its leftmost place after the one before (a later place never
 * helps: whatever follows could match from the earlier place too). Each place is tried once per
 * segment, so matching takes at most (text length × glob length) steps and usually one pass: no
 * input makes it crawl, unlike a backtracking `RegExp` of `.*`s (`*a*a*a*a*a*a*a*a*a*ab` against
 * forty `a`s kept one busy for a minute).
 *
 * `globsIntersect` says whether two globs match some common text (one server's two scopes
 * overlap), by the reachable states of the two patterns walked together: at most the product of
 * their lengths.
 */

export interface GlobOptions {
  /** Compare letters ignoring case (hosts). */
  ignoreCase?: boolean;
  /** Whether `?` matches one character; false: `?` is itself (addresses, whose keys may hold one). Default true. */
  anyChar?: boolean;
}

export type GlobMatcher = (text: string) => boolean;

/** A segment's parts: literal text, or ANY for one character. */
const ANY = Symbol('any character');
type Part = string | typeof ANY;

interface Segment {
  parts: Part[];
  /** Its width in code points. */
  width: number;
}

/** Whether `glob` holds a wildcard at all (else it matches only itself). */
export function isGlob(glob: string, options: GlobOptions = {}): boolean {
  return glob.includes('*') || (options.anyChar !== false && glob.includes('?'));
}

function segmentOf(text: string, anyChar: boolean): Segment {
  const parts: Part[] = [];
  let width = 0;
  let literal = '';
  for (const char of text) {
    width += 1;
    if (anyChar && char === '?') {
      if (literal !== '') parts.push(literal);
      literal = '';
      parts.push(ANY);
    } else literal += char;
  }
  if (literal !== '') parts.push(literal);
  return { parts, width };
}

const isHigh = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLow = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/** The width in UTF-16 units of the code point at `at`. */
function unitsAt(text: string, at: number): number {
  return isHigh(text.charCodeAt(at)) && isLow(text.charCodeAt(at + 1)) ? 2 : 1;
}

/** Whether `at` starts a code point (is not the second half of a surrogate pair). */
function startsCodePoint(text: string, at: number): boolean {
  return at === 0 || !(isLow(text.charCodeAt(at)) && isHigh(text.charCodeAt(at - 1)));
}

/** Where `segment` ends when it matches `text` at `at`; -1 when it does not. */
function matchAt(text: string, at: number, segment: Segment): number {
  let i = at;
  for (const part of segment.parts) {
    if (part === ANY) {
      if (i >= text.length) return -1;
      i += unitsAt(text, i);
    } else if (text.startsWith(part, i)) i += part.length;
    else return -1;
  }
  return i;
}

/** The leftmost place at or after `from` where `segment` matches: its end, or -1. */
function findFrom(text: string, from: number, segment: Segment): number {
  const first = segment.parts[0];
  for (let at = from; at <= text.length; at++) {
    if (typeof first === 'string') {
      at = text.indexOf(first, at);
      if (at < 0) return -1;
    }
    if (!startsCodePoint(text, at)) continue;
    const end = matchAt(text, at, segment);
    if (end >= 0) return end;
  }
  return -1;
}

/** Where a segment `width` code points wide must start to end at the end of `text`; -1 if it cannot. */
function startOfLast(text: string, width: number): number {
  let at = text.length;
  for (let left = width; left > 0; left--) {
    if (at <= 0) return -1;
    at -= at >= 2 && isLow(text.charCodeAt(at - 1)) && isHigh(text.charCodeAt(at - 2)) ? 2 : 1;
  }
  return at;
}

function matches(text: string, segments: readonly Segment[]): boolean {
  const [first, ...rest] = segments as [Segment, ...Segment[]];
  const last = rest.pop();
  if (last === undefined) return matchAt(text, 0, first) === text.length;
  let at = matchAt(text, 0, first);
  if (at < 0) return false;
  for (const segment of rest) {
    at = findFrom(text, at, segment);
    if (at < 0) return false;
  }
  const start = startOfLast(text, last.width);
  return start >= at && matchAt(text, start, last) === text.length;
}

/** The test of one glob (see the module comment). */
export function globMatcher(glob: string, options: GlobOptions = {}): GlobMatcher {
  const fold = options.ignoreCase === true ? (text: string) => text.toLowerCase() : (text: string) => text;
  const pattern = fold(glob);
  if (!isGlob(pattern, options)) return (text) => fold(text) === pattern;
  const segments = pattern.split('*').map((text) => segmentOf(text, options.anyChar !== false));
  return (text) => matches(fold(text), segments);
}

/** Whether some glob of `globs` matches `text`. */
export function anyGlobMatcher(globs: readonly string[], options: GlobOptions = {}): GlobMatcher {
  const matchers = globs.map((glob) => globMatcher(glob, options));
  return (text) => matchers.some((matcher) => matcher(text));
}

/** A glob as a list of tokens: a star, any one character, or one literal code point. */
type Token = { star: true } | { any: true } | { char: string };

function tokensOf(glob: string, options: GlobOptions): Token[] {
  const pattern = options.ignoreCase === true ? glob.toLowerCase() : glob;
  return [...pattern].map((char): Token => {
    if (char === '*') return { star: true };
    if (char === '?' && options.anyChar !== false) return { any: true };
    return { char };
  });
}

/** Whether the two tokens can read the same character. */
function agree(a: Token, b: Token): boolean {
  return !('char' in a) || !('char' in b) || a.char === b.char;
}

/**
 * The most states `globsIntersect` walks: two globs of 2,000 characters each. Past it, the answer
 * is "maybe" (`undefined`), which a caller takes as an overlap: a pattern is never too long to be
 * safe, only to be proven disjoint.
 */
export const MAX_INTERSECTION_STATES = 4_000_000;

/** Whether some text matches both `a` and `b` (see the module comment); undefined past the budget. */
export function globsIntersect(a: string, b: string, options: GlobOptions = {}): boolean | undefined {
  const left = tokensOf(a, options);
  const right = tokensOf(b, options);
  if ((left.length + 1) * (right.length + 1) > MAX_INTERSECTION_STATES) return undefined;
  const width = right.length + 1;
  const seen = new Uint8Array((left.length + 1) * width);
  const pending: number[] = [0];
  seen[0] = 1;
  const visit = (i: number, j: number) => {
    const state = i * width + j;
    if (seen[state] === 1) return;
    seen[state] = 1;
    pending.push(state);
  };
  while (pending.length > 0) {
    const state = pending.pop() as number;
    const i = Math.floor(state / width);
    const j = state % width;
    if (i === left.length && j === right.length) return true;
    const x = left[i];
    const y = right[j];
    // A star may also match nothing.
    if (x !== undefined && 'star' in x) visit(i + 1, j);
    if (y !== undefined && 'star' in y) visit(i, j + 1);
    // Both read one character: a star stays where it is, the others move on.
    if (x !== undefined && y !== undefined && agree(x, y))
      visit('star' in x ? i : i + 1, 'star' in y ? j : j + 1);
  }
  return false;
}
