/** `wafctl get`: every family, every kind of filter, lookups by id and name, limits and pagination. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { ApplicationRuleInput } from '../../src/api/index.js';
import { forgetSecrets } from '../../src/core/secrets.js';
import { fromIso } from '../../src/kinds/cells.js';
import { runCli } from '../helpers/cli.js';
import {
  E2E_TOKEN,
  manualClock,
  ruleWritersSeed,
  startTestFirewall,
  type TestFirewall,
} from '../helpers/firewall.js';

/**
 * An application rule with two conditions and two actions. The body's `username` is wafctl's: the
 * creator the emulator records (the spec's "Creator"), unless a test names another.
 */
const rule = (rqHost: string, description: string, enabled = true): ApplicationRuleInput => ({
  rq_host: rqHost,
  description,
  priority: 'high',
  username: 'wafctl',
  enabled,
  conditions: [
    { operator: 'match', expressions: [{ expression: '^/a' }], targets: [{ target: 'path' }] },
    { operator: 'contains', expressions: [{ expression: 'x' }], targets: [{ target: 'query' }] },
  ],
  actions: [
    { firewall_action: 'block', firewall_name: 'waf-eu-1' },
    { firewall_action: 'log', firewall_name: 'waf-eu-2' },
  ],
});

let firewall: TestFirewall;
let ids: { soc: string; weekly: string };

beforeAll(async () => {
  firewall = await startTestFirewall();
  const { api } = firewall;
  const soc = await api.groups.create({
    name: 'soc',
    description: 'Tier-1 analysts',
    permissions: [{ permission_id: 0, service_id: 'svc-shop' }],
    user_ids: ['u-1001', 'u-1002'],
  });
  await api.groups.create({ name: 'operators', is_admin: true, permissions: [], user_ids: [] });
  await api.notifications.create({
    name: 'splunk',
    type: 'siem',
    enabled: true,
    settings: { destination_address: '10.0.0.5', destination_port: 514, format: 'cef', protocol: 'udp' },
  });
  const weekly = await api.schedules.create({
    name: 'weekly-shop',
    hosts: ['shop.example.com'],
    services: ['svc-shop'],
    type: 'summary',
    schedule: 'weekly',
    send_to: ['secops@example.com'],
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
    timezone: 'UTC',
  });
  ids = { soc: soc.id, weekly: weekly.id };
});

afterAll(async () => {
  await firewall.close();
});

const getOn = (target: TestFirewall, args: string[]) => runCli(['get', ...args], { env: target.env });
const get = (...args: string[]) => getOn(firewall, args);

/** The ids (or names, for notifications) of a JSON listing from `target`. */
async function listedOn(target: TestFirewall, args: string[]): Promise<string[]> {
  const result = await getOn(target, [...args, '--output', 'json']);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return (JSON.parse(result.stdout) as { id?: string; name: string }[]).map((r) => r.id ?? r.name);
}

const listed = (...args: string[]) => listedOn(firewall, args);

function lines(text: string): string[] {
  return text.trimEnd().split('\n');
}

describe('wafctl get groups', () => {
  it('lists a table with ids, names, the admin flag and ISO dates', async () => {
    const result = await get('groups');
    expect(result.code).toBe(0);
    const [header, ...rows] = lines(result.stdout);
    expect(header).toMatch(/^ID\s+NAME\s+ADMIN\s+DESCRIPTION\s+CREATED\s+UPDATED$/);
    expect(rows).toHaveLength(3);
    // The built-in admins group comes first: Seer Box creates it at start-up.
    expect(rows[0]).toMatch(/^0\s+admins\s+true\s/);
    expect(rows[1]).toMatch(
      new RegExp(
        `^${ids.soc}\\s+soc\\s+false\\s+Tier-1 analysts\\s+\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\\s+\\S+Z$`,
      ),
    );
    expect(rows[2]).toMatch(/\soperators\s+true\s/);
  });

  it('finds one group by id or by name, and prints the full record as JSON or YAML', async () => {
    const byId = await get('groups', ids.soc, '--output', 'json');
    const byName = await get('groups', 'soc', '--output', 'json');
    expect(byName.stdout).toBe(byId.stdout);
    const group = JSON.parse(byId.stdout) as {
      name: string;
      permissions: unknown[];
      users: { id: string }[];
    };
    expect(group.name).toBe('soc');
    expect(group.permissions).toHaveLength(1);
    expect(group.users.map((u) => u.id).sort()).toEqual(['u-1001', 'u-1002']);

    const yaml = await get('groups', 'soc', '--output', 'yaml');
    expect(parse(yaml.stdout)).toEqual(group);
  });

  it('hydrates listed groups for JSON, which the listing returns without permissions and members', async () => {
    const result = await get('groups', '--output', 'json');
    const groups = JSON.parse(result.stdout) as { name: string; users?: unknown[] }[];
    expect(groups.find((g) => g.name === 'soc')?.users).toHaveLength(2);
  });

  it('says clearly when no group has that id or name, and exits 1', async () => {
    const result = await get('groups', 'nobody');
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `Error: group "nobody" not found: no group has this id or name ([GET] /api/v1/groups/nobody: 400 Error retrieving group (id: no group with id 'nobody'))\n`,
    );
    expect(result.stdout).toBe('');
  });

  it('refuses filters: the API documents none for groups', async () => {
    const result = await get('groups', '--filter', 'name=soc');
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('Error: unknown filter "name" for groups; groups takes no filters\n');
  });
});

describe('wafctl get rules (the read-only demo rules)', () => {
  it('renders UNIX microseconds as ISO dates in the table', async () => {
    const result = await get('rules');
    const [header, first] = lines(result.stdout);
    expect(header).toMatch(
      /^ID\s+KIND\s+RQ_HOST\s+TARGET\s+ACTION\s+PRIORITY\s+ENABLED\s+DESCRIPTION\s+CREATED$/,
    );
    expect(first).toMatch(
      /^1\s+application\s+shop\.example\.com\s+query\s+block\s+high\s+true\s+.+2024-03-01T09:00:00Z$/,
    );
  });

  it('filters: exact, list, search, range and boolean', async () => {
    expect(await listed('rules', '--filter', 'rq_host=blog.example.com')).toEqual(['2', '5']);
    expect(await listed('rules', '--filter', 'id_list=1,3')).toEqual(['1', '3']);
    expect(await listed('rules', '--filter', 'rq_host_search=BLOG')).toEqual(['2', '5']);
    expect(
      await listed('rules', '--filter', 'timestamp_start=1709287200000000', 'timestamp_end=1709294400000000'),
    ).toEqual(['2', '3', '4']);
    expect(await listed('rules', '--filter', 'network_only=true')).toEqual(['3', '4']);
    expect(await listed('rules', '--filter', 'not_action_list=block,deny', 'kind=source')).toEqual(['4']);
  });

  it('a list filter given several times takes every value; any other filter refuses a second one', async () => {
    expect(await listed('rules', '--filter', 'id_list=1', '--filter', 'id_list=3,5')).toEqual([
      '1',
      '3',
      '5',
    ]);
    const twice = await get(
      'rules',
      '--filter',
      'rq_host=a.example.com',
      '--filter',
      'rq_host=b.example.com',
    );
    expect(twice.code).toBe(1);
    expect(twice.stderr).toBe(
      'Error: filter rq_host for rules takes one value, got 2: a.example.com, b.example.com\n',
    );
  });

  it('validates filter names and values before any request', async () => {
    const unknown = await get('rules', '--filter', 'host=x');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(
      /^Error: unknown filter "host" for rules; valid filters: action, action_list, /,
    );
    const badBoolean = await get('rules', '--filter', 'network_only=yes');
    expect(badBoolean.stderr).toBe('Error: filter network_only for rules: expected true or false\n');
    const badInteger = await get('rules', '--filter', 'timestamp_start=yesterday');
    expect(badInteger.stderr).toBe(
      'Error: filter timestamp_start for rules: expected an integer, got "yesterday"\n',
    );
    expect(badInteger.code).toBe(1);
  });

  it('gets one rule by id; an unknown id exits 1 with the API message', async () => {
    const one = await get('rules', '3', '--output', 'json');
    expect(JSON.parse(one.stdout)).toMatchObject({ id: '3', kind: 'source', network_only: true });
    const missing = await get('rules', '999');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(
      `Error: rule "999" not found: no rule has this id ([GET] /api/v1/rules/999: 400 Error retrieving rule (rule_id: no rule with id '999'))\n`,
    );
  });
});

describe('wafctl get application-rules', () => {
  /**
   * Its own firewall, on a manual clock (2026-11-27 08:00 UTC): alice, bob and carol each create a
   * rule with their own token, naming themselves its creator, so each rule's `username` is its
   * writer's; carol's a minute later.
   */
  let writers: TestFirewall;
  let rules: { shop: string; api: string; blog: string };
  beforeAll(async () => {
    const clock = manualClock();
    writers = await startTestFirewall({ clock, seed: ruleWritersSeed(['alice', 'bob', 'carol']) });
    const write = async (username: string, input: ApplicationRuleInput) =>
      (await writers.as(username).applicationRules.create([{ ...input, username }]))[0] ?? '';
    const shop = await write('alice', rule('shop.example.com', 'Block admin'));
    const api = await write('bob', rule('api.example.com', 'Block scanners', false));
    clock.advance(60_000);
    const blog = await write('carol', rule('blog.example.com', 'Log comments'));
    rules = { shop, api, blog };
  });
  afterAll(async () => {
    await writers.close();
  });

  const getRules = (...args: string[]) => getOn(writers, ['application-rules', ...args]);
  const listedRules = (...args: string[]) => listedOn(writers, ['application-rules', ...args]);

  it('filters: exact, list, search, range and boolean', async () => {
    const { shop, api, blog } = rules;
    expect(await listedRules('--filter', 'rq_host=api.example.com')).toEqual([api]);
    expect(await listedRules('--filter', 'rq_host_list=shop.example.com,blog.example.com')).toEqual([
      shop,
      blog,
    ]);
    expect(await listedRules('--filter', 'username_search=AR')).toEqual([blog]);
    expect(await listedRules('--filter', 'enabled=false')).toEqual([api]);

    const record = JSON.parse((await getRules(blog, '--output', 'json')).stdout) as {
      timestamp_create: number;
    };
    expect(await listedRules('--filter', `timestamp_create_start=${record.timestamp_create}`)).toEqual([
      blog,
    ]);
    expect(await listedRules('--filter', `timestamp_create_end=${record.timestamp_create - 1}`)).toEqual([
      shop,
      api,
    ]);
  });

  it('prints full records, with every action and condition and nothing wafctl adds', async () => {
    const result = await getRules(rules.shop, '--output', 'yaml');
    const record = parse(result.stdout) as Record<string, unknown>;
    // The creator the create named.
    expect(record).toMatchObject({
      rq_host: 'shop.example.com',
      description: 'Block admin',
      username: 'alice',
    });
    expect(record.actions).toHaveLength(2);
    expect(record.conditions).toHaveLength(2);
    expect(record).not.toHaveProperty('complete');
  });

  it('shows a table by default, with the sync status of each action, and exits 1 for an unknown id', async () => {
    const table = await getRules('--filter', 'enabled=false');
    const id = rules.api.padEnd(2);
    expect(lines(table.stdout)).toEqual([
      `${'ID'.padEnd(id.length)}  RQ_HOST          DESCRIPTION     PRIORITY  ENABLED  SYNC                             USERNAME  CREATED               UPDATED`,
      `${id}  api.example.com  Block scanners  high      false    waf-eu-1:synced waf-eu-2:synced  bob       2026-11-27T08:00:00Z  2026-11-27T08:00:00Z`,
    ]);
    const missing = await getRules('ar-none');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(
      /^Error: application rule "ar-none" not found: no application rule has this id \(\[GET\] /,
    );
  });
});

describe('wafctl get notifications', () => {
  it('lists, gets by name, and reports an unknown name', async () => {
    const table = await get('notifications');
    expect(lines(table.stdout)).toEqual([
      'NAME    TYPE  ENABLED  DESTINATION   FORMAT  PROTOCOL',
      'splunk  siem  true     10.0.0.5:514  cef     udp',
    ]);
    const one = await get('notifications', 'splunk', '--output', 'json');
    expect(JSON.parse(one.stdout)).toMatchObject({ name: 'splunk', settings: { destination_port: 514 } });
    const missing = await get('notifications', 'graylog');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(
      /^Error: notification "graylog" not found: no notification has this name \(/,
    );
  });
});

describe('wafctl get schedules', () => {
  it('gets one schedule by id or by exact name', async () => {
    const byId = await get('schedules', ids.weekly, '--output', 'json');
    const byName = await get('schedules', 'weekly-shop', '--output', 'json');
    expect(byName.stdout).toBe(byId.stdout);
    expect(JSON.parse(byId.stdout)).toMatchObject({ id: ids.weekly, services: ['svc-shop'] });
    // `name` filters on part of the name: a part is not a name.
    const part = await get('schedules', 'weekly');
    expect(part.code).toBe(1);
    expect(part.stderr).toMatch(/^Error: schedule "weekly" not found: no schedule has this id or name \(/);
  });

  it('filters: search (name), exact (type) and range (scheduled_at_start)', async () => {
    expect(await listed('schedules', '--filter', 'name=shop')).toEqual([ids.weekly]);
    expect(await listed('schedules', '--filter', 'type=detailed')).toHaveLength(1);
    expect(await listed('schedules', '--filter', 'scheduled_at_start=0')).toHaveLength(2);
    const table = await get('schedules', '--filter', 'type=summary');
    expect(lines(table.stdout)[1]).toMatch(
      /^\S+\s+weekly-shop\s+summary\s+weekly\s+email\s+shop\.example\.com\s+svc-shop\s+Europe\/Paris\s+\d{4}-\S+Z$/,
    );
  });

  it('shows the services of each schedule, an empty cell for none', async () => {
    const result = await get('schedules');
    expect(result.code).toBe(0);
    const [header, ...rows] = lines(result.stdout);
    expect(header).toMatch(
      /^ID\s+NAME\s+TYPE\s+SCHEDULE\s+SEND_VIA\s+HOSTS\s+SERVICES\s+TIMEZONE\s+CREATED$/,
    );
    const services = (header ?? '').indexOf('SERVICES');
    const timezone = (header ?? '').indexOf('TIMEZONE');
    const weekly = rows.find((row) => row.includes('weekly-shop')) ?? '';
    const daily = rows.find((row) => row.includes('daily-api')) ?? '';
    expect(weekly.slice(services, timezone)).toBe('svc-shop'.padEnd(timezone - services));
    expect(daily.slice(services, timezone)).toBe(' '.repeat(timezone - services));
    expect(daily.slice(timezone)).toMatch(/^UTC\s+\d{4}-\S+Z$/);
  });

  it('says so on stderr when nothing matches, and exits 0', async () => {
    const result = await get('schedules', '--filter', 'type=none');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('No schedules found.\n');
    expect(JSON.parse((await get('schedules', '--filter', 'type=none', '--output', 'json')).stdout)).toEqual(
      [],
    );
  });
});

describe('wafctl get: a registered secret in a cell', () => {
  it('is redacted before the widths are measured, so the columns line up as printed', async () => {
    const own = await startTestFirewall();
    try {
      // Put there "by hand": the client refuses to send a secret that an earlier command registered.
      forgetSecrets();
      const leaky = await own.api.groups.create({
        name: 'leaky',
        description: `token ${E2E_TOKEN} pasted here`,
        permissions: [],
        user_ids: [],
      });
      const plain = await own.api.groups.create({ name: 'plain', permissions: [], user_ids: [] });
      const listedGroups = await own.api.groups.list();
      const dates = (id: string) => {
        const group = listedGroups.find((g) => g.id === id);
        return `${fromIso(group?.created_at)}  ${fromIso(group?.updated_at)}`;
      };
      const result = await runCli(['get', 'groups'], { env: own.env });
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const idWidth = Math.max(2, leaky.id.length, plain.id.length);
      // The built-in admins group is listed too (its name is the widest).
      const row = (id: string, name: string, admin: string, description: string) =>
        `${id.padEnd(idWidth)}  ${name.padEnd(6)}  ${admin.padEnd(5)}  ${description.padEnd(28)}  ${dates(id)}`;
      const header = `${'ID'.padEnd(idWidth)}  NAME    ADMIN  ${'DESCRIPTION'.padEnd(28)}  ${'CREATED'.padEnd(20)}  UPDATED`;
      expect(lines(result.stdout)[0]).toBe(header);
      expect(lines(result.stdout).slice(1).sort()).toEqual(
        [
          row(leaky.id, 'leaky', 'false', 'token [REDACTED] pasted here'),
          row(plain.id, 'plain', 'false', ''),
          row('0', 'admins', 'true', 'Built-in administrators'),
        ]
          .map((r) => r.trimEnd())
          .sort(),
      );
    } finally {
      await own.close();
    }
  });
});

describe('wafctl get: usage', () => {
  it('refuses an unknown kind, and --filter or --limit with one object', async () => {
    const kind = await get('rule-sets');
    expect(kind.code).toBe(1);
    expect(kind.stderr).toMatch(/^Error: unknown kind "rule-sets"/);
    const both = await get('rules', '1', '--limit', '2');
    expect(both.code).toBe(1);
    expect(both.stderr).toContain('--filter and --limit apply to listings, not to one object');
  });
});

describe('wafctl get: pagination and --limit', () => {
  let big: TestFirewall;
  beforeAll(async () => {
    big = await startTestFirewall();
    const rules = Array.from({ length: 1100 }, (_, i) => rule('bulk.example.com', `Rule ${i}`));
    await big.api.applicationRules.create(rules);
  });
  afterAll(async () => {
    await big.close();
  });

  const count = async (...args: string[]) => {
    const result = await runCli(['get', 'application-rules', ...args, '--output', 'json'], { env: big.env });
    expect(result.code).toBe(0);
    return (JSON.parse(result.stdout) as unknown[]).length;
  };

  it('reads every page of a listing larger than one page', async () => {
    expect(await count()).toBe(1100);
    expect(await count('--limit', '1050')).toBe(1050);
  });

  it('stops reading after --limit rows: pages of N rows, and no page after the one that holds them', async () => {
    await big.resetStats();
    const result = await runCli(['get', 'application-rules', '--limit', '3', '--output', 'json'], {
      env: { ...big.env, WAFCTL_DEBUG: '1' },
    });
    expect((JSON.parse(result.stdout) as unknown[]).length).toBe(3);
    const requests = result.stderr
      .split('\n')
      .filter((line) => line.startsWith('--> GET /api/v1/application_rules'));
    expect(requests[0]).toBe('--> GET /api/v1/application_rules?paginate=true&page=0&page_size=3');
    // 367 pages of 3 rows exist; the first holds the answer, and at most the next one was in flight.
    expect(requests.length).toBeLessThanOrEqual(2);
    expect((await big.stats()).by_route['GET /api/v1/application_rules']).toBeLessThanOrEqual(2);
  });
});
