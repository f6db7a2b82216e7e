/**
 * Test cases run against rules: pass, fail with the closest rule, error when a rule wafctl cannot
 * evaluate could decide (docs/rule-tests.md).
 */
import { describe, expect, it } from 'vitest';
import { type CaseResult, compileRules } from '../../../src/core/rules/evaluate.js';
import type {
  CatalogExtensions,
  EvalRule,
  TestExpectation,
  TestRequest,
} from '../../../src/core/rules/types.js';
import { HOST, rule, testCase } from './builders.js';

const EU_BLOCK = { firewall_action: 'block', firewall_name: 'waf-eu-1' };
const US_BLOCK = { firewall_action: 'BLOCK', firewall_name: 'waf-us-1' };
const US_LOG = { firewall_action: 'log', firewall_name: 'waf-us-1' };
const ADMIN = { path: '/admin/login' };
const EXTRA: CatalogExtensions = { extraTargets: ['request_cookie:*'], extraOperators: ['regex_i'] };

interface Row {
  what: string;
  rules: EvalRule[];
  expect: TestExpectation;
  request?: Partial<TestRequest>;
  /** The fields of the result that the row is about. */
  result: Partial<CaseResult>;
}

const run = (row: Row) => compileRules(row.rules, EXTRA).run(testCase(row.expect, row.request));

const passing: Row[] = [
  {
    what: 'pass: the reason names the action, the rule and its firewalls',
    rules: [rule({ actions: [EU_BLOCK, US_BLOCK] })],
    expect: { action: 'block' },
    request: ADMIN,
    result: {
      status: 'pass',
      actual: { action: 'block', rule: `${HOST}/Block admin` },
      reason: `block by ${HOST}/Block admin (waf-eu-1, waf-us-1)`,
    },
  },
  {
    what: 'actions compare ignoring case',
    rules: [rule({ actions: [US_BLOCK] })],
    expect: { action: 'block', rule: `${HOST}/Block admin` },
    request: ADMIN,
    result: {
      status: 'pass',
      actual: { action: 'BLOCK', rule: `${HOST}/Block admin`, firewall: 'waf-us-1' },
    },
  },
  {
    what: 'none: no rule applies',
    rules: [rule()],
    expect: { action: 'None' },
    request: { path: '/shop' },
    result: { status: 'pass', actual: { action: 'none' }, reason: 'no rule applies' },
  },
  {
    what: 'expect.firewall: that firewall’s action',
    rules: [rule({ actions: [EU_BLOCK, US_LOG] })],
    expect: { action: 'log', firewall: 'waf-us-1' },
    request: ADMIN,
    result: { status: 'pass', actual: { action: 'log', rule: `${HOST}/Block admin`, firewall: 'waf-us-1' } },
  },
];

const failing: Row[] = [
  {
    what: 'actions that differ per firewall fail without expect.firewall',
    rules: [rule({ actions: [EU_BLOCK, US_LOG] })],
    expect: { action: 'block' },
    request: ADMIN,
    result: {
      status: 'fail',
      reason: `the outcome differs per firewall (${HOST}/Block admin: block on waf-eu-1, log on waf-us-1): set expect.firewall`,
    },
  },
  {
    what: 'another action: expected and got, and the closest rule',
    rules: [
      rule({
        description: 'Log all',
        priority: 'low',
        conditions: [{ expressions: ['.'] }],
        actions: [US_LOG],
      }),
      rule(),
    ],
    expect: { action: 'block' },
    request: { path: '/admin' },
    result: {
      status: 'fail',
      reason: `expected block, got log by ${HOST}/Log all (waf-us-1)`,
      closest: {
        rule: `${HOST}/Block admin`,
        condition: 0,
        why: 'conditions[0]: no value of path matches "^/admin/" (path is "/admin")',
      },
    },
  },
  {
    what: 'no rule applies: none, and the closest rule',
    rules: [rule()],
    expect: { action: 'block', firewall: 'waf-eu-1' },
    request: { path: '/admin' },
    result: {
      status: 'fail',
      reason: 'expected block on waf-eu-1, got none: no rule with an action on waf-eu-1 applies',
    },
  },
  {
    what: 'another rule than the expected one',
    rules: [rule({ description: 'A' }), rule({ description: 'B', priority: 'low' })],
    expect: { action: 'block', rule: `${HOST}/B` },
    request: ADMIN,
    result: {
      status: 'fail',
      reason: `expected block by ${HOST}/B, got block by ${HOST}/A (waf-eu-1)`,
      closest: {
        rule: `${HOST}/B`,
        condition: -1,
        why: `it applies, but ${HOST}/A decides first (priority high before low)`,
      },
    },
  },
  {
    what: 'an expected rule that does not exist is named',
    rules: [rule()],
    expect: { action: 'block', rule: `${HOST}/Nope` },
    request: ADMIN,
    result: {
      reason: `expected block by ${HOST}/Nope (no rule has the key "${HOST}/Nope"), got block by ${HOST}/Block admin (waf-eu-1)`,
      closest: undefined,
    },
  },
  {
    what: 'expecting none: no closest rule (the reason names the one that applied)',
    rules: [rule()],
    expect: { action: 'none' },
    request: ADMIN,
    result: {
      status: 'fail',
      reason: `expected none, got block by ${HOST}/Block admin (waf-eu-1)`,
      closest: undefined,
    },
  },
];

const closest: Row[] = [
  {
    what: 'closest: a disabled rule, condition -1',
    rules: [rule({ enabled: false })],
    expect: { action: 'block' },
    request: ADMIN,
    result: { closest: { rule: `${HOST}/Block admin`, condition: -1, why: 'disabled' } },
  },
  {
    what: 'closest: a rule of another host',
    rules: [rule({ rq_host: 'api.example.com' })],
    expect: { action: 'block' },
    request: ADMIN,
    result: {
      closest: {
        rule: 'api.example.com/Block admin',
        condition: -1,
        why: `rq_host "api.example.com" does not match host "${HOST}"`,
      },
    },
  },
  {
    what: 'closest: a form field when the body is not form-encoded',
    rules: [
      rule({
        conditions: [
          {
            operator: 'contains',
            expressions: ['or 1=1'],
            targets: ['request_body:x-www-form-urlencoded:password'],
          },
        ],
      }),
    ],
    expect: { action: 'block' },
    request: { body: "password=' or 1=1" },
    result: {
      closest: {
        rule: `${HOST}/Block admin`,
        condition: 0,
        why: 'conditions[0]: no value of request_body:x-www-form-urlencoded:password contains "or 1=1" (the Content-Type is not application/x-www-form-urlencoded)',
      },
    },
  },
  {
    what: 'closest: not_op, naming the value that matched',
    rules: [
      rule({
        conditions: [
          {},
          { operator: 'contains', not_op: true, expressions: ['curl'], targets: ['request:user-agent'] },
        ],
      }),
    ],
    expect: { action: 'block' },
    request: { ...ADMIN, headers: { 'User-Agent': 'curl/8.4' } },
    result: {
      closest: {
        rule: `${HOST}/Block admin`,
        condition: 1,
        why: 'conditions[1]: request:user-agent contains "curl" and not_op is true (request:user-agent is "curl/8.4")',
      },
    },
  },
  {
    what: 'closest: the rule of the host with the most matching conditions',
    rules: [
      rule({ description: 'one of two', conditions: [{}, { expressions: ['^POST$'], targets: ['method'] }] }),
      rule({ description: 'none of one', conditions: [{ expressions: ['^/x'] }] }),
      rule({ description: 'other host', rq_host: 'api.example.com', conditions: [{ expressions: ['.'] }] }),
      rule({ description: 'wrong action', actions: [US_LOG], conditions: [{ expressions: ['^/nope'] }] }),
    ],
    expect: { action: 'block' },
    request: ADMIN,
    result: {
      closest: {
        rule: `${HOST}/one of two`,
        condition: 1,
        why: 'conditions[1]: no value of method matches "^POST$" (method is "GET")',
      },
    },
  },
  {
    what: 'closest: an absent header',
    rules: [rule({ conditions: [{ expressions: ['^k'], targets: ['request:x-api-key', 'query'] }] })],
    expect: { action: 'block' },
    result: {
      closest: {
        rule: `${HOST}/Block admin`,
        condition: 0,
        why: 'conditions[0]: no value of request:x-api-key or query matches "^k" (request:x-api-key is absent; query is "")',
      },
    },
  },
];

const EXTRA_TARGET = { expressions: ['x'], targets: ['request_cookie:session'] };
const unevaluable: Row[] = [
  {
    what: 'a target known only through settings.extra_targets, before the deciding rule: error',
    rules: [rule({ description: 'cookie', conditions: [EXTRA_TARGET] }), rule({ priority: 'low' })],
    expect: { action: 'block' },
    request: ADMIN,
    result: {
      status: 'error',
      actual: undefined,
      reason: `${HOST}/cookie could decide this request, but wafctl cannot evaluate it: conditions[0] cannot be evaluated: target "request_cookie:session" comes from settings.extra_targets: wafctl does not know its values`,
    },
  },
  {
    what: 'an operator known only through settings.extra_operators: error',
    rules: [rule({ conditions: [{ operator: 'regex_i' }] })],
    expect: { action: 'block' },
    request: ADMIN,
    result: {
      status: 'error',
      reason: `${HOST}/Block admin could decide this request, but wafctl cannot evaluate it: conditions[0] cannot be evaluated: operator "regex_i" comes from settings.extra_operators: wafctl cannot evaluate it`,
    },
  },
  {
    what: 'an expression RE2 refuses (a live rule): error naming why',
    rules: [rule({ conditions: [{ expressions: ['(?<=/)admin'] }] })],
    expect: { action: 'block' },
    request: ADMIN,
    result: { status: 'error' },
  },
  {
    what: 'an unknown operator (not even an extension): error with the closest name',
    rules: [rule({ conditions: [{ operator: 'contain' }] })],
    expect: { action: 'block' },
    request: ADMIN,
    result: {
      status: 'error',
      reason: `${HOST}/Block admin could decide this request, but wafctl cannot evaluate it: conditions[0] cannot be evaluated: unknown operator "contain" (did you mean "contains"?)`,
    },
  },
  {
    what: 'another condition of that rule fails: it cannot decide, no error',
    rules: [rule({ conditions: [EXTRA_TARGET, { expressions: ['^/nope'] }] })],
    expect: { action: 'none' },
    request: ADMIN,
    result: { status: 'pass' },
  },
  {
    what: 'a known target of the condition matches: the condition is decided, the rule applies',
    rules: [
      rule({ conditions: [{ expressions: ['^/admin/', 'x'], targets: ['request_cookie:session', 'path'] }] }),
    ],
    expect: { action: 'block' },
    request: ADMIN,
    result: { status: 'pass' },
  },
  {
    what: 'a bad expression but no value to test it on: no error',
    rules: [rule({ conditions: [{ expressions: ['(a)\\1'], targets: ['request:x-absent'] }] })],
    expect: { action: 'none' },
    result: { status: 'pass' },
  },
  {
    what: 'after the deciding rule: no error',
    rules: [rule({ description: 'cookie', priority: 'low', conditions: [EXTRA_TARGET] }), rule()],
    expect: { action: 'block' },
    request: ADMIN,
    result: { status: 'pass' },
  },
  {
    what: 'disabled: no error',
    rules: [rule({ enabled: false, conditions: [EXTRA_TARGET] })],
    expect: { action: 'none' },
    result: { status: 'pass' },
  },
  {
    what: 'on another host: no error',
    rules: [rule({ rq_host: 'api.example.com', conditions: [EXTRA_TARGET] })],
    expect: { action: 'none' },
    result: { status: 'pass' },
  },
  {
    what: 'no action on the expected firewall: no error',
    rules: [rule({ conditions: [EXTRA_TARGET] }), rule({ description: 'us', actions: [US_LOG] })],
    expect: { action: 'log', firewall: 'waf-us-1' },
    request: ADMIN,
    result: { status: 'pass' },
  },
];

describe('run: a test case against the rules', () => {
  it.each([...passing, ...failing, ...closest, ...unevaluable].map((row) => [row.what, row] as const))(
    '%s',
    (_what, row) => {
      const result = run(row);
      for (const [field, value] of Object.entries(row.result)) {
        expect(result[field as keyof CaseResult], field).toEqual(value);
      }
    },
  );

  it('the RE2 refusal is named in the error', () => {
    const result = run(unevaluable[2] as Row);
    expect(result.reason).toMatch(
      /conditions\[0\] cannot be evaluated: expression "\(\?<=\/\)admin": .*RE2 has no lookahead or lookbehind/,
    );
  });

  it('decide passes over a rule it cannot evaluate and answers with the rules it can', () => {
    const rules = [
      rule({ description: 'cookie', conditions: [EXTRA_TARGET] }),
      rule({ priority: 'low', actions: [US_LOG] }),
    ];
    const set = compileRules(rules, EXTRA);
    expect(set.size).toBe(2);
    expect(set.decide(testCase({ action: 'x' }, ADMIN).request)).toEqual({
      action: 'log',
      rule: `${HOST}/Block admin`,
      firewall: 'waf-us-1',
    });
  });
});
