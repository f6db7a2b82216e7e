/**
 * The built-in `admins` group (issue 40): wafctl cannot change it, but someone may add an
 * administrator to it by hand, the escalation a nightly drift job most needs to catch. By default the
 * group is expected to hold the built-in `admin` user alone; `admins: {users: [...]}` says otherwise.
 * A difference is read-only drift: reported by plan, drift and compare, `broadens_access` for an
 * added member, never applied.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import {
  E2E_TOKEN,
  manualClock,
  startTestFirewall,
  type TestFirewall,
  writeConfig,
} from '../helpers/firewall.js';
import { GIT_ENV, pullRequestRepo } from '../helpers/git.js';
import { type Intercept, startProxy, type TestProxy } from '../helpers/proxy.js';

/**
 * A firewall whose admins group holds `admin` and `grace`: grace was added by hand. Its clock stands
 * at 2026-11-27 08:00 UTC: the group's `updated_at`, which drift reports as `changed_at`.
 */
const escalated = (): Promise<TestFirewall> =>
  startTestFirewall({
    clock: manualClock(),
    seed: { groups: [{ name: 'admins', is_admin: true, user_ids: ['u-1000', 'u-1007'] }] },
  });

let firewall: TestFirewall;
afterEach(async () => {
  await firewall.close();
});

const GROUPS = 'groups:\n  - name: soc\n    users: [alice]\n';

describe('a member added to admins by hand', () => {
  beforeEach(async () => {
    firewall = await escalated();
  });

  it('is drift of class broadens_access, caught by --fail-on, in text and JSON', async () => {
    const dir = await writeConfig({ 'groups.yaml': GROUPS });
    expect((await runCli(['apply', dir, '--auto-approve'], { env: firewall.env })).code).toBe(0);

    const drift = await runCli(['drift', dir], { env: firewall.env });
    expect(drift.code).toBe(2);
    expect(drift.stdout).toContain('Drift detected: 1 object differs from the configuration.');
    expect(drift.stdout).toContain(
      'Security impact of the drift (what was changed outside wafctl): 1 read-only object broadens access.',
    );
    expect(drift.stdout).toContain(
      '! broadens_access  group.admins: member added to an administrator group: grace (u-1007) (read-only: wafctl cannot change it)',
    );
    expect(drift.stdout).toContain(
      '! group.admins: users differs (read-only: wafctl cannot change it; review it by hand)',
    );

    const gated = await runCli(['drift', dir, '--fail-on', 'broadens_access'], { env: firewall.env });
    expect(gated.code).toBe(3);
    expect(gated.stderr).toMatch(
      /^Error: --fail-on broadens_access: 1 change broadens access \(group\.admins\)/,
    );

    const json = JSON.parse((await runCli(['drift', dir, '--format', 'json'], { env: firewall.env })).stdout);
    expect(json).toMatchObject({ drift: true, objects: 1, changes: [] });
    expect(json.read_only).toEqual([
      {
        kind: 'group',
        key: 'admins',
        id: expect.any(String),
        fields: ['users'],
        before: { users: ['u-1000'] },
        after: { users: ['u-1000', 'u-1007'] },
        // The group's record says when it changed, not who: no `changed_by`.
        changed_at: '2026-11-27T08:00:00.000Z',
        impact: [
          { class: 'broadens_access', reason: 'member added to an administrator group: grace (u-1007)' },
        ],
      },
    ]);
    expect(json.usernames).toMatchObject({ 'u-1000': 'admin', 'u-1007': 'grace' });
  });

  it('plan shows it, read-only, and never applies it; apply leaves the group as it is', async () => {
    const dir = await writeConfig({ 'groups.yaml': GROUPS });
    const plan = await runCli(['plan', dir], { env: firewall.env });
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain(
      'Read-only: 1 read-only object differs from what the configuration expects; wafctl cannot change it: review by hand.',
    );
    expect(plan.stdout).toContain('+ "grace (u-1007)"');
    expect(plan.stdout).toContain('Plan: 1 to add, 0 to change, 0 to destroy.');
    expect((await runCli(['apply', dir, '--auto-approve'], { env: firewall.env })).code).toBe(0);
    const admins = (await firewall.api.groups.list()).find((group) => group.name === 'admins');
    const members = (await firewall.api.groups.get(admins?.id ?? '')).users?.map((user) => user.id);
    expect(members?.sort()).toEqual(['u-1000', 'u-1007']);
    // The rest of the configuration is in place: only the read-only difference is left.
    expect((await runCli(['plan', dir, '--detailed-exitcode'], { env: firewall.env })).code).toBe(0);
  });

  it('is not drift once the configuration expects it (admins: {users: [...]}), by username or id', async () => {
    for (const users of ['[admin, grace]', '[u-1000, grace]']) {
      const dir = await writeConfig({ 'groups.yaml': `${GROUPS}admins:\n  users: ${users}\n` });
      expect((await runCli(['apply', dir, '--auto-approve'], { env: firewall.env })).code).toBe(0);
      const drift = await runCli(['drift', dir], { env: firewall.env });
      expect(drift.stdout).toBe('No drift: the firewall matches the configuration.\n');
      expect(drift.code).toBe(0);
    }
    // A user the directory does not know is an error naming it, before any change.
    const dir = await writeConfig({ 'groups.yaml': `${GROUPS}admins:\n  users: [admin, gracee]\n` });
    const refused = await runCli(['plan', dir], { env: firewall.env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('admins.users: unknown user "gracee"');
  });

  it('export writes the expectation, so that export -> plan -> drift is quiet', async () => {
    const exported = await runCli(['export', '--kind', 'groups'], { env: firewall.env });
    expect(exported.stdout).toContain('admins:\n  users: [admin, grace]\n');
    const dir = await writeConfig({ 'groups.yaml': exported.stdout });
    expect((await runCli(['drift', dir], { env: firewall.env })).code).toBe(0);
  });

  it('compare tells two firewalls apart by their administrators', async () => {
    const other = await startTestFirewall();
    try {
      const dir = await writeConfig({
        'wafctl.yaml': `environments:
  staging: {url: ${other.url}, token_env: TOKEN, paths: [base]}
  production: {url: ${firewall.url}, token_env: TOKEN, paths: [base]}
`,
        'base/groups.yaml': GROUPS,
      });
      const env = { TOKEN: E2E_TOKEN };
      const compared = await runCli(
        ['compare', 'staging', 'production', dir, '--fail-on', 'broadens_access'],
        { env },
      );
      expect(compared.code).toBe(3);
      expect(compared.stdout).toContain('Compare live staging -> production: 1 difference');
      expect(compared.stdout).toContain('group.admins: users differ (read-only)');
      expect(compared.stdout).toContain('broadens_access  group.admins: member added: grace (read-only');
    } finally {
      await other.close();
    }
  });
});

describe('the default expectation', () => {
  beforeEach(async () => {
    firewall = await startTestFirewall();
  });

  it('a new firewall (admin alone) is no drift; the expectation is policy a trusted ref pins', async () => {
    const dir = await writeConfig({ 'groups.yaml': GROUPS });
    expect((await runCli(['apply', dir, '--auto-approve'], { env: firewall.env })).code).toBe(0);
    expect((await runCli(['drift', dir], { env: firewall.env })).code).toBe(0);

    // A pull request that expects an extra administrator does not make one unseen: the base
    // branch's expectation is used, and the change is listed in the Trust section.
    const repo = await pullRequestRepo(
      { 'groups.yaml': GROUPS },
      { 'groups.yaml': `${GROUPS}admins:\n  users: [admin, grace]\n` },
    );
    const plan = await runCli(['plan', repo, '--trusted-ref', 'main'], {
      env: { ...GIT_ENV, ...firewall.env },
    });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('! changes_trust  admins: users: null -> ["admin","grace"]');
  });
});

/**
 * A server with no user named `admin` (issue 50, finding 8a): the built-in administrator was renamed
 * `root` (user u-1000), and `erin` was added to admins by hand (the seed puts her there: the server
 * refuses every edit of the group, so a hand-added administrator is one it was given some other
 * way). The group's records name each member, so the default (`admin`) is checked against those
 * names, with or without the user listing.
 */
describe('a server without a user named admin', () => {
  const seed = {
    users: [
      { id: 'u-1000', username: 'root' },
      { id: 'u-1001', username: 'alice' },
      { id: 'u-1005', username: 'erin' },
    ],
    groups: [{ name: 'admins', is_admin: true, user_ids: ['u-1000', 'u-1005'] }],
  };
  // By id: without the listing, a username could not be sent.
  const SOC = 'groups:\n  - name: soc\n    users: [u-1001]\n';
  beforeEach(async () => {
    firewall = await startTestFirewall({ seed });
  });

  /** The env of a proxy in front of the firewall that answers `intercept` first. */
  const behind = async (intercept: Intercept) => {
    const proxy = await startProxy(firewall.url, intercept);
    proxies.push(proxy);
    return { ...firewall.env, WAF_URL: proxy.url };
  };
  const proxies: TestProxy[] = [];
  afterEach(async () => {
    for (const proxy of proxies.splice(0)) await proxy.close();
  });
  const noUsers: Intercept = ({ path }) =>
    path.startsWith('/api/v1/users') ? { status: 404, type: 'application/json', body: '{}' } : undefined;

  for (const listing of ['with', 'without'] as const) {
    it(`the default catches erin, by the usernames the group's record gives, ${listing} the user listing`, async () => {
      const env = listing === 'with' ? firewall.env : await behind(noUsers);
      const dir = await writeConfig({ 'groups.yaml': SOC });
      const drift = await runCli(['drift', dir, '--format', 'json'], { env });
      expect(drift.code, drift.stderr).toBe(2);
      expect(drift.stderr).not.toContain('admins.users');
      const json = JSON.parse(drift.stdout);
      expect(json.read_only).toMatchObject([
        {
          key: 'admins',
          fields: ['users'],
          before: { users: ['admin'] },
          after: { users: ['u-1000', 'u-1005'] },
          impact: [
            {
              class: 'broadens_access',
              reason: 'members added to an administrator group: root (u-1000), erin (u-1005)',
            },
          ],
        },
      ]);
      expect(json.usernames).toMatchObject({ 'u-1000': 'root', 'u-1005': 'erin' });
      const gated = await runCli(['drift', dir, '--fail-on', 'broadens_access'], { env });
      expect(gated.code).toBe(3);
    });

    it(`an expectation by username or id names erin alone, ${listing} the user listing`, async () => {
      const env = listing === 'with' ? firewall.env : await behind(noUsers);
      for (const users of ['[root]', '[u-1000]']) {
        const dir = await writeConfig({ 'groups.yaml': `${SOC}admins:\n  users: ${users}\n` });
        const drift = await runCli(['drift', dir], { env });
        expect(drift.code, drift.stderr).toBe(2);
        expect(drift.stdout).toContain(
          '! broadens_access  group.admins: member added to an administrator group: erin (u-1005) (read-only: wafctl cannot change it)',
        );
      }
      const expected = await writeConfig({ 'groups.yaml': `${SOC}admins:\n  users: [root, erin]\n` });
      expect((await runCli(['apply', expected, '--auto-approve'], { env })).code).toBe(0);
      const quiet = await runCli(['drift', expected], { env });
      expect(quiet.stdout).toBe('No drift: the firewall matches the configuration.\n');
    });
  }

  it('a record that gives a member no username: that member is compared by id, and a note says so', async () => {
    // The group's record names erin by id alone, and no user listing names her.
    const env = await behind(async (request) => {
      if (request.path.startsWith('/api/v1/users')) return noUsers(request);
      if (!/^\/api\/v1\/groups\/[^/]+$/.test(request.path)) return undefined;
      const answer = await request.forward();
      return { ...answer, body: answer.body.replaceAll('"username":"erin"', '"username":""') };
    });
    const dir = await writeConfig({ 'groups.yaml': SOC });
    const drift = await runCli(['drift', dir], { env });
    expect(drift.code, drift.stderr).toBe(2);
    expect(drift.stdout).toContain(
      '! broadens_access  group.admins: members added to an administrator group: root (u-1000), u-1005 (read-only: wafctl cannot change it)',
    );
    expect(drift.stderr).toContain(
      'Note: admins.users: the record of group admins gives no username for u-1005, nor does a user listing: compared by id.',
    );
  });
});
