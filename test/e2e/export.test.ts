/* biome-ignore-all lint/suspicious/noTemplateCurlyInString: a `${...}` in a rule description is data that export must escape */
/** `wafctl export`: the real CLI against a real emulator; the export must plan to "No changes." */

import { lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import type { ApplicationRuleInput } from '../../src/api/index.js';
import { EXPORT_MARKER } from '../../src/ops/export/document.js';
import { runCli } from '../helpers/cli.js';
import { startTestFirewall, type TestFirewall, unreachableUrl } from '../helpers/firewall.js';
import { EXAMPLES } from '../helpers/fixtures.js';

const rule = (rqHost: string, description: string | null, expression = '^/x'): ApplicationRuleInput => ({
  rq_host: rqHost,
  description: description as string,
  priority: 'low',
  username: 'someone',
  conditions: [{ operator: 'match', expressions: [{ expression }], targets: [{ target: 'path' }] }],
  actions: [{ firewall_action: 'block', firewall_name: 'waf-eu-1' }],
});

/** A loopback server in front of `target` whose answers to GET pass through `rewrite`: a lying proxy. */
async function rewritingProxy(target: string, rewrite: (body: string) => string): Promise<string> {
  const server = createServer((req, res) => {
    const forward = async () => {
      const answer = await fetch(`${target}${req.url}`, {
        headers: { authorization: req.headers.authorization ?? '' },
      });
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(rewrite(await answer.text()));
    };
    forward().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => {
    server.closeAllConnections();
    server.close();
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** One of everything the format can say, created through the API with sets in a shuffled order. */
async function populate({ api }: TestFirewall): Promise<void> {
  await api.groups.create({
    name: 'soc',
    description: 'Tier-1 analysts',
    permissions: [
      { permission_id: 0, service_id: 'svc-shop' },
      { permission_id: 0, service_id: 'svc-api' },
      { permission_id: 2, service_id: '' },
    ],
    user_ids: ['u-1003', 'u-1001'],
  });
  await api.groups.create({ name: 'operators', is_admin: true, permissions: [], user_ids: ['u-1002'] });
  await api.applicationRules.create([
    {
      rq_host: 'shop.example.com',
      description: 'Block ${jndi} lookups and the admin panel',
      priority: 'high',
      username: 'someone',
      enabled: false,
      duration: 3600,
      start_time: 1_767_225_600_000_000,
      conditions: [
        {
          operator: 'match',
          not_op: true,
          expressions: [{ expression: '^/admin' }, { expression: '\\$\\{jndi:' }],
          targets: [{ target: 'request:user-agent' }, { target: 'path' }],
        },
        {
          operator: 'contains',
          expressions: [{ expression: 'union select' }],
          targets: [{ target: 'request_body:x-www-form-urlencoded:q' }],
        },
      ],
      actions: [
        { firewall_action: 'log', firewall_name: 'waf-eu-2' },
        { firewall_action: 'block', firewall_name: 'waf-eu-1' },
      ],
    },
    rule('api.example.com', 'Log v1 calls'),
  ]);
  await api.notifications.create({
    name: 'splunk',
    type: 'siem',
    enabled: true,
    settings: { destination_address: '10.0.0.5', destination_port: 514, format: 'cef', protocol: 'udp' },
  });
  await api.notifications.create({
    name: 'archive',
    type: 'generic',
    enabled: false,
    settings: { destination_address: '2001:db8::7', destination_port: 6514, format: 'json', protocol: 'tcp' },
  });
  await api.schedules.create({
    name: 'weekly-shop',
    hosts: ['shop.example.com', 'api.example.com'],
    services: ['svc-shop', 'svc-api'],
    type: 'summary',
    schedule: 'weekly',
    send_to: ['secops@example.com', 'owners@example.com'],
    send_via: 'email',
    timezone: 'Europe/Paris',
  });
  await api.schedules.create({
    name: 'daily-api',
    hosts: ['api.example.com'],
    type: 'detailed',
    schedule: 'daily',
    send_to: ['api@example.com'],
    send_via: 'email',
    timezone: 'America/New_York',
  });
}

const EXPECTED_STDOUT = `# yaml-language-server: $schema=schemas/wafctl.schema.json
manage:
  groups:
    prune: true
  application_rules:
    prune: true
  notifications:
    prune: true
  schedules:
    prune: true

groups:
  - name: operators
    is_admin: true
    users: [bob]

  - name: soc
    description: Tier-1 analysts
    permissions:
      - permission: Explore alerts
        service_id: svc-api
      - permission: Explore alerts
        service_id: svc-shop
      - permission: Load application rules
    users: [alice, carol]

# Built in and read-only: plan, drift and compare check that it still holds these values; wafctl never writes it.
admins:
  users: [admin]

application_rules:
  - rq_host: api.example.com
    description: Log v1 calls
    priority: low
    conditions:
      - operator: match
        expressions: [^/x]
        targets: [path]
    actions:
      - firewall_action: block
        firewall_name: waf-eu-1

  - rq_host: shop.example.com
    description: Block $\${jndi} lookups and the admin panel
    priority: high
    enabled: false
    duration: 3600
    start_time: 1767225600000000
    conditions:
      - operator: match
        not_op: true
        expressions: ["\\\\$\\\\{jndi:", ^/admin]
        targets: [path, request:user-agent]
      - operator: contains
        expressions: [union select]
        targets: [request_body:x-www-form-urlencoded:q]
    actions:
      - firewall_action: block
        firewall_name: waf-eu-1
      - firewall_action: log
        firewall_name: waf-eu-2

notifications:
  - name: archive
    type: generic
    enabled: false
    settings:
      destination_address: 2001:db8::7
      destination_port: 6514
      format: json
      protocol: tcp

  - name: splunk
    settings:
      destination_address: 10.0.0.5
      destination_port: 514
      format: cef
      protocol: udp

schedules:
  - name: daily-api
    hosts: [api.example.com]
    type: detailed
    schedule: daily
    send_to: [api@example.com]
    send_via: email
    timezone: America/New_York

  - name: weekly-shop
    hosts: [api.example.com, shop.example.com]
    services: [svc-api, svc-shop]
    type: summary
    schedule: weekly
    send_to: [owners@example.com, secops@example.com]
    send_via: email
    timezone: Europe/Paris

network_rule_settings:
  automation:
    enable: false
    default_duration_minutes: 1440
    update_firewall: false
    whitelist: []
  expire_strategy: delete
`;

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const VERSION = (JSON.parse(await readFile(join(REPO, 'package.json'), 'utf8')) as { version: string })
  .version;
const SCHEMA_URL = `https://unpkg.com/wafctl@${VERSION}/schemas/wafctl.schema.json`;

async function tempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'wafctl-export-'));
}

async function readAll(dir: string): Promise<Record<string, string>> {
  const names = (await readdir(dir)).sort();
  return Object.fromEntries(
    await Promise.all(names.map(async (n) => [n, await readFile(join(dir, n), 'utf8')])),
  );
}

let firewall: TestFirewall;
afterEach(async () => {
  await firewall.close();
});

describe('wafctl export', () => {
  beforeEach(async () => {
    firewall = await startTestFirewall();
  });

  it('writes the live state to stdout, sorted, defaults omitted; it validates and plans to no changes', async () => {
    await populate(firewall);
    const result = await runCli(['export'], { env: firewall.env });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(EXPECTED_STDOUT);

    const dir = await tempDir();
    await writeFile(join(dir, 'waf.yaml'), result.stdout);
    const validate = await runCli(['validate', dir]);
    expect(validate.stdout).toContain('Configuration is valid: 1 file, 2 groups, 2 application rules');
    expect(validate.code).toBe(0);
    const plan = await runCli(['plan', dir, '--detailed-exitcode'], { env: firewall.env });
    expect(plan.stdout).toBe('No changes. The firewall matches the configuration.\n');
    expect(plan.code).toBe(0);
  });

  it('writes one file per kind into --dir; a re-export gives byte-identical files', async () => {
    await populate(firewall);
    const dir = join(await tempDir(), 'waf');
    const first = await runCli(['export', '--dir', dir], { env: firewall.env });
    expect(first.code).toBe(0);
    expect(first.stdout).toBe(
      `Exported 2 groups, 2 application rules, 2 notifications, 2 schedules, network rule settings to 5 files in ${dir}.\n`,
    );
    const files = await readAll(dir);
    expect(Object.keys(files)).toEqual([
      'application-rules.yaml',
      'groups.yaml',
      'network-rule-settings.yaml',
      'notifications.yaml',
      'schedules.yaml',
    ]);
    // The temporary directory is outside any project: the schema is the published one of this version.
    for (const text of Object.values(files)) {
      expect(text.split('\n')[0]).toBe(`# yaml-language-server: $schema=${SCHEMA_URL}`);
    }
    expect(files['groups.yaml']).toContain(
      'manage:\n  groups:\n    prune: true\n\ngroups:\n  - name: operators\n',
    );

    const again = await runCli(['export', '--dir', dir], { env: firewall.env });
    expect(again.code).toBe(0);
    expect(await readAll(dir)).toEqual(files);

    const plan = await runCli(['plan', dir, '--detailed-exitcode'], { env: firewall.env });
    expect(plan.stdout).toBe('No changes. The firewall matches the configuration.\n');
    expect(plan.code).toBe(0);
  });

  it('never writes an absolute local path as the schema: the published URL outside a project, a relative path inside', async () => {
    const header = (reference: string) => `# yaml-language-server: $schema=${reference}\n${EXPORT_MARKER}\n`;
    const outside = await tempDir();
    // A relative --dir, and stdout, decide from the command's current directory, not the process's.
    const toDir = await runCli(['export', '--dir', 'waf', '--kind', 'groups'], {
      env: firewall.env,
      cwd: outside,
    });
    expect(toDir.code, toDir.stderr).toBe(0);
    const outsideText = await readFile(join(outside, 'waf', 'groups.yaml'), 'utf8');
    expect(outsideText.slice(0, header(SCHEMA_URL).length)).toBe(header(SCHEMA_URL));
    const toStdout = await runCli(['export', '--kind', 'groups'], { env: firewall.env, cwd: outside });
    expect(toStdout.stdout.split('\n')[0]).toBe(`# yaml-language-server: $schema=${SCHEMA_URL}`);

    // Inside the repository (a git-ignored folder, so the tree stays clean): relative to the file.
    const cache = join(REPO, 'node_modules', '.cache');
    await mkdir(cache, { recursive: true });
    const inside = await mkdtemp(join(cache, 'wafctl-export-'));
    try {
      const result = await runCli(['export', '--dir', join(inside, 'waf'), '--kind', 'groups'], {
        env: firewall.env,
      });
      expect(result.code, result.stderr).toBe(0);
      const reference = relative(join(inside, 'waf'), join(REPO, 'schemas', 'wafctl.schema.json'));
      expect(reference).toBe('../../../../schemas/wafctl.schema.json');
      const insideText = await readFile(join(inside, 'waf', 'groups.yaml'), 'utf8');
      expect(insideText.slice(0, header(reference).length)).toBe(header(reference));
      const fromInside = await runCli(['export', '--kind', 'groups'], { env: firewall.env, cwd: inside });
      expect(fromInside.stdout.split('\n')[0]).toBe(
        '# yaml-language-server: $schema=../../../schemas/wafctl.schema.json',
      );
    } finally {
      await rm(inside, { recursive: true, force: true });
    }
  });

  it('round-trips examples/: apply, export to a directory, and the export plans to no changes', async () => {
    expect((await runCli(['apply', EXAMPLES, '--auto-approve'], { env: firewall.env })).code).toBe(0);
    const dir = join(await tempDir(), 'exported');
    const exported = await runCli(['export', '--dir', dir], { env: firewall.env });
    expect(exported.code).toBe(0);
    expect(exported.stdout).toContain('Exported 4 groups, 6 application rules, 1 notification, 2 schedules');
    const plan = await runCli(['plan', dir, '--detailed-exitcode'], { env: firewall.env });
    expect(plan.stdout).toBe('No changes. The firewall matches the configuration.\n');
    expect(plan.code).toBe(0);
  });

  it('exports only the kinds named by --kind', async () => {
    await populate(firewall);
    const dir = await tempDir();
    const result = await runCli(['export', '--dir', dir, '--kind', 'schedules', 'groups'], {
      env: firewall.env,
    });
    expect(result.code).toBe(0);
    expect(Object.keys(await readAll(dir))).toEqual(['groups.yaml', 'schedules.yaml']);

    const stdout = await runCli(['export', '--kind', 'notifications'], { env: firewall.env });
    expect(stdout.stdout).toContain('manage:\n  notifications:\n    prune: true\n\nnotifications:\n');
    expect(stdout.stdout).not.toContain('groups');
  });

  it('refuses an unknown --kind before any network call', async () => {
    const result = await runCli(['export', '--kind', 'group', 'rules'], {
      env: { WAF_URL: await unreachableUrl(), WAF_TOKEN: 'unused-token' },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'Error: unknown kind "rules"; expected one of groups, application-rules, notifications, schedules, network-rule-settings\n',
    );
  });

  it('leaves out rules that cannot be keyed, lists them on stderr, turns prune off, and still plans clean', async () => {
    const [, noDescription, emptyDescription, twinA, twinB] = await firewall.api.applicationRules.create([
      rule('shop.example.com', 'Keyed'),
      rule('shop.example.com', null),
      rule('api.example.com', ''),
      rule('shop.example.com', 'Twin', 'a'),
      rule('shop.example.com', 'Twin', 'b'),
    ]);
    const dir = await tempDir();
    const result = await runCli(['export', '--dir', dir, '--kind', 'application-rules'], {
      env: firewall.env,
    });
    expect(result.code).toBe(0);
    expect(result.stderr.split('\n')).toEqual([
      `Warning: application_rule ${emptyDescription} (api.example.com/) left out: it has no description, and application rules are keyed by rq_host and description.`,
      `Warning: application_rule ${noDescription} (shop.example.com/) left out: it has no description, and application rules are keyed by rq_host and description.`,
      `Warning: application_rule ${twinA} (shop.example.com/Twin) left out: it has the same rq_host "shop.example.com" and description "Twin" as ${twinB}: objects sharing a key cannot be told apart.`,
      `Warning: application_rule ${twinB} (shop.example.com/Twin) left out: it has the same rq_host "shop.example.com" and description "Twin" as ${twinA}: objects sharing a key cannot be told apart.`,
      'Export finished with 4 warnings.',
      '',
    ]);
    const text = await readFile(join(dir, 'application-rules.yaml'), 'utf8');
    expect(text).toContain('    # and pruning would delete them.\n    prune: false\n');
    expect(text.match(/- rq_host:/g)).toHaveLength(1);

    const plan = await runCli(['plan', dir, '--detailed-exitcode'], { env: firewall.env });
    expect(plan.stdout).toContain('No changes. The firewall matches the configuration.');
    expect(plan.code).toBe(0);
  });

  it('leaves out an object holding a NUL or a lone surrogate, naming it, instead of an internal error (issue 41)', async () => {
    // The emulator refuses such names, as a well-behaved server would: a proxy puts them in its answers.
    const [nul] = await firewall.api.applicationRules.create([
      rule('shop.example.com', 'nul NUL_HERE inside'),
      rule('shop.example.com', 'Keyed'),
    ]);
    const group = await firewall.api.groups.create({
      name: 'half SURROGATE',
      is_admin: false,
      permissions: [],
      user_ids: [],
    });
    const proxy = await rewritingProxy(firewall.url, (body) =>
      body.replaceAll('NUL_HERE', '\\u0000').replaceAll('SURROGATE', '\\ud800'),
    );
    const dir = await tempDir();
    const result = await runCli(['export', '--dir', dir, '--kind', 'application-rules,groups'], {
      env: { ...firewall.env, WAF_URL: proxy },
    });
    expect(result.stderr).not.toContain('internal error');
    expect(result.code).toBe(0);
    const cannotHold = 'left out: the server holds a value the configuration format cannot hold';
    expect(result.stderr).toContain(
      `application_rule ${nul} (shop.example.com/nul \\u0000 inside) ${cannotHold}: description:`,
    );
    expect(result.stderr).toContain(`group ${group.id} `);
    expect(result.stderr).toContain(`${cannotHold}: name:`);
    const text = await readFile(join(dir, 'application-rules.yaml'), 'utf8');
    expect(text).toContain('Keyed');
    expect(text).not.toContain('inside');
  });

  it('exports an empty firewall as empty, pruned lists: a later object plans to be destroyed', async () => {
    const dir = await tempDir();
    const result = await runCli(['export', '--dir', dir], { env: firewall.env });
    expect(result.code).toBe(0);
    expect((await readAll(dir))['groups.yaml']).toBe(
      `# yaml-language-server: $schema=${SCHEMA_URL}\n${EXPORT_MARKER}\nmanage:\n  groups:\n    prune: true\n\ngroups: []\n\n# Built in and read-only: plan, drift and compare check that it still holds these values; wafctl never writes it.\nadmins:\n  users: [admin]\n`,
    );
    const clean = await runCli(['plan', dir, '--detailed-exitcode'], { env: firewall.env });
    expect(clean.code).toBe(0);

    await firewall.api.groups.create({ name: 'intruders', permissions: [], user_ids: [] });
    const plan = await runCli(['plan', dir], { env: firewall.env });
    expect(plan.stdout).toContain('# group.intruders will be destroyed');
  });

  it('replaces only files it wrote: a hand-written file needs --force, a symbolic link is never written through', async () => {
    await populate(firewall);
    const base = await tempDir();
    const dir = join(base, 'waf');
    await mkdir(join(base, 'outside'));
    const victim = join(base, 'outside', 'victim.txt');
    await writeFile(victim, 'precious\n');
    await mkdir(dir);
    await symlink(join('..', 'outside', 'victim.txt'), join(dir, 'groups.yaml'));
    await writeFile(join(dir, 'schedules.yaml'), 'schedules: []  # mine\n');

    const refusal = `Error: refusing to write ${join(dir, 'groups.yaml')}: it is a symbolic link, and export writes nothing outside DIR nor through links; nothing was written\n`;
    for (const force of [[], ['--force']]) {
      const linked = await runCli(['export', '--dir', dir, ...force], { env: firewall.env });
      expect(await readFile(victim, 'utf8')).toBe('precious\n');
      expect(linked.stderr).toBe(refusal);
      expect(linked.code).toBe(1);
    }
    expect((await lstat(join(dir, 'groups.yaml'))).isSymbolicLink()).toBe(true);
    expect((await readdir(dir)).sort()).toEqual(['groups.yaml', 'schedules.yaml']);

    const withoutLink = await runCli(['export', '--dir', dir, '--kind', 'schedules'], { env: firewall.env });
    expect(withoutLink.stderr).toContain(
      `Error: refusing to write ${join(dir, 'schedules.yaml')}: export did not write it`,
    );
    expect(withoutLink.code).toBe(1);
    expect(await readFile(join(dir, 'schedules.yaml'), 'utf8')).toBe('schedules: []  # mine\n');

    const forced = await runCli(['export', '--dir', dir, '--kind', 'schedules', '--force'], {
      env: firewall.env,
    });
    expect(forced.code).toBe(0);
    expect(await readFile(join(dir, 'schedules.yaml'), 'utf8')).toContain('- name: weekly-shop');
  });

  it.runIf(process.platform === 'linux')(
    'fails in one line when DIR cannot be created (no endless mkdir under /proc)',
    { timeout: 15_000 },
    async () => {
      const result = await runCli(['export', '--dir', '/proc/nope'], { env: firewall.env });
      expect(result.stderr).toBe('Error: cannot create /proc/nope: ENOENT\n');
      expect(result.code).toBe(1);
    },
  );

  it('reports an unreachable firewall with exit 1 and writes nothing', async () => {
    const dir = join(await tempDir(), 'out');
    const result = await runCli(['export', '--dir', dir], {
      env: { WAF_URL: await unreachableUrl(), WAF_TOKEN: 'some-token' },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^Error: \[GET\] \/api\/v1\/\S+: cannot reach 127\.0\.0\.1:\d+: /m);
    await expect(readdir(dir)).rejects.toThrow(/ENOENT/);
  });
});

describe('wafctl export against list rows that need hydration', () => {
  beforeEach(async () => {
    firewall = await startTestFirewall({ applicationRuleListShape: 'single-action' });
  });

  it('reads each incomplete rule in full, so the export still plans to no changes', async () => {
    await populate(firewall);
    const result = await runCli(['export'], { env: firewall.env });
    expect(result.stdout).toBe(EXPECTED_STDOUT);
    const dir = await tempDir();
    await writeFile(join(dir, 'waf.yaml'), result.stdout);
    const plan = await runCli(['plan', dir, '--detailed-exitcode'], { env: firewall.env });
    expect(plan.code).toBe(0);
  });
});
