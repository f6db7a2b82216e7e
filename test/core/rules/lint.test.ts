/** The lint of application rules (docs/rule-tests.md, "Lint"): one row per warning and per look-alike that is not one. */
import { describe, expect, it } from 'vitest';
import { lintRules, type RuleLint } from '../../../src/core/rules/lint.js';
import type { EvalRule } from '../../../src/core/rules/types.js';
import { HOST, rule } from './builders.js';

const isBlocking = (action: string) => ['block', 'deny'].includes(action.toLowerCase());
const LOG = { firewall_action: 'log', firewall_name: 'waf-eu-1' };
const US = { firewall_action: 'block', firewall_name: 'waf-us-1' };
const EU = { firewall_action: 'block', firewall_name: 'waf-eu-1' };
const TWO = [
  { operator: 'match', expressions: ['^/a', '^/b'], targets: ['path', 'query'] },
  { operator: 'contains', expressions: ['x'], targets: ['request:User-Agent'] },
];
const TWO_REORDERED = [
  { operator: 'contains', expressions: ['x', 'x'], targets: ['request:user-agent'] },
  { operator: 'match', expressions: ['^/b', '^/a'], targets: ['query', 'path'] },
];

const rows: [string, EvalRule[], Partial<RuleLint>[]][] = [
  [
    'shadowed: same host and conditions (as sets), strictly higher priority',
    [
      rule({ description: 'A', priority: 'high', conditions: TWO }),
      rule({ description: 'B', priority: 'low', conditions: TWO_REORDERED, actions: [LOG] }),
    ],
    [
      {
        code: 'shadowed',
        rule: `${HOST}/B`,
        other: `${HOST}/A`,
        message: `shadowed by ${HOST}/A (same host and conditions, higher priority): it can never decide`,
      },
    ],
  ],
  [
    'shadowed: rq_host compared ignoring case',
    [
      rule({ description: 'A', rq_host: 'SHOP.example.com' }),
      rule({ description: 'B', priority: '5', actions: [LOG] }),
    ],
    [{ code: 'shadowed', rule: `${HOST}/B`, other: 'SHOP.example.com/A' }],
  ],
  [
    'shadowed: a disabled rule can be shadowed',
    [rule({ description: 'A' }), rule({ description: 'B', priority: 'low', enabled: false, actions: [LOG] })],
    [{ code: 'shadowed', rule: `${HOST}/B` }],
  ],
  [
    'shadowed: on every firewall B acts on, by two rules',
    [
      rule({ description: 'A' }),
      rule({ description: 'C', priority: 'medium', actions: [US] }),
      rule({ description: 'B', priority: 'low', actions: [EU, { ...LOG, firewall_name: 'waf-us-1' }] }),
    ],
    [
      {
        code: 'shadowed',
        rule: `${HOST}/B`,
        other: `${HOST}/A`,
        message: `shadowed by ${HOST}/A, ${HOST}/C (same host and conditions, higher priority): it can never decide`,
      },
    ],
  ],
  [
    'not shadowed: another host',
    [
      rule({ description: 'A' }),
      rule({ description: 'B', rq_host: 'api.example.com', priority: 'low', actions: [LOG] }),
    ],
    [],
  ],
  [
    'not shadowed: other conditions',
    [
      rule({ description: 'A' }),
      rule({ description: 'B', priority: 'low', conditions: [{ expressions: ['^/admin'] }], actions: [LOG] }),
    ],
    [],
  ],
  [
    'not shadowed: not_op differs',
    [
      rule({ description: 'A' }),
      rule({ description: 'B', priority: 'low', conditions: [{ not_op: true }], actions: [LOG] }),
    ],
    [],
  ],
  [
    'not shadowed: the higher rule is disabled',
    [rule({ description: 'A', enabled: false }), rule({ description: 'B', priority: 'low', actions: [LOG] })],
    [],
  ],
  [
    'not shadowed: the same priority (the vendor does not say how ties go)',
    [rule({ description: 'A' }), rule({ description: 'B', actions: [LOG] })],
    [],
  ],
  [
    'not shadowed: the higher rule acts on another firewall',
    [rule({ description: 'A' }), rule({ description: 'B', priority: 'low', actions: [US] })],
    [],
  ],
  [
    'identical: same host, conditions and actions (as sets), reported on the later key',
    [
      rule({ description: 'B', conditions: TWO, actions: [US, EU] }),
      rule({
        description: 'A',
        conditions: TWO_REORDERED,
        actions: [EU, { ...US, firewall_action: 'BLOCK' }],
      }),
    ],
    [
      {
        code: 'identical',
        rule: `${HOST}/B`,
        other: `${HOST}/A`,
        message: `identical to ${HOST}/A (same host, conditions and actions): one of them can go`,
      },
    ],
  ],
  [
    'identical and of lower priority: identical only',
    [rule({ description: 'A' }), rule({ description: 'B', priority: 'low' })],
    [{ code: 'identical', rule: `${HOST}/B`, other: `${HOST}/A` }],
  ],
  [
    'identical, three of them: each later one names the first',
    [rule({ description: 'C' }), rule({ description: 'A' }), rule({ description: 'B' })],
    [
      { code: 'identical', rule: `${HOST}/C`, other: `${HOST}/A` },
      { code: 'identical', rule: `${HOST}/B`, other: `${HOST}/A` },
    ],
  ],
  [
    'not identical: other actions, same priority',
    [rule({ description: 'A' }), rule({ description: 'B', actions: [LOG] })],
    [],
  ],
  [
    'matches_empty: a blocking rule whose match expression matches ""',
    [
      rule({
        conditions: [{ expressions: ['^/x'] }, { expressions: ['^/admin', 'a*'], targets: ['query'] }],
      }),
    ],
    [
      {
        code: 'matches_empty',
        rule: `${HOST}/Block admin`,
        condition: 1,
        expression: 1,
        message:
          'conditions[1].expressions[1] "a*" matches the empty string, so it matches every request that has a value of query, and the rule blocks',
      },
    ],
  ],
  [
    'matches_empty: not with not_op true',
    [rule({ conditions: [{ not_op: true, expressions: ['.*'] }] })],
    [],
  ],
  [
    'matches_empty: not for a rule that does not block',
    [rule({ conditions: [{ expressions: ['.*'] }], actions: [LOG] })],
    [],
  ],
  [
    'matches_empty: not for other operators',
    [rule({ conditions: [{ operator: 'contains', expressions: [''] }] })],
    [],
  ],
  [
    'matches_empty: not for an expression that does not compile',
    [rule({ conditions: [{ expressions: ['(?=x)?'] }] })],
    [],
  ],
];

describe('lintRules', () => {
  it.each(rows)('%s', (_what, rules, lints) => {
    const found = lintRules(rules, isBlocking);
    expect(found).toHaveLength(lints.length);
    for (const [i, lint] of lints.entries()) expect(found[i]).toMatchObject(lint);
  });

  it('stays near-linear: 20,000 rules on one host, all identical conditions, each priority distinct', () => {
    const rules = Array.from({ length: 20_000 }, (_, i) =>
      rule({
        description: `r${String(i).padStart(5, '0')}`,
        priority: String(i),
        actions: [i % 2 === 0 ? EU : LOG],
      }),
    );
    const found = lintRules(rules, isBlocking);
    // r00000 blocks on waf-eu-1 first: every later rule on waf-eu-1 is shadowed; r00002.. are identical to r00000.
    expect(found.filter((lint) => lint.code === 'identical')).toHaveLength(19_998);
    expect(found.filter((lint) => lint.code === 'shadowed')).toHaveLength(1);
    expect(found.find((lint) => lint.code === 'shadowed')).toMatchObject({
      rule: `${HOST}/r00001`,
      other: `${HOST}/r00000`,
    });
  });
});
