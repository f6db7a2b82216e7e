/**
 * The Behaviour section of `plan` (the configuration's rule tests on the live rules and on the rules
 * after the plan) and `--fail-on fails_tests`: the real CLI against a real emulator.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startTestFirewall, type TestFirewall, writeConfig } from '../helpers/firewall.js';
import { ADMIN_CASE, FRONT_CASE, LOG_ALL_RULE, rulesYaml, ruleTestsYaml } from '../helpers/fixtures.js';

let firewall: TestFirewall;
beforeEach(async () => {
  firewall = await startTestFirewall();
});
afterEach(async () => {
  await firewall.close();
});

const cli = (args: string[]) => runCli(args, { env: firewall.env });

const TESTS = ruleTestsYaml(ADMIN_CASE, FRONT_CASE);

const GROUP = 'groups:\n  - name: soc\n    description: Analysts\n';

/**
 * The rules applied (Block admin on `^/admin`, Log everything), then the configuration narrowed to
 * `^/admin/`: the admin panel's root is only logged after the plan.
 */
async function weakening(): Promise<string> {
  const dir = await writeConfig({
    'rules.yaml': rulesYaml([{}, LOG_ALL_RULE]),
    'tests.yaml': TESTS,
    'groups.yaml': GROUP,
  });
  expect((await cli(['apply', dir, '--auto-approve'])).code).toBe(0);
  await writeFile(join(dir, 'rules.yaml'), rulesYaml([{ expression: '^/admin/' }, LOG_ALL_RULE]));
  return dir;
}

const REFUSAL =
  'Error: --fail-on fails_tests: 1 test does not pass after this plan ("admin panel from outside"); see the Behaviour section above. The plan was printed; nothing was applied.\n';

describe('plan with rule tests', () => {
  it('shows each test whose outcome changes and each that fails, and --fail-on fails_tests exits 3', async () => {
    const dir = await weakening();
    const gated = await cli(['plan', dir, '--fail-on', 'fails_tests']);
    expect(gated.code).toBe(3);
    expect(gated.stdout).toContain(
      [
        'Behaviour: 2 tests; 1 changes its outcome, 1 fails after this plan.',
        '  ~ admin panel from outside: block -> log',
        '  ✗ admin panel from outside: expected block, got log by shop.example.com/Log everything (waf-eu-1)',
        '',
        'wafctl will perform the following actions:',
      ].join('\n'),
    );
    expect(gated.stderr).toBe(REFUSAL);
    // Another class the plan has not: the exit is the plan's.
    expect((await cli(['plan', dir, '--fail-on', 'broadens_access'])).code).toBe(0);

    const json = JSON.parse((await cli(['plan', dir, '--format', 'json'])).stdout);
    expect(json.behaviour).toMatchObject({
      tests: 2,
      changed: [{ name: 'admin panel from outside', before: { action: 'block' }, after: { action: 'log' } }],
      failing: [{ name: 'admin panel from outside', status: 'fail', expected: { action: 'block' } }],
    });
    const markdown = (await cli(['plan', dir, '--format', 'markdown'])).stdout;
    expect(markdown).toContain('- **changes** `admin panel from outside`: block -&gt; log\n');
  });

  it('makes apply --fail-on fails_tests write nothing', async () => {
    const dir = await weakening();
    const refused = await cli(['apply', dir, '--auto-approve', '--fail-on', 'fails_tests']);
    expect(refused.code).toBe(3);
    expect(refused.stdout).toContain('  ~ admin panel from outside: block -> log\n');
    const rules = await firewall.api.applicationRules.list();
    expect(
      rules.flatMap((rule) => rule.conditions.flatMap((c) => c.expressions.map((e) => e.expression))),
    ).toEqual(expect.arrayContaining(['^/admin']));
  });

  it('passes --fail-on fails_tests when every test passes after the plan', async () => {
    const dir = await weakening();
    // The change is kept, and a test of the narrower match replaces the one it breaks.
    await writeFile(join(dir, 'tests.yaml'), TESTS.replace('path: /admin}', 'path: /admin/login}'));
    const plan = await cli(['plan', dir, '--fail-on', 'fails_tests', '--detailed-exitcode']);
    expect(plan.code).toBe(2);
    expect(plan.stdout).toContain('Behaviour: 2 tests; no outcome changes, all pass after this plan.\n');
  });

  it('evaluates only the selected changes of a --target plan', async () => {
    const dir = await weakening();
    await writeFile(join(dir, 'groups.yaml'), GROUP.replace('Analysts', 'Tier-1 analysts'));
    const json = JSON.parse((await cli(['plan', dir, '--target', 'group.soc', '--format', 'json'])).stdout);
    expect(json.changes.map((change: { key: string }) => change.key)).toEqual(['soc']);
    expect(json.behaviour).toEqual({ tests: 2, changed: [], failing: [] });
  });

  it('reads the live rules for the tests when no file declares rules, without planning them', async () => {
    const rules = await writeConfig({ 'rules.yaml': rulesYaml([{}, LOG_ALL_RULE]) });
    expect((await cli(['apply', rules, '--auto-approve'])).code).toBe(0);
    const dir = await writeConfig({ 'tests.yaml': TESTS, 'groups.yaml': GROUP });
    const json = JSON.parse((await cli(['plan', dir, '--format', 'json'])).stdout);
    // Both tests pass on the live rules: they were read. No rule is counted as unmanaged.
    expect(json.behaviour).toEqual({ tests: 2, changed: [], failing: [] });
    expect(json.summary.unmanaged).toBe(0);
    expect(json.changes.map((change: { kind: string }) => change.kind)).toEqual(['group']);
  });

  it('has no Behaviour section without tests, nor in a drift report', async () => {
    const plain = await writeConfig({ 'rules.yaml': rulesYaml([{}]) });
    const text = await cli(['plan', plain]);
    expect(text.stdout).not.toContain('Behaviour');
    expect(JSON.parse((await cli(['plan', plain, '--format', 'json'])).stdout)).not.toHaveProperty(
      'behaviour',
    );
    const dir = await weakening();
    const drift = JSON.parse((await cli(['drift', dir, '--format', 'json'])).stdout);
    expect(drift.drift).toBe(true);
    expect(drift).not.toHaveProperty('behaviour');
  });
});
