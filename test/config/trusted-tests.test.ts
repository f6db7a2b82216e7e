/**
 * Issue 43: with `--trusted-ref`, the rule tests that judge a plan are pinned like the policy. A
 * policy-only load reads `tests:`; the gate runs the trusted ref's cases as it declares them plus the
 * work tree's new ones; each trusted case the work tree removes or changes is a change of trust.
 */
import { describe, expect, it } from 'vitest';
import { formatProblem } from '../../src/config/problems.js';
import { gateTests, trustChanges, withTrustedPolicy } from '../../src/config/trust.js';
import { type LoadedConfig, validateSources } from '../../src/config/validate-sources.js';

/** The configuration of `files`, read whole or, with `policyOnly`, as a trusted ref's policy is. */
function load(files: Record<string, string>, policyOnly = false): LoadedConfig {
  const sources = Object.entries(files).map(([file, text]) => ({ file, text }));
  const result = validateSources(sources, { env: {}, policyOnly });
  if (!result.ok) throw new Error(result.problems.map(formatProblem).join('\n'));
  return result.config;
}

const NEW = `  - name: api is allowed
    request: {host: shop.example.com, path: /api}
    expect: {action: allow}
`;

const names = (config: Pick<LoadedConfig, 'state'>) => config.state.tests.map((test) => test.name);

/** The trust changes of the work tree's `work` files against the trusted ref's `trusted` ones. */
function changes(trusted: Record<string, string>, work: Record<string, string>) {
  const side = (config: LoadedConfig) => ({ environments: [], config });
  return trustChanges(side(load(trusted, true)), side(load(work, true)));
}

describe('a policy-only load (the trusted ref, a saved plan) reads the rule tests', () => {
  it('keeps tests: and drops the objects, which are not validated', () => {
    const config = load(
      { 'a.yaml': `${ruleTestsYaml(ADMIN_CASE)}groups:\n  - {name: soc, bogus: 1}\n` },
      true,
    );
    expect(names(config)).toEqual(['admin panel from outside']);
    expect(config.state.tests[0]?.at).toEqual({ file: 'a.yaml', line: 2, col: 5 });
  });

  it("fails on a test's problem at its place, as on the other policy keys'", () => {
    expect(() => load({ 'a.yaml': 'tests:\n  - name: x\n    request: {host: a.example}\n' }, true)).toThrow(
      'a.yaml:2:5 tests[0]: required field "expect" is missing',
    );
  });
});

describe('gateTests: the trusted cases as the ref declares them, then the new ones', () => {
  const trusted = load({ 'tests.yaml': ruleTestsYaml(ADMIN_CASE, FRONT_CASE) }).state.tests;
  const edited = load({ 'tests.yaml': ruleTestsYaml(ADMIN_CASE.replace('block', 'log'), NEW) }).state.tests;

  it.each([
    [
      'the work tree removes one and adds one',
      edited,
      ['admin panel from outside', 'shop front is logged', 'api is allowed'],
    ],
    ['the work tree has no tests', [], ['admin panel from outside', 'shop front is logged']],
    ['the trusted ref has none: all are new', undefined, ['admin panel from outside', 'api is allowed']],
  ] as const)('%s', (_case, work, expected) => {
    const gate = work === undefined ? gateTests([], edited) : gateTests(trusted, work);
    expect(gate.map((test) => test.name)).toEqual(expected);
  });

  it("runs the trusted ref's expectation, not the work tree's edit of it", () => {
    const admin = gateTests(trusted, edited).find((test) => test.name === 'admin panel from outside');
    expect(admin?.expect.action).toBe('block');
  });

  it("withTrustedPolicy holds the gate, or the work tree's own cases for wafctl test", () => {
    const policy = load({ 'tests.yaml': ruleTestsYaml(ADMIN_CASE, FRONT_CASE) }, true);
    const work = load({ 'tests.yaml': ruleTestsYaml(ADMIN_CASE.replace('block', 'log'), NEW) });
    expect(names(withTrustedPolicy(work, policy))).toEqual([
      'admin panel from outside',
      'shop front is logged',
      'api is allowed',
    ]);
    const own = withTrustedPolicy(work, policy, 'work tree');
    expect(own.state.tests).toBe(work.state.tests);
  });
});

describe('trustChanges: a trusted case the work tree removes or changes', () => {
  const base = { 'tests.yaml': ruleTestsYaml(ADMIN_CASE, FRONT_CASE) };

  it('lists a removed case and a changed one, one entry each, the changed fields with their values', () => {
    const work = {
      'tests.yaml': ruleTestsYaml(ADMIN_CASE.replace('{action: block}', '{action: log, rule: a/b}'), NEW),
    };
    expect(changes(base, work)).toEqual([
      {
        subject: 'test "admin panel from outside"',
        change: `changed in the work tree (the trusted ref's case is run): expect.action: "block" -> "log"; expect.rule: null -> "a/b"`,
      },
      {
        subject: 'test "shop front is logged"',
        change: 'removed in the work tree (the trusted ref declares it: its case is run)',
      },
    ]);
  });

  it.each([
    ['the same cases', base],
    [
      'moved to another file, defaults written out',
      {
        'other.yaml': ruleTestsYaml(
          ADMIN_CASE.replace('path: /admin}', 'path: /admin, method: GET, headers: {}}'),
          FRONT_CASE,
        ),
      },
    ],
    ['a new case added', { 'tests.yaml': ruleTestsYaml(ADMIN_CASE, FRONT_CASE, NEW) }],
  ])('none for %s', (_case, work) => {
    expect(changes(base, work)).toEqual([]);
  });

  it('compares headers whatever their order, and cuts a long value short', () => {
    const headers = (order: string) =>
      ADMIN_CASE.replace('path: /admin}', `path: /admin, headers: ${order}}`);
    const one = { 'tests.yaml': ruleTestsYaml(headers('{A: "1", B: "2"}')) };
    expect(changes(one, { 'tests.yaml': ruleTestsYaml(headers('{B: "2", A: "1"}')) })).toEqual([]);
    const body = 'x'.repeat(5000);
    const [change] = changes(one, {
      'tests.yaml': ruleTestsYaml(ADMIN_CASE.replace('path: /admin}', `path: /admin, body: ${body}}`)),
    });
    expect(change?.change).toContain(`request.body: "" -> "${'x'.repeat(199)}…`);
    expect(change?.change.length).toBeLessThan(1000);
  });
});

import { ADMIN_CASE, FRONT_CASE, ruleTestsYaml } from '../helpers/fixtures.js';
