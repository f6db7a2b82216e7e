/** The network-rule settings (a singleton section) end to end: export, plan, apply, drift, pull. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startTestFirewall, type TestFirewall, writeConfig } from '../helpers/firewall.js';

const CONFIG = `network_rule_settings:
  automation:
    enable: true
    default_duration_minutes: 1440
    update_firewall: true
    whitelist: [10.1.0.0/16, 10.0.0.1]
  expire_strategy: delete
`;

let firewall: TestFirewall;
beforeEach(async () => {
  firewall = await startTestFirewall();
  await firewall.api.networkRuleSettings.update({
    automation: { enable: true, update_firewall: true, whitelist: ['10.0.0.1', '10.1.0.0/16'] },
  });
});
afterEach(async () => {
  await firewall.close();
});

const cli = (args: string[]) => runCli(args, { env: firewall.env });

describe('network_rule_settings end to end', () => {
  it('plans no changes when the configuration matches the server', async () => {
    const dir = await writeConfig({ 'settings.yaml': CONFIG });
    const plan = await cli(['plan', dir, '--detailed-exitcode']);
    expect(plan.stderr).toBe('');
    expect(plan.code).toBe(0);
  });

  it('export then plan: no changes, with the allowlist in the exported file', async () => {
    const dir = await writeConfig({});
    const exported = await cli(['export', '--dir', join(dir, 'out')]);
    expect(exported.stderr).toBe('');
    expect(exported.code).toBe(0);
    const files = await import('node:fs/promises').then((fs) => fs.readdir(join(dir, 'out')));
    const text = await Promise.all(files.map((f) => readFile(join(dir, 'out', f), 'utf8')));
    expect(text.join('\n')).toContain('10.1.0.0/16');
    const plan = await cli(['plan', join(dir, 'out'), '--detailed-exitcode']);
    expect(plan.stdout + plan.stderr).toContain('No changes');
    expect(plan.code).toBe(0);
  });

  it('applies a changed whitelist, then plans no changes', async () => {
    const dir = await writeConfig({
      'settings.yaml': CONFIG.replace('10.0.0.1]', '10.0.0.1, 2001:db8::/32]'),
    });
    const plan = await cli(['plan', dir]);
    expect(plan.stdout).toContain('2001:db8::/32');
    expect(plan.stdout).toContain('broadens_access');
    const applied = await cli(['apply', dir, '--auto-approve']);
    expect(applied.stderr).not.toContain('Error');
    expect(applied.code).toBe(0);
    const live = await firewall.api.networkRuleSettings.get();
    expect(live.automation.whitelist).toEqual(['10.0.0.1', '10.1.0.0/16', '2001:db8::/32']);
    const again = await cli(['plan', dir, '--detailed-exitcode']);
    expect(again.code).toBe(0);
  });

  it('compares networks, not strings: other spellings of the live entries plan no changes', async () => {
    const spelled = CONFIG.replace('[10.1.0.0/16, 10.0.0.1]', '[10.1.2.3/016, 10.0.0.1/32, 10.0.0.1]');
    const dir = await writeConfig({ 'settings.yaml': spelled });
    const plan = await cli(['plan', dir, '--detailed-exitcode']);
    expect(plan.stderr).toBe('');
    expect(plan.code).toBe(0);
  });

  it('sends an IPv6 network in canonical text, and plans no changes for its other spelling', async () => {
    const dir = await writeConfig({
      'settings.yaml': CONFIG.replace('10.0.0.1]', '10.0.0.1, 2001:DB8:0::/32, 0.0.0.0/0]'),
    });
    const plan = await cli(['plan', dir]);
    expect(plan.stdout).toContain('whitelist opens to every address: 0.0.0.0/0');
    expect(plan.stdout).toContain('whitelist address added: 2001:db8::/32');
    expect((await cli(['apply', dir, '--auto-approve'])).code).toBe(0);
    const live = await firewall.api.networkRuleSettings.get();
    expect(live.automation.whitelist).toEqual(['0.0.0.0/0', '10.0.0.1', '10.1.0.0/16', '2001:db8::/32']);
    expect((await cli(['plan', dir, '--detailed-exitcode'])).code).toBe(0);
  });

  it('drift reports a hand change, and pull writes it back', async () => {
    const dir = await writeConfig({ 'settings.yaml': CONFIG });
    await firewall.api.networkRuleSettings.update({ automation: { enable: false, whitelist: ['10.0.0.1'] } });
    const drift = await cli(['drift', dir]);
    expect(drift.stdout).toContain('enable');
    expect(drift.stdout).toContain('weakens_protection');
    const pulled = await cli(['pull', dir]);
    expect(pulled.stderr).toBe('');
    expect(pulled.code).toBe(0);
    const text = await readFile(join(dir, 'settings.yaml'), 'utf8');
    expect(text).not.toContain('10.1.0.0/16');
    expect(text).toContain('enable: false');
    expect((await cli(['plan', dir, '--detailed-exitcode'])).code).toBe(0);
  });

  it("pull appends an address added by hand to the allowlist, in the file's order (issue 40)", async () => {
    const dir = await writeConfig({ 'settings.yaml': CONFIG });
    await firewall.api.networkRuleSettings.update({
      automation: { whitelist: ['10.0.0.1', '10.1.0.0/16', '0.0.0.0/0'] },
    });
    const pulled = await cli(['pull', dir]);
    expect(pulled.stderr).toBe('');
    expect(pulled.code).toBe(0);
    expect(await readFile(join(dir, 'settings.yaml'), 'utf8')).toBe(
      CONFIG.replace('[10.1.0.0/16, 10.0.0.1]', '[10.1.0.0/16, 10.0.0.1, 0.0.0.0/0]'),
    );
    expect((await cli(['plan', dir, '--detailed-exitcode'])).code).toBe(0);
  });
});
