/**
 * Issue 43: the rule tests are pinned by `--trusted-ref` as the policy is. A pull request that
 * weakens a rule cannot delete or rewrite the test that catches it: the gate (`--fail-on
 * fails_tests`) runs the base branch's cases as it declares them, plus the pull request's new ones,
 * and the Trust section lists each base case the pull request removes or changes. The real CLI, in a
 * git repository, against a real emulator.
 */
import { realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startTestFirewall, type TestFirewall, writeConfig } from '../helpers/firewall.js';
import { ADMIN_CASE, FRONT_CASE, LOG_ALL_RULE, rulesYaml, ruleTestsYaml } from '../helpers/fixtures.js';
import { GIT_ENV, pullRequestRepo } from '../helpers/git.js';

let firewall: TestFirewall;
beforeEach(async () => {
  firewall = await startTestFirewall();
});
afterEach(async () => {
  await firewall.close();
});

const cli = (args: string[]) => runCli(args, { env: { ...GIT_ENV, ...firewall.env } });

const LOGIN = `  - name: login is blocked
    request: {host: shop.example.com, path: /login}
    expect: {action: block}
`;

/** The base branch: Block admin on `^/admin`, Log everything, and both tests (which pass). */
const BASE = {
  'rules.yaml': rulesYaml([{}, LOG_ALL_RULE]),
  'tests.yaml': ruleTestsYaml(ADMIN_CASE, FRONT_CASE),
};

/** The rule narrowed to `^/admin/`: after it, the admin panel's root is only logged. */
const WEAKENED = rulesYaml([{ expression: '^/admin/' }, LOG_ALL_RULE]);

/** The base branch applied to the firewall, then a pull request that writes `change` over it. */
async function pullRequest(change: Record<string, string>): Promise<string> {
  const applied = await writeConfig(BASE);
  expect((await cli(['apply', applied, '--auto-approve'])).code).toBe(0);
  return pullRequestRepo(BASE, change);
}

const TRUSTED = ['--trusted-ref', 'main'];

const REMOVED =
  '  ! changes_trust  test "admin panel from outside": removed in the work tree (the trusted ref declares it: its case is run)\n';

const FAILS =
  '  ✗ admin panel from outside: expected block, got log by shop.example.com/Log everything (waf-eu-1)\n';

describe('--trusted-ref pins the rule tests that judge a plan', () => {
  it('a pull request that weakens a rule and deletes its test is still refused, and the deletion is a trust change', async () => {
    const dir = await pullRequest({ 'rules.yaml': WEAKENED, 'tests.yaml': ruleTestsYaml(FRONT_CASE) });

    // Without a trusted ref the deletion works: the very hole the ref closes.
    const unpinned = await cli(['plan', dir, '--fail-on', 'fails_tests']);
    expect(unpinned.code).toBe(0);
    expect(unpinned.stdout).toContain('Behaviour: 1 test; no outcome changes, it passes after this plan.\n');

    const gated = await cli(['plan', dir, ...TRUSTED, '--fail-on', 'fails_tests']);
    expect(gated.code).toBe(3);
    expect(gated.stdout).toContain(REMOVED);
    expect(gated.stdout).toContain('Behaviour: 2 tests; 1 changes its outcome, 1 fails after this plan.\n');
    expect(gated.stdout).toContain(FAILS);
    expect(gated.stderr).toMatch(/^Error: --fail-on fails_tests: 1 test does not pass after this plan/);

    const trust = await cli(['plan', dir, ...TRUSTED, '--fail-on', 'changes_trust']);
    expect(trust.code).toBe(3);
    expect(trust.stderr).toContain(
      'Error: --fail-on changes_trust: the work tree changes what the trusted ref pins (test "admin panel from outside"), which this plan did not use',
    );
  });

  it("a pull request that rewrites the test's expectation is judged by the base branch's", async () => {
    const dir = await pullRequest({
      'rules.yaml': WEAKENED,
      'tests.yaml': ruleTestsYaml(ADMIN_CASE.replace('action: block', 'action: log'), FRONT_CASE),
    });
    expect((await cli(['plan', dir, '--fail-on', 'fails_tests'])).code).toBe(0);

    const json = await cli(['plan', dir, ...TRUSTED, '--format', 'json', '--fail-on', 'fails_tests']);
    expect(json.code).toBe(3);
    const plan = JSON.parse(json.stdout);
    expect(plan.trust.changes).toEqual([
      {
        subject: 'test "admin panel from outside"',
        change: `changed in the work tree (the trusted ref's case is run): expect.action: "block" -> "log"`,
      },
    ]);
    expect(plan.behaviour.failing).toEqual([
      expect.objectContaining({ name: 'admin panel from outside', expected: { action: 'block' } }),
    ]);

    // wafctl test is the developer's tool, not the gate: it runs the work tree's cases.
    const developer = await cli(['test', dir, ...TRUSTED]);
    expect(developer.stderr).toBe('');
    expect(developer.code).toBe(0);
  });

  it('apply --plan judges a saved plan by the base branch tests too', async () => {
    const dir = await pullRequest({ 'rules.yaml': WEAKENED, 'tests.yaml': ruleTestsYaml(FRONT_CASE) });
    const out = join(dir, 'plan.json');
    expect((await cli(['plan', dir, '--out', out])).code).toBe(0);
    const applied = await cli(['apply', '--plan', out, dir, ...TRUSTED, '--fail-on', 'fails_tests']);
    expect(applied.code).toBe(3);
    expect(applied.stdout).toContain(FAILS);
    const rules = await firewall.api.applicationRules.list();
    expect(
      rules.flatMap((rule) => rule.conditions.flatMap((c) => c.expressions.map((e) => e.expression))),
    ).toContain('^/admin');
  });

  it("a pull request's new test runs too, and adding one is no change of trust", async () => {
    const dir = await pullRequest({ 'tests.yaml': ruleTestsYaml(ADMIN_CASE, FRONT_CASE, LOGIN) });
    const gated = await cli(['plan', dir, ...TRUSTED, '--fail-on', 'fails_tests,changes_trust']);
    expect(gated.code).toBe(3);
    expect(gated.stdout).toContain('; the work tree changes none of them.\n');
    expect(gated.stdout).toContain('Behaviour: 3 tests; no outcome changes, 1 fails after this plan.\n');
    expect(gated.stdout).toContain('  ✗ login is blocked: expected block, got log');
    expect(gated.stderr).toMatch(
      /^Error: --fail-on fails_tests: 1 test does not pass after this plan \("login is blocked"\)/,
    );
  });

  it('a pull request that touches no test changes no trust and passes both gates', async () => {
    const dir = await pullRequest({ 'groups.yaml': 'groups:\n  - name: soc\n    description: Analysts\n' });
    const plan = await cli(['plan', dir, ...TRUSTED, '--fail-on', 'fails_tests,changes_trust']);
    expect(plan.stderr).toBe('');
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('; the work tree changes none of them.\n');
    expect(plan.stdout).toContain('Behaviour: 2 tests; no outcome changes, all pass after this plan.\n');
  });

  it("a problem in the base branch's tests fails as a problem of its policy does, at its place in the ref", async () => {
    const broken = ruleTestsYaml('  - name: no expectation\n    request: {host: shop.example.com}\n');
    const dir = await pullRequestRepo(
      { ...BASE, 'tests.yaml': broken },
      { 'tests.yaml': ruleTestsYaml(ADMIN_CASE) },
    );
    const plan = await cli(['plan', dir, ...TRUSTED]);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toBe(
      `Error: main:${join(await realpath(dir), 'tests.yaml')}:2:5 tests[0]: required field "expect" is missing\n1 problem in 1 file.\n`,
    );
    expect((await firewall.stats()).total).toBe(0);
  });
});
