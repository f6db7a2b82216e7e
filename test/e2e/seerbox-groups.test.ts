/**
 * The real Seer Box's groups, end to end: the built-in `admins` group and a permission id wafctl
 * does not know survive export, plan, apply and pull
 * (https://docs.seerbox.it/main/configuration/authentication-and-authorization).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startTestFirewall, type TestFirewall, writeConfig } from '../helpers/firewall.js';

let firewall: TestFirewall;

beforeEach(async () => {
  firewall = await startTestFirewall({
    seed: {
      users: [
        { id: 'u-1', username: 'yara' },
        { id: 'u-2', username: 'zed' },
      ],
      groups: [
        {
          name: 'firewall-team',
          permissions: [
            { permission_id: 7, permission_name: 'Handle firewalls' },
            { permission_id: 0, service_id: 'svc-shop' },
          ],
          user_ids: ['u-1'],
        },
      ],
    },
  });
});
afterEach(() => firewall.close());

const NO_CHANGES = 'No changes. The firewall matches the configuration.\n';

async function exportGroups(): Promise<string> {
  const exported = await runCli(['export', '--kind', 'groups'], { env: firewall.env });
  expect(exported.code, exported.stderr).toBe(0);
  return exported.stdout;
}

describe('Seer Box groups end to end', () => {
  it('export writes admins as its expectation and an unknown permission as its id; the export plans to no changes', async () => {
    const text = await exportGroups();
    expect(text).toContain(
      [
        'manage:',
        '  groups:',
        '    prune: true',
        '',
        'groups:',
        '  - name: firewall-team',
        '    permissions:',
        '      - permission: Explore alerts',
        '        service_id: svc-shop',
        "      - permission: 7 # Handle firewalls (not in wafctl's catalog)",
        '    users: [yara]',
        '',
        '# Built in and read-only: plan, drift and compare check that it still holds these values; wafctl never writes it.',
        'admins:',
        '  users: [admin]',
        '',
      ].join('\n'),
    );
    const dir = await writeConfig({ 'groups.yaml': text });
    const plan = await runCli(['plan', dir, '--detailed-exitcode'], { env: firewall.env });
    expect(plan.stderr).toBe('');
    expect(plan.stdout).toBe(NO_CHANGES);
    expect(plan.code).toBe(0);
  });

  it('a prune of every group leaves admins alone, and apply never touches it', async () => {
    const dir = await writeConfig({ 'groups.yaml': 'manage:\n  groups: {prune: true}\ngroups: []\n' });
    const plan = await runCli(['plan', dir, '--format', 'json'], { env: firewall.env });
    expect(plan.code, plan.stderr).toBe(0);
    const json = JSON.parse(plan.stdout) as {
      changes: { action: string; kind: string; key: string }[];
      unmanaged?: { key: string; reason: string }[];
    };
    expect(json.changes.map((c) => [c.action, c.kind, c.key])).toEqual([
      ['delete', 'group', 'firewall-team'],
    ]);
    expect(json.unmanaged).toBeUndefined(); // built in: not planned, and not news
    const apply = await runCli(['apply', dir, '--auto-approve'], { env: firewall.env });
    expect(apply.code, apply.stderr).toBe(0);
    expect((await firewall.api.groups.list()).map((g) => g.name)).toEqual(['admins']);
  });

  it('declaring admins is refused at validation, naming file, line and column', async () => {
    const dir = await writeConfig({ 'groups.yaml': 'groups:\n  - name: admins\n    is_admin: true\n' });
    const plan = await runCli(['plan', dir], { env: firewall.env });
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain(
      'groups.yaml:2:11 groups[0].name: the admins group is built into Seer Box and cannot be managed',
    );
  });

  it('adding the unknown permission to another group broadens access, and applies', async () => {
    const text = await exportGroups();
    const more = text.replace(
      '\n# Built in',
      '\n  - name: more-firewalls\n    permissions:\n      - permission: 7\n\n# Built in',
    );
    const dir = await writeConfig({ 'groups.yaml': more });
    const plan = await runCli(['plan', dir, '--format', 'json'], { env: firewall.env });
    const json = JSON.parse(plan.stdout) as { changes: { action: string; impact: unknown[] }[] };
    expect(json.changes).toEqual([
      expect.objectContaining({
        action: 'create',
        impact: [{ class: 'broadens_access', reason: 'permission added: permission 7 (all services)' }],
      }),
    ]);
    const apply = await runCli(['apply', dir, '--auto-approve'], { env: firewall.env });
    expect(apply.code, apply.stderr).toBe(0);
    const again = await runCli(['plan', dir, '--detailed-exitcode'], { env: firewall.env });
    expect(again.stdout).toBe(NO_CHANGES);
  });

  it('pull writes a live change to an unknown permission back, and leaves admins out of --adopt', async () => {
    const dir = await writeConfig({
      'groups.yaml':
        'manage:\n  groups: {prune: true}\ngroups:\n  - name: firewall-team\n    permissions:\n      - permission: Explore alerts\n        service_id: svc-shop\n    users: [u-1]\n',
    });
    const pulled = await runCli(['pull', dir, '--adopt', '--kind', 'groups'], {
      env: firewall.env,
    });
    expect(pulled.code, pulled.stderr).toBe(0);
    const text = await readFile(join(dir, 'groups.yaml'), 'utf8');
    expect(text).toContain('permission: 7');
    expect(text).not.toContain('name: admins');
    const plan = await runCli(['plan', dir, '--detailed-exitcode'], { env: firewall.env });
    expect(plan.stdout).toBe(NO_CHANGES);
    expect(plan.code).toBe(0);
  });
});
