/**
 * `wafctl compare A B` (issue 31): two environments compared, each difference the change from A to B
 * with its security impact. `--desired` compares their configurations offline; without it, their
 * live firewalls (two emulators, each reached with its own URL and credentials). Staging blocks what
 * production logs, and one group is only in production. The markdown of both comparisons is checked
 * against golden files in test/e2e/golden/ (`UPDATE_GOLDEN=1` rewrites them).
 */
import { rm } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import {
  E2E_TOKEN,
  startTestFirewall,
  type TestFirewall,
  unreachableUrl,
  writeConfig,
} from '../helpers/firewall.js';
import { actionOverlayYaml, rulesYaml } from '../helpers/fixtures.js';
import { expectGolden } from '../helpers/golden.js';

const PROJECT = `environments:
  staging:
    url: https://waf-staging.example.com
    token_env: TOKEN_STAGING
    paths: [base, envs/staging]
  production:
    url_env: WAF_URL_PROD
    token_env: TOKEN_PROD
    paths: [base, envs/production]
  mirror:
    url: https://waf-mirror.example.com
    token_env: TOKEN_MIRROR
    paths: [base, envs/staging]
`;

const BASE = rulesYaml([{}]);

const STAGING = `application_rules:\n${actionOverlayYaml({ action: 'block' })}`;

const PRODUCTION = `application_rules:
${actionOverlayYaml({ action: 'log' })}groups:
  - name: soc
    description: Analysts
`;

let dir = '';

beforeEach(async () => {
  dir = await writeConfig({
    'wafctl.yaml': PROJECT,
    'base/rules.yaml': BASE,
    'envs/staging/rules.yaml': STAGING,
    'envs/production/rules.yaml': PRODUCTION,
  });
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const RULE = 'application_rule.shop.example.com/Block admin';

describe('compare A B --desired', () => {
  it('reports each difference as the change from A to B, security impact first (exit 2)', async () => {
    // No variables at all: the comparison is offline and reads neither URLs nor tokens.
    const run = await runCli(['compare', 'staging', 'production', dir, '--desired'], { env: {} });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(2);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe('Compare staging -> production: 2 differences');
    expect(lines[1]).toMatch(/^Security impact of staging -> production: 1 change weakens protection/);
    expect(lines[2]).toMatch(new RegExp(`^ {2}! weakens_protection +${RULE.replaceAll('.', '\\.')}: `));
    expect(run.stdout).toContain('  + group.soc: only in production');
    expect(run.stdout).toContain(`  ~ ${RULE}: differs (actions)`);
    expect(run.stdout).toContain('- firewall_action = "block"');
    expect(run.stdout).toContain('+ firewall_action = "log"');
    expect(run.stdout).not.toContain('will be');
    expect(run.stdout.indexOf('weakens_protection')).toBeLessThan(run.stdout.indexOf('group.soc'));
  });

  it('the other way round: an object only in A is a delete, and the rule strengthens protection', async () => {
    const run = await runCli(['compare', 'production', 'staging', dir, '--desired'], { env: {} });
    expect(run.code).toBe(2);
    expect(run.stdout).toContain('  - group.soc: only in production');
    expect(run.stdout).not.toContain('weakens_protection');
  });

  it('json: the plan document of the comparison, with from and to', async () => {
    const run = await runCli(['compare', 'staging', 'production', dir, '--desired', '--format', 'json'], {
      env: {},
    });
    expect(run.code).toBe(2);
    const document = JSON.parse(run.stdout);
    expect(document.from).toBe('staging');
    expect(document.to).toBe('production');
    expect(document.format_version).toBe(1);
    expect(document.summary).toMatchObject({ create: 1, update: 1, delete: 0 });
    expect(JSON.stringify(document)).toContain('weakens_protection');
  });

  it('markdown: one comment with its own marker and the security impact', async () => {
    const run = await runCli(['compare', 'staging', 'production', dir, '--desired', '--format', 'markdown'], {
      env: {},
    });
    expect(run.code).toBe(2);
    expect(run.stdout.split('\n')[0]).toBe('<!-- wafctl-compare -->');
    expect(run.stdout).toContain('staging -&gt; production: 2 differences');
    expect(run.stdout).toContain('**weakens_protection**');
    expect(run.stdout).toContain('only in production');
    expect(run.stdout.length).toBeLessThanOrEqual(65_536);
  });

  it('markdown: the golden comparison (test/e2e/golden/compare.md)', async () => {
    const run = await runCli(['compare', 'staging', 'production', dir, '--desired', '--format', 'markdown'], {
      env: {},
    });
    expect(run.code).toBe(2);
    await expectGolden('compare.md', run.stdout);
  });

  it('--fail-on weakens_protection exits 3 after printing the comparison', async () => {
    const run = await runCli(
      ['compare', 'staging', 'production', dir, '--desired', '--fail-on', 'weakens_protection'],
      { env: {} },
    );
    expect(run.code).toBe(3);
    expect(run.stdout).toContain('Compare staging -> production: 2 differences');
    expect(run.stderr).toContain('--fail-on weakens_protection');
    expect(run.stderr).toContain(RULE);
  });

  it('identical environments: no differences, exit 0', async () => {
    const run = await runCli(
      ['compare', 'staging', 'mirror', dir, '--desired', '--fail-on', 'weakens_protection'],
      { env: {} },
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('Compare staging -> mirror: no differences\n');
  });

  it('reads the current directory when no PATH is given', async () => {
    const run = await runCli(['compare', 'staging', 'production', '--desired'], { env: {}, cwd: dir });
    expect(run.code).toBe(2);
  });

  it('an unknown environment is a usage error naming the declared ones', async () => {
    const run = await runCli(['compare', 'staging', 'prod', dir, '--desired'], { env: {} });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('unknown environment "prod"');
    expect(run.stderr).toContain('staging, production, mirror');
  });

  it('a root without environments is a usage error', async () => {
    const plain = await writeConfig({ 'rules.yaml': BASE });
    try {
      const run = await runCli(['compare', 'a', 'b', plain, '--desired'], { env: {} });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('declares none');
    } finally {
      await rm(plain, { recursive: true, force: true });
    }
  });
});

/**
 * The live firewalls: each environment's configuration applied to its own emulator first. The users
 * have other ids on each firewall (alice is u-1 on staging's and u-8 on production's), so only a
 * comparison by username can find the `superusers` group identical. alice can sign in on staging's.
 */
const PASSWORD = 'alice "s3cret" pass/word';
const LIVE_PROJECT = `environments:
  staging:
    url_env: WAF_URL_STAGING
    token_env: TOKEN_STAGING
    paths: [base, envs/staging]
  production:
    url_env: WAF_URL_PROD
    token_env: TOKEN_PROD
    paths: [base, envs/production]
  mirror:
    url_env: WAF_URL_MIRROR
    token_env: TOKEN_MIRROR
    paths: [base, envs/staging]
  down:
    url_env: WAF_URL_DOWN
    token_env: TOKEN_DOWN
    paths: [base, envs/staging]
`;

/**
 * Staging's firewall reached by signing in: a project of its own, as one project gives each server
 * one owner (two of its environments on staging's firewall would be refused).
 */
const SIGNED_PROJECT = `environments:
  signed:
    url_env: WAF_URL_STAGING
    signin_username_env: SIGNIN_USER
    signin_password_env: SIGNIN_PASSWORD
    paths: [base, envs/staging]
  production:
    url_env: WAF_URL_PROD
    token_env: TOKEN_PROD
    paths: [base, envs/production]
`;

const LIVE_PRODUCTION = `application_rules:
${actionOverlayYaml({ action: 'log' })}groups:
  - name: soc
    description: Analysts
    users: [bob]
`;

const SUPERUSERS = 'groups:\n  - name: superusers\n    is_admin: true\n    users: [alice]\n';

describe('compare A B: the live firewalls', () => {
  let live = '';
  let signedLive = '';
  let staging: TestFirewall;
  let production: TestFirewall;
  let mirror: TestFirewall;
  let env: Record<string, string> = {};

  beforeAll(async () => {
    const users = (ids: [string, string]) => [
      { id: ids[0], username: 'alice', password: PASSWORD },
      { id: ids[1], username: 'bob' },
    ];
    // No demo rules: what is on each firewall is what the test applies.
    staging = await startTestFirewall({ seed: { users: users(['u-1', 'u-2']), rules: [] } });
    production = await startTestFirewall({ seed: { users: users(['u-8', 'u-9']), rules: [] } });
    mirror = await startTestFirewall({ seed: { users: users(['u-5', 'u-4']), rules: [] } });
    const files = {
      'base/rules.yaml': BASE,
      'base/groups.yaml': SUPERUSERS,
      'envs/staging/rules.yaml': STAGING,
      'envs/production/rules.yaml': LIVE_PRODUCTION,
    };
    live = await writeConfig({ 'wafctl.yaml': LIVE_PROJECT, ...files });
    signedLive = await writeConfig({ 'wafctl.yaml': SIGNED_PROJECT, ...files });
    env = {
      WAF_URL_STAGING: staging.url,
      WAF_URL_PROD: production.url,
      WAF_URL_MIRROR: mirror.url,
      TOKEN_STAGING: E2E_TOKEN,
      TOKEN_PROD: E2E_TOKEN,
      TOKEN_MIRROR: E2E_TOKEN,
      SIGNIN_USER: 'alice',
      SIGNIN_PASSWORD: PASSWORD,
    };
    for (const name of ['staging', 'production', 'mirror']) {
      const apply = await runCli(['apply', live, '--env', name, '--auto-approve'], { env });
      expect(apply.code, apply.stderr).toBe(0);
    }
  });

  afterAll(async () => {
    await Promise.all([staging?.close(), production?.close(), mirror?.close()]);
    await rm(live, { recursive: true, force: true });
    await rm(signedLive, { recursive: true, force: true });
  });

  const noSecrets = (run: { stdout: string; stderr: string }) => {
    for (const secret of [E2E_TOKEN, PASSWORD]) {
      expect(run.stdout).not.toContain(secret);
      expect(run.stderr).not.toContain(secret);
    }
  };

  it('reports each difference as the change from A to B, security impact first (exit 2)', async () => {
    const run = await runCli(['compare', 'staging', 'production', live], { env });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(2);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe('Compare live staging -> production: 2 differences');
    expect(lines[1]).toMatch(/^Security impact of staging -> production: 1 change weakens protection/);
    expect(lines[2]).toMatch(new RegExp(`^ {2}! weakens_protection +${RULE.replaceAll('.', '\\.')}: `));
    expect(run.stdout).toContain(`  ~ ${RULE}: differs (actions)`);
    expect(run.stdout).toContain('- firewall_action = "block"');
    expect(run.stdout).toContain('+ firewall_action = "log"');
    // Members by username: superusers (alice on both, under other ids) does not differ.
    expect(run.stdout).toContain('  + group.soc: only in production');
    expect(run.stdout).toContain('"bob"');
    expect(run.stdout).not.toContain('superusers');
    expect(run.stdout).not.toMatch(/\bu-[0-9]/);
    // The built-in admins group is not configuration.
    expect(run.stdout).not.toContain('admins');
    noSecrets(run);
  });

  it('json: the plan document, with from, to and what was compared', async () => {
    const run = await runCli(['compare', 'staging', 'production', live, '--format', 'json'], { env });
    expect(run.code).toBe(2);
    const document = JSON.parse(run.stdout);
    expect(document).toMatchObject({ from: 'staging', to: 'production', compared: 'live' });
    expect(document.summary).toMatchObject({ create: 1, update: 1, delete: 0 });
  });

  it('markdown: the golden comparison (test/e2e/golden/compare-live.md)', async () => {
    const run = await runCli(['compare', 'staging', 'production', live, '--format', 'markdown'], { env });
    expect(run.code).toBe(2);
    await expectGolden('compare-live.md', run.stdout);
  });

  it('--fail-on weakens_protection exits 3 after printing the comparison', async () => {
    const run = await runCli(['compare', 'staging', 'production', live, '--fail-on', 'weakens_protection'], {
      env,
    });
    expect(run.code).toBe(3);
    expect(run.stdout).toContain('Compare live staging -> production: 2 differences');
    expect(run.stderr).toContain('--fail-on weakens_protection');
  });

  it('identical firewalls (other user ids, ids and timestamps): no differences, exit 0', async () => {
    const run = await runCli(['compare', 'staging', 'mirror', live, '--fail-on', 'weakens_protection'], {
      env,
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('Compare live staging -> mirror: no differences\n');
  });

  it('one side signs in with signin_username_env and signin_password_env', async () => {
    const before = (await staging.stats()).by_route['POST /api/v1/signin'] ?? 0;
    const run = await runCli(['compare', 'signed', 'production', signedLive], { env });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(2);
    expect(run.stdout.split('\n')[0]).toBe('Compare live signed -> production: 2 differences');
    expect((await staging.stats()).by_route['POST /api/v1/signin']).toBe(before + 1);
    noSecrets(run);
  });

  it('an unreachable environment: exit 1, the error names it, nothing is compared', async () => {
    const run = await runCli(['compare', 'staging', 'down', live, '--timeout', '5'], {
      env: { ...env, WAF_URL_DOWN: await unreachableUrl(), TOKEN_DOWN: E2E_TOKEN },
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^Error: down: /);
    expect(run.stderr).not.toContain('Error: staging');
    noSecrets(run);
  });

  it("an unset token variable is a usage error naming the variable, not its environment's secrets", async () => {
    const { TOKEN_PROD: _unset, ...without } = env;
    const run = await runCli(['compare', 'staging', 'production', live], { env: without });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('Error: environment production: TOKEN_PROD is not set');
    noSecrets(run);
  });
});
