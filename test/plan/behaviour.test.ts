/**
 * The Behaviour section's evaluation (src/plan/behaviour.ts): the configuration's tests on the live
 * rules and on the rules a plan leaves, planned by the real planner.
 */
import { describe, expect, it } from 'vitest';
import type { Attributes, Change, Plan } from '../../src/core/model.js';
import type { RuleTestCase, TestExpectation } from '../../src/core/rules/types.js';
import { NO_EXTENSIONS } from '../../src/core/rules/types.js';
import { applicationRuleKey } from '../../src/kinds/application-rules.js';
import { planBehaviour, rulesAfter } from '../../src/plan/behaviour.js';
import { planChanges } from '../../src/plan/planner.js';

const HOST = 'shop.example.com';

/** A rule of shop.example.com matching `expressions` on the path, acting on waf-eu-1. */
function rule(description: string, priority: string, expressions: string[], action: string): Attributes {
  return {
    rq_host: HOST,
    description,
    priority,
    enabled: true,
    duration: null,
    start_time: null,
    conditions: [{ operator: 'match', not_op: false, expressions, targets: ['path'] }],
    actions: [{ firewall_action: action, firewall_name: 'waf-eu-1' }],
  };
}

const key = (attributes: Attributes) =>
  applicationRuleKey(String(attributes.rq_host), String(attributes.description));

const BLOCK_ADMIN = rule('Block admin', 'high', ['^/admin'], 'block');
const LOG_ALL = rule('Log everything', 'low', ['^/'], 'log');

/** A test sending GET `path` to shop.example.com. */
function test(name: string, path: string, expectation: TestExpectation): RuleTestCase {
  const request = { method: 'GET', host: HOST, path, query: '', headers: {}, body: '', protocol: 'HTTP/1.1' };
  return { name, request, expect: expectation };
}

const live = (rules: Attributes[]) =>
  rules.map((attributes, i) => ({ id: `ar-${i + 1}`, key: key(attributes), attributes }));

/** The plan of `desired` against `remote` (pruning), as `wafctl plan` makes it. */
function planOf(remote: Attributes[], desired: Attributes[]): Plan {
  return planChanges([
    {
      kind: 'application_rule',
      immutable: ['conditions', 'actions'],
      scope: { prune: true, match: {} },
      remote: live(remote),
      desired: desired.map((attributes) => ({
        key: key(attributes),
        attributes,
        protect: false,
        ignoreChanges: [],
      })),
    },
  ]);
}

function behaviourOf(remote: Attributes[], desired: Attributes[], tests: RuleTestCase[], changes?: Change[]) {
  const plan = planOf(remote, desired);
  return planBehaviour({
    live: live(remote),
    changes: changes ?? plan.changes,
    tests,
    extensions: NO_EXTENSIONS,
  });
}

const ADMIN = test('admin panel from outside', '/admin', { action: 'block' });
const SHOP = test('shop front is logged', '/shop', { action: 'log' });

describe('planBehaviour', () => {
  it('lists the test a weakened match flips, and none whose outcome stays (a replace)', () => {
    const weakened = {
      ...BLOCK_ADMIN,
      conditions: [{ ...(BLOCK_ADMIN.conditions as object[])[0], expressions: ['^/admin/'] }],
    };
    expect(planOf([BLOCK_ADMIN, LOG_ALL], [weakened, LOG_ALL]).changes.map((c) => c.action)).toEqual([
      'replace',
    ]);
    const behaviour = behaviourOf([BLOCK_ADMIN, LOG_ALL], [weakened, LOG_ALL], [ADMIN, SHOP]);
    expect(behaviour.tests).toBe(2);
    expect(behaviour.changed).toEqual([
      {
        name: 'admin panel from outside',
        before: { action: 'block', rule: 'shop.example.com/Block admin', firewall: 'waf-eu-1' },
        after: { action: 'log', rule: 'shop.example.com/Log everything', firewall: 'waf-eu-1' },
      },
    ]);
    // It expected block: after the plan it fails, saying what decided instead.
    expect(behaviour.failing).toEqual([
      {
        name: 'admin panel from outside',
        status: 'fail',
        expected: { action: 'block' },
        actual: { action: 'log', rule: 'shop.example.com/Log everything', firewall: 'waf-eu-1' },
        reason: 'expected block, got log by shop.example.com/Log everything (waf-eu-1)',
      },
    ]);
  });

  it.each([
    {
      what: 'a create',
      action: 'create',
      remote: [LOG_ALL],
      desired: [BLOCK_ADMIN, LOG_ALL],
      flip: ['log', 'block'],
    },
    {
      what: 'a delete (prune)',
      action: 'delete',
      remote: [BLOCK_ADMIN, LOG_ALL],
      desired: [LOG_ALL],
      flip: ['block', 'log'],
    },
    {
      what: 'an update (disabled)',
      action: 'update',
      remote: [BLOCK_ADMIN, LOG_ALL],
      desired: [{ ...BLOCK_ADMIN, enabled: false }, LOG_ALL],
      flip: ['block', 'log'],
    },
    {
      what: 'an update (priority: another rule decides first)',
      action: 'update',
      remote: [{ ...BLOCK_ADMIN, priority: 'medium' }, LOG_ALL],
      desired: [
        { ...BLOCK_ADMIN, priority: 'medium' },
        { ...LOG_ALL, priority: 'high' },
      ],
      flip: ['block', 'log'],
    },
  ])('evaluates $what on the rules after the plan', ({ action, remote, desired, flip }) => {
    expect(planOf(remote, desired).changes.map((change) => change.action)).toEqual([action]);
    const behaviour = behaviourOf(remote, desired, [test('admin', '/admin', { action: flip[1] ?? '' })]);
    expect(behaviour.changed.map((test) => [test.before.action, test.after.action])).toEqual([flip]);
    expect(behaviour.failing).toEqual([]);
  });

  it('lists nothing when no outcome changes, and counts the tests', () => {
    const reprioritised = { ...LOG_ALL, priority: 'medium' };
    const behaviour = behaviourOf([BLOCK_ADMIN, LOG_ALL], [BLOCK_ADMIN, reprioritised], [ADMIN, SHOP]);
    expect(behaviour).toEqual({ tests: 2, changed: [], failing: [] });
  });

  it('says a test changes when another rule decides with the same action, ignoring the action case', () => {
    const other = rule('Block admin area', 'high', ['^/admin'], 'BLOCK');
    const behaviour = behaviourOf([BLOCK_ADMIN], [other], [ADMIN]);
    expect(behaviour.changed).toEqual([
      {
        name: 'admin panel from outside',
        before: { action: 'block', rule: 'shop.example.com/Block admin', firewall: 'waf-eu-1' },
        after: { action: 'BLOCK', rule: 'shop.example.com/Block admin area', firewall: 'waf-eu-1' },
      },
    ]);
    const recased = behaviourOf(
      [BLOCK_ADMIN],
      [{ ...BLOCK_ADMIN, actions: [{ firewall_action: 'Block', firewall_name: 'waf-eu-1' }] }],
      [ADMIN],
    );
    expect(recased.changed).toEqual([]);
  });

  it('lists a test that already fails on the live rules as failing after a plan that changes nothing', () => {
    const behaviour = behaviourOf([LOG_ALL], [LOG_ALL], [ADMIN]);
    expect(behaviour.changed).toEqual([]);
    expect(behaviour.failing.map((test) => [test.name, test.status, test.actual?.action])).toEqual([
      ['admin panel from outside', 'fail', 'log'],
    ]);
  });

  it('evaluates only the changes given: a --target plan leaves the rest live', () => {
    const plan = planOf([BLOCK_ADMIN, LOG_ALL], []);
    const onlyTheLog = plan.changes.filter((change) => change.key === 'shop.example.com/Log everything');
    const behaviour = behaviourOf([BLOCK_ADMIN, LOG_ALL], [], [ADMIN, SHOP], onlyTheLog);
    expect(behaviour.changed.map((test) => test.name)).toEqual(['shop front is logged']);
  });

  it('ignores the changes of other kinds', () => {
    const group: Change = {
      kind: 'group',
      key: 'soc',
      action: 'delete',
      id: 'ar-1',
      fingerprint: '',
      fields: [],
      impact: [],
      before: { name: 'soc' },
      after: null,
    };
    expect(behaviourOf([BLOCK_ADMIN], [BLOCK_ADMIN], [ADMIN], [group])).toEqual({
      tests: 1,
      changed: [],
      failing: [],
    });
  });

  it('says a test cannot be evaluated, and why, when a rule that could decide uses an extra operator', () => {
    const extra = {
      ...BLOCK_ADMIN,
      conditions: [{ operator: 'regex_ci', not_op: false, expressions: ['x'], targets: ['path'] }],
    };
    const behaviour = planBehaviour({
      live: live([LOG_ALL]),
      changes: planOf([LOG_ALL], [extra, LOG_ALL]).changes,
      tests: [ADMIN],
      extensions: { extraTargets: [], extraOperators: ['regex_ci'] },
    });
    expect(behaviour.changed).toEqual([]);
    expect(behaviour.failing).toEqual([
      expect.objectContaining({
        name: 'admin panel from outside',
        status: 'error',
        expected: { action: 'block' },
      }),
    ]);
    expect(behaviour.failing[0]).not.toHaveProperty('actual');
    expect(behaviour.failing[0]?.reason).toMatch(
      /^shop\.example\.com\/Block admin could decide this request, but wafctl cannot evaluate it: /,
    );
  });
});

describe('rulesAfter', () => {
  it('removes by id, so that deleting one of two duplicates keeps the other', () => {
    const copy = { ...BLOCK_ADMIN, priority: 'low' };
    const rules = [
      { id: '41', attributes: BLOCK_ADMIN },
      { id: '42', attributes: copy },
    ];
    const remove: Change = {
      kind: 'application_rule',
      key: 'shop.example.com/Block admin',
      action: 'delete',
      id: '41',
      fingerprint: '',
      fields: [],
      impact: [],
      before: BLOCK_ADMIN,
      after: null,
      duplicate_of: '42',
    };
    expect(rulesAfter(rules, [remove])).toEqual([copy]);
  });
});
