/**
 * `apply --plan FILE --fail-on fails_tests`: the saved plan's changes, rebuilt from the live rules,
 * are judged by the configuration's rule tests at apply time, whatever Behaviour the file records or
 * leaves out. The real CLI against a real emulator.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startTestFirewall, type TestFirewall, writeConfig } from '../helpers/firewall.js';
import { ADMIN_CASE, LOG_ALL_RULE, rulesYaml, ruleTestsYaml } from '../helpers/fixtures.js';

let firewall: TestFirewall;
beforeEach(async () => {
  firewall = await startTestFirewall();
});
afterEach(async () => {
  await firewall.close();
});

const cli = (args: string[]) => runCli(args, { env: firewall.env });

const TESTS = ruleTestsYaml(ADMIN_CASE);

const GROUP = 'groups:\n  - name: soc\n    description: Analysts\n';

const REFUSAL =
  'Error: --fail-on fails_tests: 1 test does not pass after this plan ("admin panel from outside"); see the Behaviour section above. Nothing was applied.\n';

/** The live rules' match expressions: what shows whether the narrowing was applied. */
async function liveExpressions(): Promise<string[]> {
  const rules = await firewall.api.applicationRules.list();
  return rules.flatMap((rule) => rule.conditions.flatMap((c) => c.expressions.map((e) => e.expression)));
}

/** Write calls the emulator served (every route but GET and its own). */
async function writes(): Promise<string[]> {
  const { by_route } = await firewall.stats();
  return Object.keys(by_route).filter((route) => !route.startsWith('GET ') && !route.includes('__emulator'));
}

/**
 * The rules applied (Block admin on `^/admin`, Log everything), then the configuration narrowed to
 * `^/admin/` and saved as a plan: after it, the admin panel's root is only logged.
 */
async function savedWeakening(): Promise<{ dir: string; out: string }> {
  const dir = await writeConfig({ 'rules.yaml': rulesYaml([{}, LOG_ALL_RULE]), 'tests.yaml': TESTS });
  expect((await cli(['apply', dir, '--auto-approve'])).code).toBe(0);
  await writeFile(join(dir, 'rules.yaml'), rulesYaml([{ expression: '^/admin/' }, LOG_ALL_RULE]));
  const out = join(dir, 'plan.json');
  expect((await cli(['plan', dir, '--out', out])).code).toBe(0);
  await firewall.resetStats();
  return { dir, out };
}

describe('apply --plan --fail-on fails_tests', () => {
  it('refuses a saved plan after which a test fails, and writes nothing; without the class it applies', async () => {
    const { dir, out } = await savedWeakening();
    const refused = await cli(['apply', '--plan', out, dir, '--fail-on', 'fails_tests']);
    expect(refused.code).toBe(3);
    expect(refused.stdout).toContain('  ~ admin panel from outside: block -> log\n');
    expect(refused.stderr).toBe(REFUSAL);
    expect(await writes()).toEqual([]);
    expect(await liveExpressions()).toContain('^/admin');

    expect((await cli(['apply', '--plan', out, dir])).code).toBe(0);
    expect(await liveExpressions()).toContain('^/admin/');
  });

  it('judges the behaviour afresh: a saved plan edited to drop or clear its Behaviour is still refused', async () => {
    const { dir, out } = await savedWeakening();
    const saved = JSON.parse(await readFile(out, 'utf8'));
    expect(saved.behaviour.failing).toHaveLength(1);
    for (const behaviour of [undefined, { tests: 0, changed: [], failing: [] }]) {
      await writeFile(out, JSON.stringify({ ...saved, behaviour }));
      const refused = await cli(['apply', '--plan', out, dir, '--fail-on', 'fails_tests']);
      expect(refused.code).toBe(3);
      expect(refused.stderr).toBe(REFUSAL);
    }
    expect(await writes()).toEqual([]);
  });

  it.each([
    {
      live: [{}],
      code: 0,
      behaviour: 'no outcome changes, it passes after this plan',
      stderr: expect.not.stringContaining('Error'),
    },
    {
      live: [LOG_ALL_RULE],
      code: 3,
      behaviour: 'no outcome changes, 1 fails after this plan',
      stderr: REFUSAL,
    },
  ])('runs the tests on the live rules when the saved plan changes none (exit $code)', async (expected) => {
    const rules = await writeConfig({ 'rules.yaml': rulesYaml(expected.live) });
    expect((await cli(['apply', rules, '--auto-approve'])).code).toBe(0);
    // The configuration declares no rule, only a group, and the test.
    const dir = await writeConfig({ 'tests.yaml': TESTS, 'groups.yaml': GROUP });
    const out = join(dir, 'plan.json');
    expect((await cli(['plan', dir, '--out', out])).code).toBe(0);
    await firewall.resetStats();

    const applied = await cli(['apply', '--plan', out, dir, '--fail-on', 'fails_tests']);
    expect(applied.code).toBe(expected.code);
    expect(applied.stdout).toContain(`Behaviour: 1 test; ${expected.behaviour}.\n`);
    expect(applied.stderr).toEqual(expected.stderr);
    expect((await writes()).length > 0).toBe(expected.code === 0);
  });
});
