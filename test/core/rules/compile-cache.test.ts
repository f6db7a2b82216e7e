/**
 * A rule set compiles each distinct `match` expression at most once, on first use, however many rules
 * share it and however many requests are decided: compileExpression is counted through a module mock.
 */
import { describe, expect, it, vi } from 'vitest';
import { compileRules } from '../../../src/core/rules/evaluate.js';
import { request, rule } from './builders.js';

const compiles = vi.hoisted(() => ({ count: 0 }));
vi.mock('../../../src/core/rules/catalog.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../../src/core/rules/catalog.js')>();
  return {
    ...original,
    compileExpression: (expression: string) => {
      compiles.count++;
      return original.compileExpression(expression);
    },
  };
});

describe('the expression cache', () => {
  const expressions = ['^/admin/', '(?i)union\\s+select', '\\.php$'];
  const rules = Array.from({ length: 60 }, (_, i) =>
    rule({
      description: `rule ${i}`,
      rq_host: `app-${i % 7}.example.com`,
      conditions: [
        { expressions: [expressions[i % 3] as string, expressions[(i + 1) % 3] as string] },
        { operator: 'contains', expressions: ['^/admin/'], targets: ['query'] },
      ],
    }),
  );

  it('compiles each distinct match expression once, however many rules and requests use it', () => {
    compiles.count = 0;
    const set = compileRules(rules);
    const decideAll = (path: (i: number) => string) => {
      for (let i = 0; i < 50; i++) set.decide(request({ host: `app-${i % 7}.example.com`, path: path(i) }));
    };
    decideAll((i) => `/x/${i}.php`); // ^/admin/ is never needed: no value starts with /admin/
    expect(compiles.count).toBe(2);
    decideAll((i) => `/admin/${i}.php`);
    expect(compiles.count).toBe(3);
    decideAll((i) => `/admin/${i}/x`);
    expect(compiles.count).toBe(3);
  });

  it('compiles nothing for values that lack the literal text an expression starts with', () => {
    compiles.count = 0;
    const set = compileRules(rules);
    expect(set.decide(request({ host: 'app-1.example.com', path: '/shop' })).action).toBe('none');
    // Only (?i)union\s+select has no literal text to check first.
    expect(compiles.count).toBe(1);
  });

  it('a second rule set compiles again (the cache belongs to one rule set)', () => {
    compiles.count = 0;
    compileRules([rule()]).decide(request({ path: '/admin/x' }));
    compileRules([rule()]).decide(request({ path: '/admin/x' }));
    expect(compiles.count).toBe(2);
  });
});
