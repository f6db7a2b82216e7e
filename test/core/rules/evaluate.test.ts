/**
 * The evaluator, one row per semantic rule of docs/rule-tests.md ("How wafctl evaluates a request").
 * Each row names its source: the vendor's Application Rules page (APP), the contract (CONTRACT), or
 * wafctl's own assumption where the vendor is silent (ASSUMED).
 */
import { describe, expect, it } from 'vitest';
import { comparePriority, compileRules } from '../../../src/core/rules/evaluate.js';
import type { EvalCondition, EvalRule, TestRequest } from '../../../src/core/rules/types.js';
import { HOST, type RuleFields, request, rule } from './builders.js';

type Source = 'APP' | 'CONTRACT' | 'ASSUMED';
interface Row {
  what: string;
  source: Source;
  rules: EvalRule[];
  request?: Partial<TestRequest>;
  firewall?: string;
  /** The action and, when a rule decides, its description. */
  action: string;
  by?: string;
}

const when = (fields: Partial<EvalCondition>) => rule({ conditions: [fields] });
const named = (description: string, priority: string, fields: RuleFields = {}) =>
  rule({ description, priority, ...fields });
const EU = { firewall_action: 'block', firewall_name: 'waf-eu-1' };
const US_LOG = { firewall_action: 'log', firewall_name: 'waf-us-1' };

const operators: Row[] = [
  {
    what: 'match searches, unanchored',
    source: 'CONTRACT',
    rules: [when({ expressions: ['admin'] })],
    request: { path: '/x/admin/y' },
    action: 'block',
  },
  {
    what: 'match is case-sensitive',
    source: 'CONTRACT',
    rules: [when({ expressions: ['^/Admin'] })],
    request: { path: '/admin/' },
    action: 'none',
  },
  {
    what: 'match: (?i) makes it case-insensitive',
    source: 'CONTRACT',
    rules: [when({ expressions: ['(?i)union\\s+select'], targets: ['query'] })],
    request: { query: 'q=1 UNION   Select 2' },
    action: 'block',
  },
  {
    what: 'equals: the whole value',
    source: 'ASSUMED',
    rules: [when({ operator: 'equals', expressions: ['/admin'] })],
    request: { path: '/admin/' },
    action: 'none',
  },
  {
    what: 'equals: an equal value',
    source: 'ASSUMED',
    rules: [when({ operator: 'equals', expressions: ['/admin'] })],
    request: { path: '/admin' },
    action: 'block',
  },
  {
    what: 'contains: a substring',
    source: 'ASSUMED',
    rules: [when({ operator: 'contains', expressions: ['sqlmap'], targets: ['request:user-agent'] })],
    request: { headers: { 'User-Agent': 'x sqlmap/1.7' } },
    action: 'block',
  },
  {
    what: 'contains is case-sensitive',
    source: 'ASSUMED',
    rules: [when({ operator: 'contains', expressions: ['sqlmap'], targets: ['request:user-agent'] })],
    request: { headers: { 'User-Agent': 'SQLMap' } },
    action: 'none',
  },
  {
    what: 'some expression of some value of some target',
    source: 'CONTRACT',
    rules: [when({ expressions: ['^/nope', 'evil'], targets: ['path', 'query'] })],
    request: { query: 'a=evil' },
    action: 'block',
  },
  {
    what: 'not_op inverts the condition',
    source: 'CONTRACT',
    rules: [
      when({ operator: 'contains', not_op: true, expressions: ['curl'], targets: ['request:user-agent'] }),
    ],
    request: { headers: { 'User-Agent': 'Mozilla' } },
    action: 'block',
  },
  {
    what: 'not_op: a match means the condition fails',
    source: 'CONTRACT',
    rules: [
      when({ operator: 'contains', not_op: true, expressions: ['curl'], targets: ['request:user-agent'] }),
    ],
    request: { headers: { 'User-Agent': 'curl/8' } },
    action: 'none',
  },
  {
    what: 'an absent value matches nothing, even .*',
    source: 'ASSUMED',
    rules: [when({ expressions: ['.*'], targets: ['request:x-api-key'] })],
    action: 'none',
  },
  {
    what: 'an absent value with not_op: the condition matches',
    source: 'ASSUMED',
    rules: [when({ not_op: true, expressions: ['.*'], targets: ['request:x-api-key'] })],
    action: 'block',
  },
  {
    what: 'a form field of a body that is not form-encoded: no value',
    source: 'ASSUMED',
    rules: [
      when({
        operator: 'contains',
        expressions: ['or 1=1'],
        targets: ['request_body:x-www-form-urlencoded:password'],
      }),
    ],
    request: { body: "password=' or 1=1" },
    action: 'none',
  },
];

const rulesAndHosts: Row[] = [
  {
    what: 'every condition must match',
    source: 'CONTRACT',
    rules: [rule({ conditions: [{}, { expressions: ['^POST$'], targets: ['method'] }] })],
    request: { path: '/admin/x' },
    action: 'none',
  },
  {
    what: 'every condition matching: the rule applies',
    source: 'CONTRACT',
    rules: [rule({ conditions: [{}, { expressions: ['^POST$'], targets: ['method'] }] })],
    request: { path: '/admin/x', method: 'POST' },
    action: 'block',
  },
  {
    what: 'a rule without conditions applies to every request of its host',
    source: 'ASSUMED',
    rules: [rule({ conditions: [] })],
    action: 'block',
  },
  {
    what: 'a disabled rule never applies (the Status field)',
    source: 'APP',
    rules: [rule({ enabled: false })],
    request: { path: '/admin/x' },
    action: 'none',
  },
  {
    what: 'a rule without actions never decides',
    source: 'ASSUMED',
    rules: [named('no action', 'high', { actions: [] }), named('log', 'low', { actions: [US_LOG] })],
    request: { path: '/admin/x' },
    action: 'log',
    by: 'log',
  },
  {
    what: 'rq_host is compared ignoring case',
    source: 'CONTRACT',
    rules: [rule({ rq_host: 'SHOP.Example.com' })],
    request: { host: 'shop.EXAMPLE.com', path: '/admin/x' },
    action: 'block',
  },
  {
    what: 'another host: the rule does not apply',
    source: 'CONTRACT',
    rules: [rule({ rq_host: 'api.example.com' })],
    request: { path: '/admin/x' },
    action: 'none',
  },
  {
    what: '* matches any run of characters, dots included',
    source: 'CONTRACT',
    rules: [rule({ rq_host: '*.example.com' })],
    request: { host: 'a.b.example.com', path: '/admin/x' },
    action: 'block',
  },
  {
    what: '*.example.com does not match example.com',
    source: 'CONTRACT',
    rules: [rule({ rq_host: '*.example.com' })],
    request: { host: 'example.com', path: '/admin/x' },
    action: 'none',
  },
  {
    what: '? matches one character',
    source: 'ASSUMED',
    rules: [rule({ rq_host: 'shop?.example.com' })],
    request: { host: 'shop1.example.com', path: '/admin/x' },
    action: 'block',
  },
  {
    what: '? matches exactly one character',
    source: 'ASSUMED',
    rules: [rule({ rq_host: 'shop?.example.com' })],
    request: { host: 'shop12.example.com', path: '/admin/x' },
    action: 'none',
  },
  {
    what: 'a port is compared as text',
    source: 'ASSUMED',
    rules: [rule()],
    request: { host: `${HOST}:8443`, path: '/admin/x' },
    action: 'none',
  },
  {
    what: 'a port matched by a glob',
    source: 'ASSUMED',
    rules: [rule({ rq_host: `${HOST}:*` })],
    request: { host: `${HOST}:8443`, path: '/admin/x' },
    action: 'block',
  },
];

const ALL = { expressions: ['.'] };
const priorities: Row[] = [
  {
    what: 'high before low, whatever the order of the list',
    source: 'CONTRACT',
    rules: [
      named('b low', 'low', { conditions: [ALL], actions: [US_LOG] }),
      named('a high', 'high', { conditions: [ALL] }),
    ],
    action: 'block',
    by: 'a high',
  },
  {
    what: 'names ignoring case: HIGH before medium',
    source: 'ASSUMED',
    rules: [
      named('a medium', 'medium', { conditions: [ALL], actions: [US_LOG] }),
      named('b high', 'HIGH', { conditions: [ALL] }),
    ],
    action: 'block',
    by: 'b high',
  },
  {
    what: 'numbers ascending: 2 before 10 (not text order)',
    source: 'APP',
    rules: [
      named('a ten', '10', { conditions: [ALL], actions: [US_LOG] }),
      named('b two', '2', { conditions: [ALL] }),
    ],
    action: 'block',
    by: 'b two',
  },
  {
    what: 'named levels before numbers: low before 1',
    source: 'ASSUMED',
    rules: [
      named('a one', '1', { conditions: [ALL], actions: [US_LOG] }),
      named('b low', 'low', { conditions: [ALL] }),
    ],
    action: 'block',
    by: 'b low',
  },
  {
    what: 'ties: the rule key decides',
    source: 'ASSUMED',
    rules: [
      named('b second', 'high', { conditions: [ALL], actions: [US_LOG] }),
      named('a first', 'high', { conditions: [ALL] }),
    ],
    action: 'block',
    by: 'a first',
  },
  {
    what: 'a glob rule of higher priority before an exact one',
    source: 'CONTRACT',
    rules: [
      named('a exact', 'low', { conditions: [ALL], actions: [US_LOG] }),
      named('b glob', 'high', { rq_host: '*.example.com', conditions: [ALL] }),
    ],
    action: 'block',
    by: 'b glob',
  },
  {
    what: 'an exact rule of higher priority before a glob one',
    source: 'CONTRACT',
    rules: [
      named('a glob', 'low', { rq_host: '*.example.com', conditions: [ALL], actions: [US_LOG] }),
      named('b exact', 'medium', { conditions: [ALL] }),
    ],
    action: 'block',
    by: 'b exact',
  },
  {
    what: 'a higher rule that does not apply leaves the decision to the next',
    source: 'CONTRACT',
    rules: [named('a high', 'high'), named('b low', 'low', { conditions: [ALL], actions: [US_LOG] })],
    action: 'log',
    by: 'b low',
  },
];

const firewalls: Row[] = [
  {
    what: 'a firewall considers only the rules with an action on it',
    source: 'ASSUMED',
    rules: [
      named('a eu', 'high', { conditions: [ALL] }),
      named('b us', 'low', { conditions: [ALL], actions: [US_LOG] }),
    ],
    firewall: 'waf-us-1',
    action: 'log',
    by: 'b us',
  },
  {
    what: 'the same request on the other firewall',
    source: 'ASSUMED',
    rules: [
      named('a eu', 'high', { conditions: [ALL] }),
      named('b us', 'low', { conditions: [ALL], actions: [US_LOG] }),
    ],
    firewall: 'waf-eu-1',
    action: 'block',
    by: 'a eu',
  },
  {
    what: 'a firewall no rule acts on: none',
    source: 'ASSUMED',
    rules: [rule({ conditions: [ALL] })],
    firewall: 'waf-ap-1',
    action: 'none',
  },
  {
    what: 'a rule acting differently per firewall: that firewall’s action',
    source: 'ASSUMED',
    rules: [rule({ conditions: [ALL], actions: [EU, US_LOG] })],
    firewall: 'waf-us-1',
    action: 'log',
    by: 'Block admin',
  },
];

describe('how wafctl evaluates a request: decide', () => {
  it.each(
    [...operators, ...rulesAndHosts, ...priorities, ...firewalls].map(
      (row) => [`${row.what} (${row.source})`, row] as const,
    ),
  )('%s', (_what, row) => {
    const outcome = compileRules(row.rules).decide(request(row.request), row.firewall);
    expect(outcome.action).toBe(row.action);
    const decider = row.by === undefined ? row.rules[0] : row.rules.find((r) => r.key.endsWith(`/${row.by}`));
    expect(outcome.rule).toBe(row.action === 'none' ? undefined : decider?.key);
  });
});

describe('comparePriority', () => {
  const order = ['high', 'Medium', 'LOW', '-1', '0', '2', '10', '10.5', 'critical', 'urgent'];
  it('sorts high, medium, low, then numbers ascending, then other names alphabetically', () => {
    const shuffled = [...order].reverse();
    expect(shuffled.sort(comparePriority)).toEqual(order);
  });
  it.each([
    ['high', 'HIGH'],
    ['1', '01'],
    ['1', '1.0'],
  ])('%s and %s tie (the rule key decides)', (a, b) => {
    expect(comparePriority(a, b)).toBe(0);
  });
});
