/**
 * `--fail-on` as a pipeline's policy gate (exit 3; apply writes nothing), the Security impact section
 * in the real CLI's output, and `--max-chars`: the real CLI against a real emulator.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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

const cli = (args: string[]) => runCli(args, { env: firewall.env });

const config = (enabled: boolean) => `${rulesYaml([{ enabled }])}notifications:
  - name: splunk
    settings: {destination_address: 10.0.0.5, destination_port: 514, format: cef, protocol: udp}
`;

/** A firewall where the rule and the notification are applied, and a config that disables the rule. */
async function disablingTheRule(): Promise<string> {
  const dir = await writeConfig({ 'waf.yaml': config(true) });
  expect((await cli(['apply', dir, '--auto-approve'])).code).toBe(0);
  await writeFile(join(dir, 'waf.yaml'), config(false));
  return dir;
}

const REFUSAL =
  'Error: --fail-on weakens_protection: 1 change weakens protection (application_rule.shop.example.com/Block admin); see the Security impact section above.';

describe('--fail-on', () => {
  it('plan exits 3 when a change has a named class, after printing the plan with its Security impact', async () => {
    const dir = await disablingTheRule();
    const gated = await cli(['plan', dir, '--fail-on', 'weakens_protection', '--detailed-exitcode']);
    expect(gated.code).toBe(3);
    expect(gated.stdout).toMatch(
      /^Security impact: 1 change weakens protection\.\n {2}! weakens_protection {2}application_rule\.shop\.example\.com\/Block admin: disabled \(enabled: true -> false\)\n/,
    );
    expect(gated.stderr).toBe(`${REFUSAL} The plan was printed; nothing was applied.\n`);

    const otherClass = await cli([
      'plan',
      dir,
      '--fail-on',
      'broadens-access,reduces_audit',
      '--detailed-exitcode',
    ]);
    expect(otherClass.code).toBe(2);
    const json = JSON.parse((await cli(['plan', dir, '--format', 'json'])).stdout);
    expect(json.summary.impact).toEqual({ weakens_protection: 1, broadens_access: 0, reduces_audit: 0 });
    expect(json.changes[0].impact).toEqual([
      { class: 'weakens_protection', reason: 'disabled (enabled: true -> false)' },
    ]);
  });

  it('apply exits 3 and writes nothing, from the configuration or from a saved plan', async () => {
    const dir = await disablingTheRule();
    const refused = await cli(['apply', dir, '--auto-approve', '--fail-on', 'weakens_protection']);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toBe(`${REFUSAL} Nothing was applied.\n`);
    const out = join(dir, 'plan.json');
    expect((await cli(['plan', dir, '--out', out])).code).toBe(0);
    const saved = await cli(['apply', '--plan', out, dir, '--fail-on', 'weakens_protection']);
    expect(saved.code).toBe(3);
    expect((await firewall.api.applicationRules.list()).map((r) => r.enabled)).toEqual([true]);

    expect((await cli(['apply', '--plan', out, dir])).code).toBe(0);
    expect((await firewall.api.applicationRules.list()).map((r) => r.enabled)).toEqual([false]);
  });

  it('drift exits 3 when what was changed by hand has a named class', async () => {
    const dir = await writeConfig({ 'waf.yaml': config(true) });
    expect((await cli(['apply', dir, '--auto-approve'])).code).toBe(0);
    // Someone points the SIEM elsewhere at 3 a.m.; applying would point it back (also a redirect).
    await firewall.api.notifications.update('splunk', { settings: { destination_address: '10.9.9.9' } });

    const drift = await cli(['drift', dir, '--fail-on', 'reduces_audit']);
    expect(drift.code).toBe(3);
    expect(drift.stdout).toContain(
      'Security impact of the drift (what was changed outside wafctl): 1 change reduces audit.\n  ! reduces_audit  notification.splunk: redirected: destination_address 10.0.0.5 -> 10.9.9.9\n',
    );
    expect(drift.stderr).toMatch(
      /^Error: --fail-on reduces_audit: 1 change reduces audit \(notification\.splunk\);/,
    );
    expect((await cli(['drift', dir, '--fail-on', 'weakens_protection'])).code).toBe(2);
  });

  it('refuses an unknown class before any request, with a did-you-mean', async () => {
    const result = await cli(['plan', '.', '--fail-on', 'weakens_protectoin']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'unknown class "weakens_protectoin" (did you mean "weakens_protection"?); expected weakens_protection, broadens_access, reduces_audit, changes_trust, fails_tests.',
    );
    expect((await firewall.stats()).total).toBe(0);
  });
});

describe('--max-chars', () => {
  it('bounds the markdown plan, and refuses a budget too small for the summary', async () => {
    const rules = Array.from({ length: 60 }, (_, i) => ({ description: `Rule ${i}`, expression: `^/r${i}` }));
    const dir = await writeConfig({ 'rules.yaml': rulesYaml(rules) });
    const markdown = await cli(['plan', dir, '--format', 'markdown', '--max-chars', '3000']);
    expect(markdown.code).toBe(0);
    expect(markdown.stdout.length).toBeLessThanOrEqual(3000);
    expect(markdown.stdout).toMatch(/_\d+ more changes not shown \(see the JSON plan \/ job log\)\._\n$/);
    const small = await cli(['plan', dir, '--format', 'markdown', '--max-chars', '500']);
    expect(small.code).toBe(1);
    expect(small.stderr).toContain('--max-chars must be an integer from 1000 to 65536.');
  });
});
