/** The catalog: names it suggests for typos, and the RE2 dialect of `match` expressions (docs/rule-tests.md). */
import { describe, expect, it } from 'vitest';
import {
  compileExpression,
  expressionProblem,
  operatorProblem,
  targetProblem,
} from '../../../src/core/rules/catalog.js';
import { NO_EXTENSIONS } from '../../../src/core/rules/types.js';

const EXTRA = { extraTargets: ['request_cookie:*', 'client_ip'], extraOperators: ['regex_i'] };

describe('names: known, or the closest one suggested', () => {
  it.each([
    ['pth', 'unknown target "pth" (did you mean "path"?)'],
    ['requst:x-api-key', 'unknown target "requst:x-api-key" (did you mean "request:x-api-key"?)'],
    ['request_body:x-www-form-urlencoded:password', undefined],
    ['request:', expect.stringContaining('unknown target "request:": expected one of method, ')],
    ['request_cookie:session', expect.stringContaining('settings.extra_targets')],
  ])('target %s', (target, problem) => {
    expect(targetProblem(target, NO_EXTENSIONS)).toEqual(problem);
  });

  it.each([
    ['request_cookie:session', undefined],
    ['request_cookie:', expect.stringContaining('unknown target')],
    ['client_ip', undefined],
    ['client_iq', 'unknown target "client_iq" (did you mean "client_ip"?)'],
  ])('target %s with settings.extra_targets', (target, problem) => {
    expect(targetProblem(target, EXTRA)).toEqual(problem);
  });

  it.each([
    ['contain', NO_EXTENSIONS, 'unknown operator "contain" (did you mean "contains"?)'],
    ['matches', NO_EXTENSIONS, 'unknown operator "matches" (did you mean "match"?)'],
    ['All expressions', NO_EXTENSIONS, expect.stringContaining('expected one of match, equals, contains')],
    ['regex_i', EXTRA, undefined],
  ])('operator %s', (operator, extensions, problem) => {
    expect(operatorProblem(operator, extensions)).toEqual(problem);
  });
});

describe('match expressions are RE2', () => {
  it.each([
    ['lookbehind', '(?<=/)admin', /RE2 has no lookahead or lookbehind/],
    ['lookahead', 'admin(?!/public)', /RE2 has no lookahead or lookbehind/],
    ['a backreference', '(a)\\1', /RE2 has no backreferences/],
    ['an atomic group', '(?>a+)b', /RE2 has no atomic groups or possessive quantifiers/],
    ['an unbalanced group', '(admin', /does not compile: missing closing \)/],
    ['an overlong expression', 'a'.repeat(5000), /at most 4096/],
  ])('refuses %s', (_what, expression, problem) => {
    expect(expressionProblem('match', expression)).toMatch(problem);
  });

  it('other operators take any text', () => {
    expect(expressionProblem('contains', '(?<=x')).toBeUndefined();
  });

  it('(?i)union\\s+select compiles and matches case-insensitively, anywhere in the value', () => {
    const compiled = compileExpression('(?i)union\\s+select');
    if (!('regex' in compiled)) throw new Error(compiled.problem);
    expect(compiled.regex.test('id=1 UNION\t SeLeCt password')).toBe(true);
    expect(compiled.regex.test('id=1 union-select')).toBe(false);
  });
});
