import { describe, expect, it } from 'vitest';
import { globMatcher, globsIntersect } from '../../src/core/glob.js';
import { mulberry32 } from '../../src/emulator/faults.js';

/** The reference: a backtracking RegExp, fine on the short texts below. */
function reference(glob: string, anyChar = true): RegExp {
  const body = [...glob]
    .map((c) => (c === '*' ? '.*' : c === '?' && anyChar ? '.' : c.replace(/[\\^$.|+()[\]{}?*]/g, '\\$&')))
    .join('');
  return new RegExp(`^${body}$`, 'su');
}

const pick = (next: () => number, alphabet: readonly string[], length: number) =>
  Array.from({ length }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');

describe('globMatcher', () => {
  it('* matches any run (dots and slashes included), ? one code point, the rest literally', () => {
    const cases: [string, string, boolean][] = [
      ['*.example.com', 'shop.example.com', true],
      ['*.example.com', 'example.com', false],
      ['*', '', true],
      ['', '', true],
      ['', 'a', false],
      ['a*', 'a', true],
      ['*a', 'ba', true],
      ['a*b*c', 'abc', true],
      ['a*b*c', 'acb', false],
      ['a?c', 'a😀c', true],
      ['a??c', 'a😀c', false],
      ['?', '😀', true],
      ['*😀', 'x😀', true],
      ['application_rule.*', 'application_rule.shop/x', true],
      ['ab*ab', 'ab', false],
      ['ab*ba', 'aba', false],
    ];
    for (const [glob, text, expected] of cases)
      expect([glob, text, globMatcher(glob)(text)]).toEqual([glob, text, expected]);
  });

  it('agrees with a backtracking RegExp on 5,000 random globs and texts', () => {
    const next = mulberry32(50);
    const disagreements: string[] = [];
    for (let n = 0; n < 5_000; n++) {
      const glob = pick(next, ['a', 'b', '*', '?', '.'], Math.floor(next() * 7));
      const text = pick(next, ['a', 'b', '.', '😀'], Math.floor(next() * 8));
      const anyChar = next() < 0.7;
      if (globMatcher(glob, { anyChar })(text) !== reference(glob, anyChar).test(text))
        disagreements.push(`${glob} ${text} anyChar=${anyChar}`);
    }
    expect(disagreements).toEqual([]);
  });

  it('ignores case when asked, and only then', () => {
    expect(globMatcher('*.Example.COM', { ignoreCase: true })('SHOP.example.com')).toBe(true);
    expect(globMatcher('*.Example.COM')('SHOP.example.com')).toBe(false);
  });

  it('without anyChar, ? is itself', () => {
    expect(globMatcher('a?', { anyChar: false })('a?')).toBe(true);
    expect(globMatcher('a?', { anyChar: false })('ab')).toBe(false);
  });

  it('matches the pattern that made a backtracking engine crawl in a few steps', () => {
    // 22 stars against 100,000 characters: a backtracking engine would not finish; this is a
    // handful of indexOf passes. No clock: the assertion is the answer, the bound is the algorithm.
    const glob = `${'*a'.repeat(22)}b`;
    expect(globMatcher(glob)(`${'a'.repeat(100_000)}c`)).toBe(false);
    expect(globMatcher(glob)(`${'a'.repeat(100_000)}b`)).toBe(true);
  });
});

describe('globsIntersect', () => {
  it('says whether some text matches both globs', () => {
    const cases: [string, string, boolean][] = [
      ['*.example.com', 'shop.*', true],
      ['*.example.com', '*.example.org', false],
      ['shop.example.com', '*.example.com', true],
      ['a', 'b', false],
      ['*', '', true],
      ['?', '', false],
      ['a*', '*b', true],
      ['a?c', 'a*', true],
      ['ab', 'a?c', false],
    ];
    for (const [a, b, expected] of cases) {
      expect([a, b, globsIntersect(a, b)]).toEqual([a, b, expected]);
      expect([b, a, globsIntersect(b, a)]).toEqual([b, a, expected]);
    }
  });

  it('agrees with a search over short texts for random globs', () => {
    const next = mulberry32(6);
    const texts: string[] = [''];
    for (let length = 1; length <= 5; length++)
      for (let n = 0; n < 3 ** length; n++)
        texts.push([...n.toString(3).padStart(length, '0')].map((d) => 'ab.'[+d]).join(''));
    const disagreements: string[] = [];
    for (let n = 0; n < 2_000; n++) {
      const a = pick(next, ['a', 'b', '*', '?'], Math.floor(next() * 4));
      const b = pick(next, ['a', 'b', '*', '?', '.'], Math.floor(next() * 4));
      const [x, y] = [reference(a), reference(b)];
      // Globs of at most 3 tokens that intersect share a text of at most 5 characters.
      const found = texts.some((text) => x.test(text) && y.test(text));
      if (globsIntersect(a, b) !== found) disagreements.push(`${a} ${b}`);
    }
    expect(disagreements).toEqual([]);
  });
});
