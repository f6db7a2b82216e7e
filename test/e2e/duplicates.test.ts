/**
 * Two applies at once (issue 41): the API has no lock, so both create every rule and 20 duplicates
 * are left. The next apply deletes them without --force: a duplicate's delete loses nothing (a copy
 * with its key stays), so the safety threshold does not count it, and the plan says so.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startTestFirewall, type TestFirewall, writeConfig } from '../helpers/firewall.js';
import { rulesYaml } from '../helpers/fixtures.js';

let firewall: TestFirewall;
beforeEach(async () => {
  firewall = await startTestFirewall();
});
afterEach(async () => {
  await firewall.close();
});

it('the duplicates two racing applies leave are deleted by the next apply, without --force', async () => {
  const rules = Array.from({ length: 20 }, (_, i) => ({
    description: `Block path ${i}`,
    expression: `^/p${i}`,
  }));
  const dir = await writeConfig({ 'rules.yaml': rulesYaml(rules) });
  const apply = () => runCli(['apply', dir, '--auto-approve'], { env: firewall.env });
  expect((await apply()).code).toBe(0);
  // What a second apply racing the first leaves (deterministically: the same rules created again).
  await firewall.api.applicationRules.create(
    rules.map(({ description, expression }) => ({
      rq_host: 'shop.example.com',
      description,
      priority: 'high',
      username: 'racer',
      conditions: [{ operator: 'match', expressions: [{ expression }], targets: [{ target: 'path' }] }],
      actions: [{ firewall_action: 'block', firewall_name: 'waf-eu-1' }],
    })),
  );
  expect(await firewall.api.applicationRules.list()).toHaveLength(40);

  const plan = await runCli(['plan', dir], { env: firewall.env });
  expect(plan.stdout).not.toContain('Warning:');
  expect(plan.stdout).toContain(
    'Note: 20 application_rule objects are duplicates of declared ones (two applies at once leave such copies): deleted, a copy with the same key stays; the safety threshold does not count them.',
  );
  const next = await apply();
  expect(next.stderr).not.toContain('Error');
  expect(next.code).toBe(0);
  expect(await firewall.api.applicationRules.list()).toHaveLength(20);
  expect((await runCli(['plan', dir, '--detailed-exitcode'], { env: firewall.env })).code).toBe(0);
});
