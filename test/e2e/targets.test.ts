/**
 * Targeted runs (issue 32): `--target`, `--exclude` and `--kind` on plan, apply and drift, against
 * the emulator. Two rules of two hosts and a group, none of them live yet.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startTestFirewall, type TestFirewall, writeConfig } from '../helpers/firewall.js';
import { rulesAndGroupFiles } from '../helpers/fixtures.js';

let firewall: TestFirewall;
let dir = '';

beforeEach(async () => {
  // No demo rules: what is on the firewall is what the test applies.
  firewall = await startTestFirewall({ seed: { rules: [] } });
  dir = await writeConfig(rulesAndGroupFiles());
});

afterEach(async () => {
  await firewall.close();
  await rm(dir, { recursive: true, force: true });
});

const created = (stdout: string) =>
  stdout
    .split('\n')
    .filter((line) => line.endsWith(' will be created'))
    .map((line) =>
      line
        .trim()
        .replace(/^# /, '')
        .replace(/ will be created$/, ''),
    );

describe('plan --target, --exclude and --kind', () => {
  it('holds only the matching changes', async () => {
    const env = firewall.env;
    const target = await runCli(['plan', dir, '--target', 'application_rule.shop.example.com/*'], { env });
    expect(target.code).toBe(0);
    expect(created(target.stdout)).toEqual(['application_rule.shop.example.com/Block admin']);
    expect(target.stdout).toContain('Plan: 1 to add, 0 to change, 0 to destroy.');

    const exclude = await runCli(['plan', dir, '--exclude', 'application_rule.*'], { env });
    expect(created(exclude.stdout)).toEqual(['group.soc']);

    const kind = await runCli(['plan', dir, '--kind', 'application-rules', '--exclude', '*/Block admin'], {
      env,
    });
    expect(kind.code).toBe(1);
    expect(kind.stderr).toContain('--exclude "*/Block admin": expected KIND.KEY');

    const both = await runCli(
      ['plan', dir, '--kind', 'application_rules', '--exclude', 'application_rule.shop.example.com/*'],
      { env },
    );
    expect(created(both.stdout)).toEqual(['application_rule.blog.example.com/Block login']);
  });

  it('refuses a bad address or kind before any request', async () => {
    const bad = await runCli(['plan', dir, '--target', 'rule.x'], { env: firewall.env });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--target "rule.x": unknown kind "rule"');
    const kind = await runCli(['drift', dir, '--kind', 'rulez'], { env: firewall.env });
    expect(kind.code).toBe(1);
    expect(kind.stderr).toContain('unknown kind "rulez"');
    expect((await firewall.stats()).total).toBe(0);
  });

  it('refuses a target that matches nothing while the plan has changes, naming the closest (issue 40)', async () => {
    const typo = await runCli(['apply', dir, '--auto-approve', '--target', 'group.sco'], {
      env: firewall.env,
    });
    expect(typo.code).toBe(1);
    expect(typo.stderr).toMatch(
      /^Error: --target "group.sco" matches nothing in this plan, which has 3 changes; the closest addresses: group\.soc, /,
    );
    expect(await firewall.api.applicationRules.list()).toEqual([]);
  });
});

describe('apply and drift with a selection', () => {
  it('applies only the selected changes; the rest still plans', async () => {
    const env = firewall.env;
    const applied = await runCli(['apply', dir, '--auto-approve', '--target', 'group.soc'], { env });
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('Apply complete! Resources: 1 added, 0 changed, 0 destroyed.');
    expect((await firewall.api.groups.list()).map((group) => group.name)).toContain('soc');
    expect(await firewall.api.applicationRules.list()).toEqual([]);

    const rest = await runCli(['plan', dir, '--detailed-exitcode'], { env });
    expect(rest.code).toBe(2);
    expect(created(rest.stdout)).toEqual([
      'application_rule.blog.example.com/Block login',
      'application_rule.shop.example.com/Block admin',
    ]);

    // Drift of the group alone: none; of everything: the two missing rules.
    expect((await runCli(['drift', dir, '--kind', 'groups'], { env })).code).toBe(0);
    expect((await runCli(['drift', dir], { env })).code).toBe(2);
  });

  it('refuses a selection with a saved plan', async () => {
    const refused = await runCli(['apply', '--plan', 'plan.json', '--target', 'group.soc'], {
      env: firewall.env,
      cwd: dir,
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('a saved plan applies exactly the changes it holds');
  });
});

describe('a partial plan says so, and is saved as partial', () => {
  it('warns first in text, markdown and drift; records the selection in JSON and in a saved plan', async () => {
    const env = firewall.env;
    const warning =
      'Warning: this plan is partial (--target "group.*"): changes outside the selection are neither shown nor applied';
    const text = await runCli(['plan', dir, '--target', 'group.*'], { env });
    expect(text.stdout.startsWith(warning)).toBe(true);
    const md = await runCli(['plan', dir, '--target', 'group.*', '--format', 'markdown'], { env });
    expect(md.stdout).toContain('> **Warning:** this plan is partial (--target &quot;group.\\*&quot;)');
    const json = await runCli(['plan', dir, '--target', 'group.*', '--format', 'json'], { env });
    expect(JSON.parse(json.stdout)).toMatchObject({
      targets: { target: ['group.*'], exclude: [], kind: [] },
      summary: { create: 1 },
    });
    const whole = await runCli(['plan', dir, '--format', 'json'], { env });
    expect(Object.keys(JSON.parse(whole.stdout))).not.toContain('targets');
    const drift = await runCli(['drift', dir, '--kind', 'groups'], { env });
    expect(drift.stdout).toContain('Warning: this drift report is partial (--kind group)');

    const saved = join(dir, 'plan.json');
    expect((await runCli(['plan', dir, '--target', 'group.*', '--out', saved], { env })).code).toBe(0);
    expect(JSON.parse(await readFile(saved, 'utf8'))).toMatchObject({ targets: { target: ['group.*'] } });
    const applied = await runCli(['apply', '--plan', saved, dir], { env });
    expect(applied.code).toBe(0);
    expect(applied.stdout.startsWith(warning)).toBe(true);
    expect(applied.stdout).toContain('Apply complete! Resources: 1 added, 0 changed, 0 destroyed.');
    expect(await firewall.api.applicationRules.list()).toEqual([]);
  });
});

describe('a rename is one change of two addresses', () => {
  it('is selected by either address, and refused when --exclude would split it', async () => {
    const env = firewall.env;
    expect((await runCli(['apply', dir, '--auto-approve', '--kind', 'groups'], { env })).code).toBe(0);
    await writeFile(
      join(dir, 'groups.yaml'),
      'groups:\n  - name: soc-team\n    renamed_from: soc\n    description: Analysts\n',
    );
    for (const address of ['group.soc', 'group.soc-team']) {
      const plan = await runCli(['plan', dir, '--target', address], { env });
      expect(plan.code).toBe(0);
      expect(plan.stdout).toContain('renamed from "soc"');
      expect(plan.stdout).toContain('Plan: 0 to add, 1 to change, 0 to destroy.');
    }
    const split = await runCli(
      ['apply', dir, '--auto-approve', '--target', 'group.soc-team', '--exclude', 'group.soc'],
      {
        env,
      },
    );
    expect(split.code).toBe(1);
    expect(split.stderr).toBe(
      'Error: group.soc-team is renamed from group.soc, and --exclude leaves out group.soc: one change updates both, so it cannot be split; target both addresses or exclude both\n',
    );
    expect((await firewall.api.groups.list()).map((group) => group.name)).toContain('soc');
  });
});
