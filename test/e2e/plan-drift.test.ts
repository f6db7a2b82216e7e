/** `wafctl plan` and `wafctl drift`: the real CLI against a real emulator on a free port. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import {
  E2E_TOKEN,
  startTestFirewall,
  type TestFirewall,
  unreachableUrl,
  writeConfig,
} from '../helpers/firewall.js';
import { EXAMPLES } from '../helpers/fixtures.js';

const CONFIG = `
groups:
  - name: ops
    description: Operators
    permissions:
      - permission: Handle rules
    users: [u-1002, u-1001]
application_rules:
  - rq_host: shop.example.com
    description: Block admin
    priority: high
    conditions:
      - operator: match
        expressions: ["^/admin"]
        targets: [path, query]
    actions:
      - firewall_action: block
        firewall_name: waf-eu-1
      - firewall_action: log
        firewall_name: waf-eu-2
notifications:
  - name: splunk
    settings: {destination_address: 10.0.0.5, destination_port: 514, format: cef, protocol: udp}
schedules:
  - name: weekly
    hosts: [shop.example.com]
    type: summary
    schedule: weekly
    send_to: [secops@example.com]
    send_via: email
    timezone: Europe/Paris
`;

/** Creates, through the API, exactly what CONFIG declares (sets in another order on purpose). */
async function createConfiguredObjects(firewall: TestFirewall): Promise<string[]> {
  const { api } = firewall;
  await api.groups.create({
    name: 'ops',
    description: 'Operators',
    permissions: [{ permission_id: 1, service_id: '' }],
    user_ids: ['u-1001', 'u-1002'],
  });
  const ruleIds = await api.applicationRules.create([
    {
      rq_host: 'shop.example.com',
      description: 'Block admin',
      priority: 'high',
      username: 'someone',
      conditions: [
        {
          operator: 'match',
          expressions: [{ expression: '^/admin' }],
          targets: [{ target: 'query' }, { target: 'path' }],
        },
      ],
      actions: [
        { firewall_action: 'log', firewall_name: 'waf-eu-2' },
        { firewall_action: 'block', firewall_name: 'waf-eu-1' },
      ],
    },
  ]);
  await api.notifications.create({
    name: 'splunk',
    type: 'siem',
    enabled: true,
    settings: { destination_address: '10.0.0.5', destination_port: 514, format: 'cef', protocol: 'udp' },
  });
  await api.schedules.create({
    name: 'weekly',
    hosts: ['shop.example.com'],
    type: 'summary',
    schedule: 'weekly',
    send_to: ['secops@example.com'],
    send_via: 'email',
    timezone: 'Europe/Paris',
  });
  return ruleIds;
}

let firewall: TestFirewall;
afterEach(async () => {
  await firewall.close();
});

describe('wafctl plan', () => {
  beforeEach(async () => {
    firewall = await startTestFirewall();
  });

  it('lists every object of examples/ as created against an empty emulator', async () => {
    const result = await runCli(['plan', EXAMPLES], { env: firewall.env });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    for (const header of [
      '# group.soc-analysts will be created',
      '# group.waf-admins will be created',
      '# notification.splunk will be created',
      '# schedule.weekly-shop will be created',
      '# schedule.daily-api will be created',
    ]) {
      expect(result.stdout).toContain(header);
    }
    expect(result.stdout.trimEnd().split('\n').at(-1)).toMatch(
      /^Plan: \d+ to add, 0 to change, 0 to destroy\.$/,
    );

    const json = await runCli(['plan', EXAMPLES, '--format', 'json'], { env: firewall.env });
    const doc = JSON.parse(json.stdout) as { summary: Record<string, number>; changes: { action: string }[] };
    expect(doc.summary.create).toBeGreaterThanOrEqual(13);
    expect(doc.summary.create).toBe(doc.changes.length);
    expect(new Set(doc.changes.map((c) => c.action))).toEqual(new Set(['create']));
  });

  it('exits 2 with --detailed-exitcode when there are changes, and 0 when there are none', async () => {
    const dir = await writeConfig({ 'waf.yaml': CONFIG });
    expect((await runCli(['plan', dir, '--detailed-exitcode'], { env: firewall.env })).code).toBe(2);
    await createConfiguredObjects(firewall);
    const same = await runCli(['plan', dir, '--detailed-exitcode'], { env: firewall.env });
    expect(same.stdout).toBe('No changes. The firewall matches the configuration.\n');
    expect(same.code).toBe(0);
  });

  it('shows an in-place update and a replacement, and saves the JSON plan with --out', async () => {
    await createConfiguredObjects(firewall);
    const changed = CONFIG.replace('priority: high', 'priority: low').replace('"^/admin"', '"^/admin/"');
    const dir = await writeConfig({
      'waf.yaml': changed.replace('destination_port: 514', 'destination_port: 6514'),
    });
    const out = join(dir, 'plan.json');
    const result = await runCli(['plan', dir, '--out', out], { env: firewall.env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('# application_rule.shop.example.com/Block admin will be replaced');
    expect(result.stdout).toContain('# forces replacement');
    expect(result.stdout).toContain('# notification.splunk will be updated in-place');
    // Nested: the port inside a `settings = {` block, the other settings as context, no JSON line.
    expect(result.stdout).toMatch(/~ settings = \{\n(.*\n)*? +~ destination_port +=\s514 -> 6514\n/);
    expect(result.stdout).not.toMatch(/^ {6}.*[[{]["\d{[]/m);
    expect(result.stdout).toContain('Plan: 1 to add, 1 to change, 1 to destroy.');
    const saved = JSON.parse(await readFile(out, 'utf8')) as {
      format_version: number;
      changes: { fingerprint?: string }[];
    };
    expect(saved.format_version).toBe(1);
    expect(saved.changes.every((c) => typeof c.fingerprint === 'string')).toBe(true);
    expect(await readFile(out, 'utf8')).not.toContain(E2E_TOKEN);
  });

  it('heals a key two remote rules share: the copy equal to the configuration stays, the other goes', async () => {
    // The older copy differs (a cancelled replacement leaves exactly this); the newer one matches.
    const [stale] = await firewall.api.applicationRules.create([
      {
        rq_host: 'shop.example.com',
        description: 'Block admin',
        priority: 'low',
        username: 'someone',
        conditions: [
          { operator: 'match', expressions: [{ expression: 'x' }], targets: [{ target: 'path' }] },
        ],
        actions: [{ firewall_action: 'block', firewall_name: 'waf-eu-1' }],
      },
    ]);
    const [current] = await createConfiguredObjects(firewall);
    const dir = await writeConfig({ 'waf.yaml': CONFIG });

    const text = await runCli(['plan', dir, '--detailed-exitcode'], { env: firewall.env });
    expect(text.code).toBe(2);
    expect(text.stdout).toContain(
      `# application_rule.shop.example.com/Block admin will be destroyed (duplicate of ${current})`,
    );
    expect(text.stdout).toContain('Plan: 0 to add, 0 to change, 1 to destroy.');

    const json = await runCli(['plan', dir, '--format', 'json'], { env: firewall.env });
    expect(JSON.parse(json.stdout).changes).toEqual([
      expect.objectContaining({ action: 'delete', id: stale, reason: 'duplicate', duplicate_of: current }),
    ]);

    const apply = await runCli(['apply', dir, '--auto-approve'], { env: firewall.env });
    expect(apply.stdout).toContain('Apply complete! Resources: 0 added, 0 changed, 1 destroyed.');
    const after = await runCli(['plan', dir, '--detailed-exitcode'], { env: firewall.env });
    expect(after.code).toBe(0);
    expect((await firewall.api.applicationRules.list()).map((r) => r.id)).toEqual([current]);
  });

  it('reports configuration errors before any network call', async () => {
    const dir = await writeConfig({ 'bad.yaml': 'groups:\n  - name: x\n    is_admin: yes\n' });
    const result = await runCli(['plan', dir], {
      env: { WAF_URL: await unreachableUrl(), WAF_TOKEN: 'unused-token' },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `${join(dir, 'bad.yaml')}:3:15 groups[0].is_admin: expected boolean, got string "yes"`,
    );
    expect(result.stdout).toBe('');
  });

  it('refuses to write a saved plan or a report that would contain the token', async () => {
    const dir = await writeConfig({
      'n.yaml':
        'notifications:\n  - name: splunk-$' +
        '{WAFCTL_VAR_LEAK}\n    settings: {destination_address: 10.0.0.5, destination_port: 514, format: cef, protocol: udp}\n',
    });
    const out = join(dir, 'plan.json');
    // A variable the configuration may read that happens to hold the token (WAF_TOKEN itself is not readable).
    const env = { ...firewall.env, WAFCTL_VAR_LEAK: E2E_TOKEN };
    const plan = await runCli(['plan', dir, '--out', out], { env });
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain(`Error: refusing to write ${out}: it would contain the API token`);
    await expect(readFile(out, 'utf8')).rejects.toThrow('ENOENT');
    const report = join(dir, 'drift.txt');
    const drift = await runCli(['drift', dir, '--report', report], { env });
    expect(drift.code).toBe(1);
    await expect(readFile(report, 'utf8')).rejects.toThrow('ENOENT');
    expect(plan.stdout + plan.stderr + drift.stdout + drift.stderr).not.toContain(E2E_TOKEN);
  });

  it('never prints the token, even with WAFCTL_DEBUG request logs', async () => {
    const dir = await writeConfig({ 'waf.yaml': CONFIG });
    const result = await runCli(['plan', dir], { env: { ...firewall.env, WAFCTL_DEBUG: '1' } });
    expect(result.stderr).toContain('--> GET /api/v1/groups');
    expect(result.stdout + result.stderr).not.toContain(E2E_TOKEN);
  });
});

describe('wafctl plan against list rows that need hydration', () => {
  beforeEach(async () => {
    firewall = await startTestFirewall({ applicationRuleListShape: 'single-action' });
  });

  it('hydrates incomplete rows with GET-one and sees no spurious difference', async () => {
    await createConfiguredObjects(firewall);
    await firewall.resetStats();
    const dir = await writeConfig({ 'waf.yaml': CONFIG });
    const result = await runCli(['plan', dir, '--detailed-exitcode'], { env: firewall.env });
    expect(result.stdout).toBe('No changes. The firewall matches the configuration.\n');
    expect(result.code).toBe(0);
    const stats = await firewall.stats();
    expect(stats.by_route['GET /api/v1/application_rules/{application_rule_id}']).toBe(1);
    // The configured group and the built-in admins group (read to be known read-only).
    expect(stats.by_route['GET /api/v1/groups/{id}']).toBe(2);
  });
});

describe('wafctl drift', () => {
  beforeEach(async () => {
    firewall = await startTestFirewall();
  });

  it('exits 0 without drift and 2 after an out-of-band change, in every format', async () => {
    await createConfiguredObjects(firewall);
    const dir = await writeConfig({ 'waf.yaml': CONFIG });
    const clean = await runCli(['drift', dir], { env: firewall.env });
    expect(clean.stdout).toBe('No drift: the firewall matches the configuration.\n');
    expect(clean.code).toBe(0);

    await firewall.api.notifications.update('splunk', { settings: { destination_port: 1514 } });
    const drifted = await runCli(['drift', dir], { env: firewall.env });
    expect(drifted.code).toBe(2);
    expect(drifted.stdout).toContain('Drift detected: 1 object differs from the configuration.');
    expect(drifted.stdout).toContain('~ notification.splunk: settings differs');

    const report = join(dir, 'drift.json');
    const json = await runCli(['drift', dir, '--format', 'json', '--report', report], { env: firewall.env });
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({ drift: true, objects: 1 });
    expect(await readFile(report, 'utf8')).toBe(json.stdout);

    const markdown = await runCli(['drift', dir, '--format', 'markdown'], { env: firewall.env });
    // Its own sticky-comment marker: a drift comment never replaces a plan comment.
    expect(markdown.stdout.split('\n')[0]).toBe('<!-- wafctl-drift -->');
    expect(markdown.stdout).not.toContain('<!-- wafctl-plan -->');
  });

  it('exits 1 when the firewall cannot be reached', async () => {
    const dir = await writeConfig({ 'waf.yaml': CONFIG });
    const result = await runCli(['drift', dir], {
      env: { WAF_URL: await unreachableUrl(), WAF_TOKEN: 'some-token' },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^Error: \[GET\] \/api\/v1\/\S+: cannot reach 127\.0\.0\.1:\d+: ECONNREFUSED/m,
    );
  });
});
