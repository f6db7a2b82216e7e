/**
 * The literal text a `match` expression must start with, checked before RE2 runs: a row per reading,
 * and the soundness of each against RE2 itself (a value RE2 matches always has the text).
 */
import { RE2JS } from 're2js';
import { describe, expect, it } from 'vitest';
import { expressionTest, literalPrefix, substringSearch } from '../../../src/core/rules/expressions.js';
import { seededRandom } from '../../helpers/random.js';

const rows: [string, string, { literal: string; anchored: boolean } | undefined][] = [
  ['anchored literal up to a group', '^/admin(/|$)', { literal: '/admin', anchored: true }],
  ['unanchored literal', 'sqlmap', { literal: 'sqlmap', anchored: false }],
  ['an escaped punctuation character is literal', '^/a\\.php\\?x', { literal: '/a.php?x', anchored: true }],
  ['a letter escape ends it', '^/api\\d+', { literal: '/api', anchored: true }],
  ['the character before ? is optional', '^/ab?c', { literal: '/a', anchored: true }],
  ['the character before * is optional', 'ab*', { literal: 'a', anchored: false }],
  ['the character before + is left out too', '^/ab+', { literal: '/a', anchored: true }],
  ['the character before {n} is left out', '^/ab{2}', { literal: '/a', anchored: true }],
  ['a multi-byte character counts as one', '^/né?', { literal: '/n', anchored: true }],
  ['a top-level | means nothing is required', '^/admin|/login', undefined],
  ['a | inside a group is fine', '^/(admin|login)', { literal: '/', anchored: true }],
  ['a | inside a class is fine', '^/a[|]', { literal: '/a', anchored: true }],
  ['a ] first in a class does not end it', '^/a[]|]', { literal: '/a', anchored: true }],
  ['an escaped | is not alternation', '^/a\\|b', { literal: '/a|b', anchored: true }],
  ['an inline flag first: nothing', '(?i)union\\s+select', undefined],
  ['(?m) first: nothing (^ would match at every line)', '(?m)^/admin', undefined],
  ['\\Q...\\E quoting: nothing', '^/a\\Q|\\E', undefined],
  ['the x flag anywhere: nothing', '^/a(?x) # |', undefined],
  ['an unbalanced ) : nothing', '^/a)|b', undefined],
  ['a class first: nothing', '[a-z]+', undefined],
  ['only an anchor: nothing', '^', undefined],
];

const VALUES = [
  '',
  '/admin',
  '/admin/x',
  '/login',
  '/a.php?x',
  '/api12',
  '/ac',
  '/abc',
  '/abbb',
  '/né',
  '/a|b',
  '/a]',
  '/a|',
  'x sqlmap y',
  'abbb',
  '/',
];

describe('literalPrefix', () => {
  it.each(rows)('%s: %s', (_what, expression, prefix) => {
    expect(literalPrefix(expression)).toEqual(prefix);
  });

  it.each(rows.filter(([, expression]) => !expression.includes('(?x)') && !expression.includes(')|')))(
    'is sound against RE2: %s',
    (_what, expression) => {
      const regex = RE2JS.compile(expression);
      const test = expressionTest('match', expression, new Map());
      for (const value of VALUES) expect(test.matches(value), value).toBe(regex.test(value));
    },
  );
});

describe('expressionTest', () => {
  it.each([
    ['equals', 'abc', 'abc', true],
    ['equals', 'abc', 'abcd', false],
    ['contains', 'bc', 'abcd', true],
    ['contains', 'BC', 'abcd', false],
    ['match', 'b.d', 'abcd', true],
  ] as const)('%s %s on %s: %s', (operator, expression, value, matches) => {
    expect(expressionTest(operator, expression, new Map()).matches(value)).toBe(matches);
  });

  it('a match expression RE2 refuses: unknown, with the reason; but a value without its literal text cannot match', () => {
    const test = expressionTest('match', '^/admin(?=/)', new Map());
    expect(test.matches('/admin/x')).toBeUndefined();
    expect(test.matches('/shop')).toBe(false);
    expect(test.problem()).toMatch(/^expression "\^\/admin\(\?=\/\)": .*lookahead/);
  });
});

describe('substringSearch: includes, in linear time for long needles (KMP)', () => {
  const long = `${'a'.repeat(20)}b${'a'.repeat(20)}`;
  it.each([
    ['a short needle', 'min', '/admin', true],
    ['a long needle present', long, `x${long}y`, true],
    ['a long needle absent (the input that is slow for includes)', long, 'a'.repeat(500), false],
    [
      'a long needle with a border, found after a partial match',
      `${'ab'.repeat(20)}c`,
      `${'ab'.repeat(30)}c`,
      true,
    ],
    ['a long needle longer than the value', long, 'aab', false],
  ])('%s', (_what, needle, value, found) => {
    expect(substringSearch(needle)(value)).toBe(found);
  });

  it('agrees with includes on random values over a two-letter alphabet', () => {
    const random = seededRandom(43);
    const text = (n: number) => Array.from({ length: n }, () => (random() < 0.5 ? 'a' : 'b')).join('');
    for (let i = 0; i < 300; i++) {
      const needle = text(33 + Math.floor(random() * 8));
      const value = random() < 0.5 ? text(200) : `${text(50)}${needle}${text(50)}`;
      expect(substringSearch(needle)(value), `${needle} in ${value}`).toBe(value.includes(needle));
    }
  });
});
