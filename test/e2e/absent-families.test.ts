/**
 * A family the server lacks (its listing answers 404) or will not show this token (403), which the
 * configuration does not declare, is skipped with one note (issue 40): export, `pull --adopt` and a
 * live compare read the rest. Declared, asked for by name (`get`, `export --kind`), or failing any
 * other way (a 500, a 404 of one object while hydrating), it stays an error. Real loopback servers:
 * emulators, one behind a proxy that answers a chosen status on a chosen path.
 */
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import {
  E2E_TOKEN,
  type ManualClock,
  manualClock,
  startTestFirewall,
  type TestFirewall,
  writeConfig,
} from '../helpers/firewall.js';
import { rulesYaml } from '../helpers/fixtures.js';
import { instantClock } from '../helpers/io.js';
import { startProxy, type TestProxy } from '../helpers/proxy.js';

/** A report schedule both firewalls hold. */
const WEEKLY = {
  name: 'weekly-shop',
  hosts: ['shop.example.com'],
  type: 'summary',
  schedule: 'weekly',
  send_to: ['secops@example.com'],
  send_via: 'email',
  timezone: 'Europe/Paris',
};

const SETTINGS = '/api/v1/settings/rules';
const NOTE_404 = `Note: skipped network-rule settings: GET ${SETTINGS} answered 404 (the server does not have it); the configuration does not declare them.`;
const NO_CHANGES = 'No changes. The firewall matches the configuration.\n';

interface Proxy extends TestProxy {
  /** What the proxy answers on `path` (any method); everything else goes to the firewall. */
  refuse: { path: string; status: number };
}

/** A proxy in front of `target` that answers `refuse.status` on `refuse.path` and forwards the rest. */
async function startRefusingProxy(target: string, refuse: Proxy['refuse']): Promise<Proxy> {
  const refusing = { refuse };
  const proxy = await startProxy(target, (request) =>
    request.path === refusing.refuse.path
      ? {
          status: refusing.refuse.status,
          type: 'application/json',
          body: JSON.stringify({ status: 'error', message: 'refused by the test proxy' }),
        }
      : undefined,
  );
  return Object.assign(refusing, proxy);
}

/**
 * One application rule (`shop.example.com/Block admin`), applied as the administrator; on `clock`
 * when given (the emulator's, so that the rule's timestamps are known).
 */
async function applyRule(target: TestFirewall, clock?: ManualClock): Promise<void> {
  const dir = await config({ 'rules.yaml': rulesYaml([{}]) });
  const applied = await runCli(['apply', dir, '--auto-approve'], { env: target.env, clock });
  expect(applied.code, applied.stderr).toBe(0);
}

let firewall: TestFirewall;
let proxy: Proxy;
let env: Record<string, string>;
const dirs: string[] = [];

beforeEach(async () => {
  firewall = await startTestFirewall();
  await firewall.api.groups.create({
    name: 'soc',
    description: 'Analysts',
    user_ids: ['u-1001'],
    permissions: [],
  });
  await firewall.api.schedules.create(WEEKLY);
  await applyRule(firewall);
  proxy = await startRefusingProxy(firewall.url, { path: SETTINGS, status: 404 });
  env = { WAF_URL: proxy.url, WAF_TOKEN: E2E_TOKEN };
});

afterEach(async () => {
  await proxy.close();
  await firewall.close();
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function config(files: Record<string, string>): Promise<string> {
  const dir = await writeConfig(files);
  dirs.push(dir);
  return dir;
}

describe('a family the server does not have (404)', () => {
  it('export to stdout skips it with one note and writes the rest, which plans to no changes', async () => {
    const exported = await runCli(['export'], { env });
    expect(exported.stderr).toBe(`${NOTE_404}\n`);
    expect(exported.code).toBe(0);
    expect(exported.stdout).toContain('  - name: soc\n');
    expect(exported.stdout).toContain('  - name: weekly-shop\n');
    expect(exported.stdout).toContain('  - rq_host: shop.example.com\n');
    expect(exported.stdout).not.toContain('network_rule_settings');

    const dir = await config({ 'firewall.yaml': exported.stdout });
    const plan = await runCli(['plan', dir, '--detailed-exitcode'], { env });
    expect(plan.stderr).toBe('');
    expect(plan.stdout).toBe(NO_CHANGES);
    expect(plan.code).toBe(0);
  });

  it('export --dir writes the other families, one file each, which plan to no changes', async () => {
    const dir = await config({});
    const out = join(dir, 'out');
    const exported = await runCli(['export', '--dir', out], { env });
    expect(exported.stderr).toBe(`${NOTE_404}\n`);
    expect(exported.code).toBe(0);
    expect(exported.stdout).toBe(
      `Exported 1 group, 1 application rule, 0 notifications, 1 schedule to 4 files in ${out}.\n`,
    );
    expect((await readdir(out)).sort()).toEqual([
      'application-rules.yaml',
      'groups.yaml',
      'notifications.yaml',
      'schedules.yaml',
    ]);

    const plan = await runCli(['plan', out, '--detailed-exitcode'], { env });
    expect(plan.stderr).toBe('');
    expect(plan.stdout).toBe(NO_CHANGES);
    expect(plan.code).toBe(0);
  });

  it("each family's listing answered 404 is skipped with its own endpoint named", async () => {
    const listings: [string, string][] = [
      ['groups', '/api/v1/groups'],
      ['application rules', '/api/v1/application_rules'],
      ['notifications', '/api/v1/settings/notifications'],
      ['schedules', '/api/v1/reports/schedules'],
      ['network-rule settings', SETTINGS],
    ];
    for (const [family, path] of listings) {
      proxy.refuse = { path, status: 404 };
      const exported = await runCli(['export'], { env });
      expect(exported.stderr, family).toBe(
        `Note: skipped ${family}: GET ${path} answered 404 (the server does not have it); the configuration does not declare them.\n`,
      );
      expect(exported.code, family).toBe(0);
    }
  });

  it('asked for by name, it stays an error: get and export --kind exit 1 naming the endpoint', async () => {
    const exported = await runCli(['export'], { env });
    expect(exported.code).toBe(0);

    for (const args of [
      ['get', 'network-rule-settings'],
      ['export', '--kind', 'network-rule-settings'],
    ]) {
      const run = await runCli(args, { env });
      expect(run.stdout, args.join(' ')).toBe('');
      expect(run.stderr, args.join(' ')).toContain(`[GET] ${SETTINGS}: 404`);
      expect(run.code, args.join(' ')).toBe(1);
    }
  });

  it('declared by the configuration, it stays an error for plan, drift, apply and pull; pull --adopt skips it otherwise', async () => {
    const undeclared = await config({
      'groups.yaml': 'groups:\n  - name: soc\n    description: Analysts\n    users: [alice]\n',
    });
    const adopt = await runCli(['pull', undeclared, '--adopt'], { env });
    expect(adopt.stderr).toBe(`${NOTE_404}\n`);
    expect(adopt.code).toBe(0);
    expect(adopt.stdout).toMatch(/^Pulled \d+ objects? \(\d+ adopted\) into/);
    expect(await readFile(join(undeclared, 'groups.yaml'), 'utf8')).toContain('name: soc');
    const after = await runCli(['plan', undeclared, '--detailed-exitcode'], { env });
    expect(after.stdout).toBe(NO_CHANGES);

    const declared = await config({
      'settings.yaml': 'network_rule_settings:\n  expire_strategy: delete\n',
    });
    for (const args of [
      ['plan', declared],
      ['drift', declared],
      ['apply', declared, '--auto-approve'],
      ['pull', declared],
      ['pull', declared, '--adopt'],
    ]) {
      const run = await runCli(args, { env });
      expect(run.stderr, args[0]).toContain(`[GET] ${SETTINGS}: 404`);
      expect(run.stderr, args[0]).not.toContain('Note: skipped');
      expect(run.code, args.join(' ')).toBe(1);
    }
  });

  it('any other failure stays an error: a 500 of the listing, a 404 of one group while hydrating', async () => {
    proxy.refuse = { path: SETTINGS, status: 500 };
    // The client retries a 500: its backoff returns at once.
    const failed = await runCli(['export'], { env, clock: instantClock() });
    expect(failed.stdout).toBe('');
    expect(failed.stderr).toContain(`[GET] ${SETTINGS}: 500`);
    expect(failed.stderr).not.toContain('Note: skipped');
    expect(failed.code).toBe(1);

    // The listing was read: the family exists, and one of its objects could not be.
    proxy.refuse = { path: '/api/v1/groups/0', status: 404 };
    const hydrating = await runCli(['export'], { env });
    expect(hydrating.stderr).toContain('[GET] /api/v1/groups/0: 404');
    expect(hydrating.code).toBe(1);

    proxy.refuse = { path: SETTINGS, status: 404 };
    const skipped = await runCli(['export'], { env });
    expect(skipped.stderr).toBe(`${NOTE_404}\n`);
    expect(skipped.code).toBe(0);
  });
});

describe('families this token may not read (403)', () => {
  const READER_TOKEN = 'reader-token-5e1b7d20';
  let seeded: TestFirewall;
  /** The seeded emulator's and the commands' clock: the time a pull credits is known. */
  let clock: ManualClock;

  beforeEach(async () => {
    clock = manualClock();
    seeded = await startTestFirewall({
      clock,
      seed: {
        users: [{ id: 'u-7', username: 'reader', token: READER_TOKEN }],
        groups: [{ name: 'readers', permissions: [{ permission_id: 0 }], user_ids: ['u-7'] }],
      },
    });
  });
  afterEach(() => seeded.close());

  it('export writes what the token can read, one note per family it cannot; the export plans to no changes', async () => {
    const reader = { WAF_URL: seeded.url, WAF_TOKEN: READER_TOKEN };
    await applyRule(seeded);
    await seeded.api.schedules.create({
      name: 'daily-api',
      hosts: ['api.example.com'],
      type: 'detailed',
      schedule: 'daily',
      send_to: ['api-team@example.com'],
      send_via: 'email',
      timezone: 'America/New_York',
    });
    const exported = await runCli(['export'], { env: reader });
    const refused = (family: string, path: string) =>
      `Note: skipped ${family}: GET ${path} answered 403 (this token may not read it); the configuration does not declare them.`;
    expect(exported.stderr).toBe(
      `${[
        refused('groups', '/api/v1/groups'),
        refused('notifications', '/api/v1/settings/notifications'),
        refused('network-rule settings', SETTINGS),
      ].join('\n')}\n`,
    );
    expect(exported.code).toBe(0);
    expect(exported.stdout).toContain('  - name: daily-api\n');
    expect(exported.stdout).toContain('  - rq_host: shop.example.com\n');
    expect(exported.stdout).not.toMatch(/^\s*(groups|notifications|network_rule_settings):/m);

    const dir = await config({});
    await writeFile(join(dir, 'firewall.yaml'), exported.stdout);
    const plan = await runCli(['plan', dir, '--detailed-exitcode'], { env: reader });
    expect(plan.stderr).toBe('');
    expect(plan.stdout).toBe(NO_CHANGES);
    expect(plan.code).toBe(0);
  });

  it('pull --adopt adopts what the token can read, and reads no user directory for groups it skipped', async () => {
    const reader = { WAF_URL: seeded.url, WAF_TOKEN: READER_TOKEN };
    await applyRule(seeded, clock);
    const dir = await config({ 'schedules.yaml': 'schedules: []\n' });
    const pulled = await runCli(['pull', dir, '--adopt'], { env: reader, clock });
    expect(pulled.stderr).toContain(
      'Note: skipped groups: GET /api/v1/groups answered 403 (this token may not read it); the configuration does not declare them.\n',
    );
    expect(pulled.stderr).not.toContain('Error');
    // The adopted rule's record names who wrote it (the administrator's apply, as wafctl names its
    // creator: settings.username's default), not the reader.
    expect(pulled.stdout).toBe(
      'Pulled 1 object (1 adopted) into 1 file.\nHand changes by wafctl (2026-11-27 08:00 UTC).\n',
    );
    expect(pulled.code).toBe(0);
    expect(await readFile(join(dir, 'application-rules.yaml'), 'utf8')).toContain(
      'rq_host: shop.example.com',
    );
  });
});

describe('compare A B: one firewall lacks a family', () => {
  const PROJECT = `environments:
  staging:
    url_env: WAF_URL_STAGING
    token_env: TOKEN_STAGING
    paths: [config]
  production:
    url_env: WAF_URL_PROD
    token_env: TOKEN_PROD
    paths: [config]
`;

  it('the family is skipped with a note naming the environment, and the rest is compared', async () => {
    const production = await startTestFirewall();
    try {
      // The other families hold the same objects on both: the only difference is one group.
      await applyRule(production);
      await production.api.schedules.create(WEEKLY);
      const dir = await config({ 'wafctl.yaml': PROJECT, 'config/empty.yaml': '{}\n' });
      const run = await runCli(['compare', 'staging', 'production', dir], {
        env: {
          WAF_URL_STAGING: proxy.url,
          TOKEN_STAGING: E2E_TOKEN,
          WAF_URL_PROD: production.url,
          TOKEN_PROD: E2E_TOKEN,
        },
      });
      expect(run.stderr).toBe(
        `Note: staging: skipped network-rule settings: GET ${SETTINGS} answered 404 (the server does not have it); the configuration does not declare them.\n`,
      );
      expect(run.stdout).toContain('Compare live staging -> production: 1 difference\n');
      expect(run.stdout).toContain('  - group.soc: only in staging\n');
      expect(run.stdout).not.toContain('network_rule_settings');
      expect(run.code).toBe(2);
    } finally {
      await production.close();
    }
  });
});
