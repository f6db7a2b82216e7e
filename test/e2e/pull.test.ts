/**
 * `wafctl pull`: live changes written back into the author's files — the real CLI against a real
 * emulator. Every kind round-trips (live change -> pull -> plan empty), comments and layout are kept,
 * untouched files stay byte-identical.
 */
import { chmod, lstat, readdir, readFile, stat, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApplicationRuleInput } from '../../src/api/index.js';
import { runCli } from '../helpers/cli.js';
import {
  type ManualClock,
  manualClock,
  startTestFirewall,
  type TestFirewall,
  writeConfig,
} from '../helpers/firewall.js';

/** Two minutes: the hand changes are made this long after the apply (2026-11-27 08:00 UTC). */
const LATER = 2 * 60_000;

let firewall: TestFirewall;
/** The emulator's and the CLI's clock: the times the pull summary credits are known. */
let clock: ManualClock;
beforeEach(async () => {
  clock = manualClock();
  firewall = await startTestFirewall({ clock });
});
afterEach(async () => {
  await firewall.close();
});

const cli = (args: string[], env: Record<string, string> = {}) =>
  runCli(args, { env: { ...firewall.env, ...env }, clock });

const GROUPS = `# Who may do what on the firewall.
groups:
  - name: soc   # tier 1
    description: Tier-1 analysts
    users: [u-1001, u-1002]

  # Rule authors load application rules.
  - name: authors
    description: 'Rule authors'
    permissions:
      - permission: Handle rules
    users:
      - u-1004   # alice's deputy
      - u-1005

  - name: retired
    users: [u-1008]
`;

const RULES = `application_rules:
  - rq_host: shop.example.com
    description: Block admin   # the old panel
    priority: high
    conditions:
      - {operator: match, expressions: ["^/admin"], targets: [path]}
    actions:
      - {firewall_action: block, firewall_name: waf-eu-1}
`;

const NOTIFICATIONS = `notifications:
  - name: splunk
    settings:
      destination_address: 10.0.0.5
      destination_port: 514   # syslog
      format: cef
      protocol: udp
`;

const SCHEDULES = `schedules:
  - name: weekly
    hosts: [shop.example.com]
    type: summary
    schedule: weekly
    send_to: [secops@example.com, cto@example.com]
    send_via: email
    timezone: Europe/Paris
`;

const UNTOUCHED = `# settings stay as they are
settings:
  username: gitops-bot
`;

async function appliedConfig(
  files: Record<string, string>,
  env: Record<string, string> = {},
): Promise<string> {
  const dir = await writeConfig(files);
  const applied = await cli(['apply', dir, '--auto-approve'], env);
  expect(applied.code, applied.stderr).toBe(0);
  return dir;
}

const read = (dir: string, file: string) => readFile(join(dir, file), 'utf8');
const planExit = async (dir: string) => (await cli(['plan', dir, '--detailed-exitcode'])).code;

/** Changes made "in the console": on every kind, and one declared group deleted. */
async function changeByHand(): Promise<void> {
  const api = firewall.api;
  const groups = await api.groups.list();
  const id = (name: string) => groups.find((g) => g.name === name)?.id ?? '';
  await api.groups.update(id('soc'), {
    name: 'soc',
    description: 'Tier-1 analysts (night shift)',
    permissions: [],
    user_ids: ['u-1001', 'u-1003'],
  });
  await api.groups.delete(id('retired'));
  const [rule] = await api.applicationRules.list();
  await api.applicationRules.update(rule?.id ?? '', { priority: 'low', enabled: false });
  await api.notifications.update('splunk', { settings: { destination_port: 6514 } });
  const [schedule] = await api.schedules.list();
  await api.schedules.update(schedule?.id ?? '', { send_to: ['secops@example.com', 'ciso@example.com'] });
}

describe('wafctl pull', () => {
  it('writes every kind back with comments and layout kept; the plan is then empty', async () => {
    const dir = await appliedConfig({
      'groups.yaml': GROUPS,
      'rules.yaml': RULES,
      'notifications.yaml': NOTIFICATIONS,
      'schedules.yaml': SCHEDULES,
      'settings.yaml': UNTOUCHED,
    });
    clock.advance(LATER);
    await changeByHand();
    expect(await planExit(dir)).toBe(2);

    const pulled = await cli(['pull', dir]);
    expect(pulled.stderr).toBe('');
    expect(pulled.code).toBe(0);
    // The rule's record names who changed it by hand (the token's user) and when.
    expect(pulled.stdout).toBe(
      'Pulled 5 objects (4 updated, 1 removed) into 4 files.\nHand changes by admin (2026-11-27 08:02 UTC).\n',
    );
    expect(await planExit(dir)).toBe(0);

    expect(await read(dir, 'groups.yaml')).toBe(`# Who may do what on the firewall.
groups:
  - name: soc   # tier 1
    description: Tier-1 analysts (night shift)
    users: [u-1001, u-1003]

  # Rule authors load application rules.
  - name: authors
    description: 'Rule authors'
    permissions:
      - permission: Handle rules
    users:
      - u-1004   # alice's deputy
      - u-1005
`);
    // A field the file left to its default is added after the object's last field.
    expect(await read(dir, 'rules.yaml')).toBe(
      `${RULES.replace('priority: high', 'priority: low')}    enabled: false\n`,
    );
    expect(await read(dir, 'notifications.yaml')).toBe(
      NOTIFICATIONS.replace('514   # syslog', '6514   # syslog'),
    );
    expect(await read(dir, 'schedules.yaml')).toBe(
      SCHEDULES.replace('[secops@example.com, cto@example.com]', '[secops@example.com, ciso@example.com]'),
    );
    expect(await read(dir, 'settings.yaml')).toBe(UNTOUCHED);
    // Written atomically: no temporary file is left behind.
    expect((await readdir(dir)).sort()).toEqual([
      'groups.yaml',
      'notifications.yaml',
      'rules.yaml',
      'schedules.yaml',
      'settings.yaml',
    ]);
  });

  it('--dry-run prints a unified diff and writes nothing', async () => {
    const dir = await appliedConfig({ 'notifications.yaml': NOTIFICATIONS });
    await firewall.api.notifications.update('splunk', { settings: { destination_port: 6514 } });
    const dry = await cli(['pull', dir, '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(`--- a/${join(dir, 'notifications.yaml')}`);
    expect(dry.stdout).toContain(
      '-      destination_port: 514   # syslog\n+      destination_port: 6514   # syslog\n',
    );
    expect(dry.stdout).toMatch(/Would pull 1 object \(1 updated\) into 1 file\.\n$/);
    expect(await read(dir, 'notifications.yaml')).toBe(NOTIFICATIONS);
  });

  it('a value from a variable is a conflict naming FILE:LINE:COL; the rest is still written, exit 1', async () => {
    const withVariable = NOTIFICATIONS.replace('10.0.0.5', `\${WAFCTL_VAR_SIEM_ADDRESS}`);
    const env = { WAFCTL_VAR_SIEM_ADDRESS: '10.0.0.5' };
    const dir = await appliedConfig({ 'notifications.yaml': withVariable, 'groups.yaml': GROUPS }, env);
    await firewall.api.notifications.update('splunk', { settings: { destination_address: '10.0.0.9' } });
    const groups = await firewall.api.groups.list();
    const soc = groups.find((g) => g.name === 'soc');
    await firewall.api.groups.update(soc?.id ?? '', {
      name: 'soc',
      description: 'Changed',
      permissions: [],
      user_ids: ['u-1001', 'u-1002'],
    });

    const pulled = await cli(['pull', dir], env);
    expect(pulled.code).toBe(1);
    expect(pulled.stderr).toContain(
      `Error: ${join(dir, 'notifications.yaml')}:4:28: notification.splunk: settings.destination_address comes from a \${VAR} substitution; nothing was pulled for it.`,
    );
    expect(await read(dir, 'notifications.yaml')).toBe(withVariable);
    expect(await read(dir, 'groups.yaml')).toContain('    description: Changed\n');
  });

  it('--adopt appends undeclared in-scope objects in the same style; plan is then empty even with prune', async () => {
    const dir = await appliedConfig({
      'groups.yaml': GROUPS,
      'manage.yaml': 'manage:\n  groups: {prune: true}\n',
    });
    await firewall.api.groups.create({
      name: 'incident-2026',
      description: 'Added at 3 a.m.',
      permissions: [],
      user_ids: ['u-1006'],
    });
    expect(await planExit(dir)).toBe(2);

    const pulled = await cli(['pull', dir, '--adopt']);
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(pulled.stdout).toBe('Pulled 1 object (1 adopted) into 1 file.\n');
    expect(await read(dir, 'groups.yaml')).toBe(
      `${GROUPS}\n  - name: incident-2026\n    description: Added at 3 a.m.\n    users: [frank]\n`, // written as export writes it: by username
    );
    expect(await planExit(dir)).toBe(0);
  });

  it('--adopt writes a kind no file declares to <kind>.yaml in the first PATH', async () => {
    const dir = await appliedConfig({ 'groups.yaml': GROUPS });
    await firewall.api.notifications.create({
      name: 'qradar',
      type: 'siem',
      enabled: true,
      settings: { destination_address: '10.0.0.7', destination_port: 514, format: 'leef', protocol: 'tcp' },
    });
    const pulled = await cli(['pull', dir, '--adopt']);
    expect(pulled.code, pulled.stderr).toBe(0);
    const created = await read(dir, 'notifications.yaml');
    // The directory is outside any project: the published schema of this version, no local path.
    expect(created).toMatch(
      /^# yaml-language-server: \$schema=https:\/\/unpkg\.com\/wafctl@\d+\.\d+\.\d+\S*\/schemas\/wafctl\.schema\.json\nnotifications:\n {2}- name: qradar\n/,
    );
    expect(await read(dir, 'groups.yaml')).toBe(GROUPS);
    expect(await planExit(dir)).toBe(0);
  });

  it('--kind limits what is pulled; nothing to pull says so', async () => {
    const dir = await appliedConfig({ 'groups.yaml': GROUPS, 'notifications.yaml': NOTIFICATIONS });
    expect((await cli(['pull', dir])).stdout).toBe('Nothing to pull: the files match the firewall.\n');
    const [soc] = (await firewall.api.groups.list()).filter((g) => g.name === 'soc');
    await firewall.api.groups.update(soc?.id ?? '', { name: 'soc', permissions: [], user_ids: [] });
    await firewall.api.notifications.update('splunk', { settings: { destination_port: 6514 } });
    const pulled = await cli(['pull', dir, '--kind', 'notifications']);
    expect(pulled.code).toBe(0);
    expect(await read(dir, 'groups.yaml')).toBe(GROUPS);
    expect(await read(dir, 'notifications.yaml')).toContain('destination_port: 6514');
  });
});

describe('wafctl pull --format, --write-shared (issue 40)', () => {
  it('markdown lists a conflict and the files; the errors stay on stderr, exit 1', async () => {
    const withVariable = NOTIFICATIONS.replace('10.0.0.5', `\${WAFCTL_VAR_SIEM_ADDRESS}`);
    const env = { WAFCTL_VAR_SIEM_ADDRESS: '10.0.0.5' };
    const dir = await appliedConfig({ 'notifications.yaml': withVariable, 'rules.yaml': RULES }, env);
    clock.advance(LATER);
    await firewall.api.notifications.update('splunk', { settings: { destination_address: '10.0.0.9' } });
    const [rule] = await firewall.api.applicationRules.list();
    await firewall.api.applicationRules.update(rule?.id ?? '', { priority: 'low' });

    const pulled = await cli(['pull', dir, '--format', 'markdown'], env);
    expect(pulled.code).toBe(1);
    expect(pulled.stdout).toBe(`### wafctl pull: 1 object into 1 file

Pulled 1 object (1 updated) into 1 file.

Hand changes by admin (2026-11-27 08:02 UTC).

**Hand changes** (who last changed each object, as the firewall records it):

- \`application_rule.shop.example.com/Block admin\`: admin, 2026-11-27 08:02 UTC

**Conflicts** (nothing was pulled for these objects):

- \`${join(dir, 'notifications.yaml')}:4:28\` \`notification.splunk\`: settings.destination\\_address comes from a \${VAR} substitution

**Files:**

- \`${join(dir, 'rules.yaml')}\`
`);
    expect(pulled.stderr).toBe(
      `Error: ${join(dir, 'notifications.yaml')}:4:28: notification.splunk: settings.destination_address comes from a \${VAR} substitution; nothing was pulled for it.\nError: 1 object could not be pulled (see above); the rest was written.\n`,
    );
    expect(await read(dir, 'rules.yaml')).toBe(RULES.replace('priority: high', 'priority: low'));
  });

  it('--dry-run --format json leaves the diff out: one document on stdout', async () => {
    const dir = await appliedConfig({ 'notifications.yaml': NOTIFICATIONS });
    await firewall.api.notifications.update('splunk', { settings: { destination_port: 6514 } });
    const dry = await cli(['pull', dir, '--dry-run', '--format', 'json']);
    expect(dry.stderr).toBe('');
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.stdout)).toEqual({
      format_version: 1,
      environment: null,
      dry_run: true,
      objects: { updated: 1, removed: 0, adopted: 0 },
      files: [{ file: join(dir, 'notifications.yaml'), created: false, shared_with: [] }],
      kept_in_own_path: [],
      conflicts: [],
      not_adopted: [],
    });
    expect(await read(dir, 'notifications.yaml')).toBe(NOTIFICATIONS);
  });

  it('--write-shared without --env is refused before any request', async () => {
    const dir = await appliedConfig({ 'notifications.yaml': NOTIFICATIONS });
    await firewall.resetStats();
    const pulled = await cli(['pull', dir, '--write-shared']);
    expect(pulled.stderr).toBe(
      'Error: --write-shared takes --env NAME: without environments, every file is written where it declares the value\n',
    );
    expect(pulled.code).toBe(1);
    expect((await firewall.stats()).total).toBe(0);
  });
});

describe('wafctl pull: what the next apply would delete', () => {
  const PRUNED = `manage:
  application_rules:
    prune: true
    match:
      rq_host: ["*.example.com"]
`;
  const hotfix = (rqHost: string, description: string): ApplicationRuleInput => ({
    rq_host: rqHost,
    description,
    priority: 'high',
    username: 'console',
    conditions: [{ operator: 'match', expressions: [{ expression: '^/x' }], targets: [{ target: 'path' }] }],
    actions: [{ firewall_action: 'block', firewall_name: 'waf-eu-1' }],
  });

  it('says which live objects in a pruned scope are not adopted and would be deleted', async () => {
    const dir = await appliedConfig({ 'rules.yaml': RULES, 'manage.yaml': PRUNED });
    clock.advance(LATER);
    // A hotfix made in the console, in scope; and one outside the scope, which apply never touches.
    await firewall.api.applicationRules.create([
      hotfix('shop.example.com', 'Hotfix at 3am'),
      hotfix('intranet.local', 'Not ours'),
    ]);

    const pulled = await cli(['pull', dir]);
    expect(pulled.code).toBe(0);
    expect(pulled.stderr).toBe(
      'Warning: 1 live object is not in the files and was not adopted (use --adopt); apply would delete it: application_rule.shop.example.com/Hotfix at 3am.\n',
    );
    expect(pulled.stdout).toBe('Nothing to pull: the files match the firewall.\n');
    const plan = await cli(['plan', dir]);
    expect(plan.stdout).toContain('# application_rule.shop.example.com/Hotfix at 3am will be destroyed');

    // With --adopt they are adopted: nothing to warn about, and the next plan deletes nothing.
    const adopted = await cli(['pull', dir, '--adopt']);
    expect(adopted.stderr).toBe('');
    // The emulator records the creator the create named (the body's `username`), as the spec says.
    expect(adopted.stdout).toBe(
      'Pulled 1 object (1 adopted) into 1 file.\nHand changes by console (2026-11-27 08:02 UTC).\n',
    );
    expect(await planExit(dir)).toBe(0);
  });

  it('names the first ten and counts the rest; reads a pruned kind that no file declares', async () => {
    const dir = await appliedConfig({
      'rules.yaml': RULES,
      'manage.yaml': `${PRUNED}  groups:\n    prune: true\n`,
    });
    await firewall.api.applicationRules.create(
      Array.from({ length: 12 }, (_, i) =>
        hotfix('shop.example.com', `Hotfix ${String(i).padStart(2, '0')}`),
      ),
    );
    await firewall.api.groups.create({ name: 'night-shift', permissions: [], user_ids: [] });

    const pulled = await cli(['pull', dir, '--dry-run']);
    expect(pulled.code).toBe(0);
    const names = Array.from({ length: 9 }, (_, i) => `application_rule.shop.example.com/Hotfix 0${i}`);
    expect(pulled.stderr).toBe(
      `Warning: 13 live objects are not in the files and were not adopted (use --adopt); apply would delete them: group.night-shift, ${names.join(', ')} and 3 more.\n`,
    );
  });

  it('says nothing when the scope does not prune', async () => {
    const dir = await appliedConfig({ 'rules.yaml': RULES });
    await firewall.api.applicationRules.create([hotfix('shop.example.com', 'Hotfix')]);
    const pulled = await cli(['pull', dir]);
    expect(pulled.code).toBe(0);
    expect(pulled.stderr).toBe('');
    expect(await planExit(dir)).toBe(0);
  });

  it('with --adopt, names those it could not adopt', async () => {
    const dir = await appliedConfig({ 'rules.yaml': RULES, 'manage.yaml': PRUNED });
    clock.advance(LATER);
    const [unkeyed] = await firewall.api.applicationRules.create([
      hotfix('shop.example.com', ''),
      hotfix('shop.example.com', 'Hotfix'),
    ]);
    const pulled = await cli(['pull', dir, '--adopt']);
    expect(pulled.code).toBe(0);
    expect(pulled.stderr).toBe(
      `Warning: application_rule ${unkeyed} (shop.example.com/) not adopted: it has no description, and application rules are keyed by rq_host and description.\n` +
        'Warning: 1 live object is not in the files and could not be adopted (see above); apply would delete it: application_rule.shop.example.com/.\n',
    );
    expect(pulled.stdout).toBe(
      'Pulled 1 object (1 adopted) into 1 file.\nHand changes by console (2026-11-27 08:02 UTC).\n',
    );
  });
});

describe('files wafctl pull must not lose', () => {
  it('keeps other documents of a multi-document file byte for byte', async () => {
    const multi = `${NOTIFICATIONS}---\n# second document\n${SCHEDULES}`;
    const dir = await appliedConfig({ 'all.yaml': multi });
    await firewall.api.notifications.update('splunk', { settings: { destination_port: 6514 } });
    expect((await cli(['pull', dir])).code).toBe(0);
    expect(await read(dir, 'all.yaml')).toBe(multi.replace('514   # syslog', '6514   # syslog'));
  });

  it('edits the target of a symbolic link, keeping the link and the target mode', async () => {
    // The target is inside the configuration root (links that leave it are refused), under a name
    // the directory walk does not read, so it is read once, through the link.
    const dir = await writeConfig({ 'shared/notifications.txt': NOTIFICATIONS });
    const target = join(dir, 'shared', 'notifications.txt');
    await chmod(target, 0o640);
    await symlink(target, join(dir, 'notifications.yaml'));
    expect((await cli(['apply', dir, '--auto-approve'])).code).toBe(0);
    await firewall.api.notifications.update('splunk', { settings: { destination_port: 6514 } });

    const pulled = await cli(['pull', dir]);
    expect(pulled.stderr).toBe('');
    expect(pulled.code).toBe(0);
    expect((await lstat(join(dir, 'notifications.yaml'))).isSymbolicLink()).toBe(true);
    expect(await readFile(target, 'utf8')).toBe(NOTIFICATIONS.replace('514   # syslog', '6514   # syslog'));
    expect((await stat(target)).mode & 0o7777).toBe(0o640);
  });
});
