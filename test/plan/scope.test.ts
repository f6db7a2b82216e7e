import { describe, expect, it } from 'vitest';
import { globToRegExp, inScope, type ManageScope } from '../../src/plan/scope.js';

const matchesGlob = (glob: string, value: string) => globToRegExp(glob).test(value);
const within = (scope: ManageScope, fields: Record<string, unknown>) => inScope(fields, scope);

describe('manage.match globs', () => {
  it('* matches any run (dots included), ? one character, the rest literally', () => {
    expect(matchesGlob('*.example.com', 'shop.example.com')).toBe(true);
    expect(matchesGlob('*.example.com', 'a.b.example.com')).toBe(true);
    expect(matchesGlob('*.example.com', 'example.com')).toBe(false);
    expect(matchesGlob('*.example.com', 'shop.example.com.evil')).toBe(false);
    expect(matchesGlob('waf-??-1', 'waf-eu-1')).toBe(true);
    expect(matchesGlob('a.c', 'abc')).toBe(false);
    expect(matchesGlob('(x)+[y]', '(x)+[y]')).toBe(true);
    expect(matchesGlob('Shop', 'shop')).toBe(false);
  });

  it('an empty match is everything; otherwise every listed field must match one of its globs', () => {
    expect(within({ prune: true, match: {} }, { name: 'anything' })).toBe(true);
    const scope = { prune: true, match: { rq_host: ['*.example.com', 'example.com'], priority: ['high'] } };
    expect(within(scope, { rq_host: 'example.com', priority: 'high' })).toBe(true);
    expect(within(scope, { rq_host: 'shop.example.com', priority: 'low' })).toBe(false);
    expect(within(scope, { rq_host: 'shop.example.org', priority: 'high' })).toBe(false);
    expect(within(scope, { priority: 'high' })).toBe(false);
  });
});
