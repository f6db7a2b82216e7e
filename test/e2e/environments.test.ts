/**
 * `--env NAME` on plan, drift and apply (issue 31): one environment of wafctl.yaml per run, against
 * its own firewall. Two emulators, a shared base and one overlay per environment: staging blocks
 * what production logs.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { E2E_TOKEN, startTestFirewall, type TestFirewall, writeConfig } from '../helpers/firewall.js';
import { actionOverlayYaml, rulesYaml } from '../helpers/fixtures.js';

const BASE = rulesYaml([{}]);

const PRODUCTION = `application_rules:\n${actionOverlayYaml({ action: 'log' })}`;

const STAGING = `groups:
  - name: soc
    description: Analysts
`;

let staging: TestFirewall;
let production: TestFirewall;
let dir = '';
/** The whole environment each command sees: the token variables wafctl.yaml names, and no WAF_*. */
let env: Record<string, string> = {};

function project(productionUrl: string): string {
  return `environments:
  staging:
    url: ${staging.url}
    token_env: TOKEN_STAGING
    paths: [base, envs/staging]
  production:
    ${productionUrl}
    token_env: TOKEN_PROD
    paths: [base, envs/production]
`;
}

beforeEach(async () => {
  staging = await startTestFirewall();
  production = await startTestFirewall();
  dir = await writeConfig({
    'wafctl.yaml': project(`url: ${production.url}`),
    'base/rules.yaml': BASE,
    'envs/staging/groups.yaml': STAGING,
    'envs/production/rules.yaml': PRODUCTION,
  });
  env = { TOKEN_STAGING: E2E_TOKEN, TOKEN_PROD: E2E_TOKEN };
});

afterEach(async () => {
  await staging.close();
  await production.close();
  await rm(dir, { recursive: true, force: true });
});

describe('plan --env NAME', () => {
  it('plans each environment, merged with its overlay, against its own firewall only', async () => {
    const plan = await runCli(['plan', dir, '--env', 'staging'], { env });
    expect(plan.stderr).toBe('');
    expect(plan.code).toBe(0);
    expect(plan.stdout.split('\n')[0]).toBe('Environment: staging');
    expect(plan.stdout).toContain('# application_rule.shop.example.com/Block admin will be created');
    expect(plan.stdout).toContain('# group.soc will be created');
    expect(plan.stdout).toMatch(/firewall_action += "block"/);
    expect(plan.stdout).toContain('Plan: 2 to add, 0 to change, 0 to destroy.');
    expect((await staging.stats()).total).toBeGreaterThan(0);
    expect((await production.stats()).total).toBe(0);

    await staging.resetStats();
    const json = await runCli(['plan', dir, '--env', 'production', '--format', 'json'], { env });
    expect(json.code).toBe(0);
    const doc = JSON.parse(json.stdout) as { changes: { action: string; address: string }[] };
    expect(Object.keys(doc)).not.toContain('environment');
    expect(doc.changes.map((change) => change.action)).toEqual(['create']);
    expect(json.stdout).toContain('"log"');
    expect(json.stdout).not.toContain('"block"');
    expect(json.stdout).not.toContain('Environment:');
    expect((await production.stats()).total).toBeGreaterThan(0);
    expect((await staging.stats()).total).toBe(0);
  });

  it('records the environment URL in a saved plan, and apply --plan --env checks it', async () => {
    const out = join(dir, 'plan.json');
    expect((await runCli(['plan', '--env', 'staging', '--out', out], { env, cwd: dir })).code).toBe(0);
    expect(JSON.parse(await readFile(out, 'utf8'))).toMatchObject({ base_url: staging.url });
    const elsewhere = await runCli(['apply', '--plan', out, '--env', 'production'], { env, cwd: dir });
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toContain(`was made against ${staging.url}, not ${production.url}`);
    expect((await production.stats()).total).toBe(0);
    const applied = await runCli(['apply', '--plan', out, '--env', 'staging'], { env, cwd: dir });
    expect(applied.stderr).not.toContain('Error');
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('Apply complete! Resources: 2 added');
  });
});

describe('apply and drift --env NAME', () => {
  it('applies one environment; the other still has its changes; drift sees a hand change', async () => {
    const applied = await runCli(['apply', dir, '--env', 'staging', '--auto-approve'], { env });
    expect(applied.stderr).not.toContain('Error');
    expect(applied.code).toBe(0);
    expect(applied.stdout.split('\n')[0]).toBe('Environment: staging');
    expect(applied.stdout).toContain('Apply complete! Resources: 2 added, 0 changed, 0 destroyed.');
    expect((await production.stats()).total).toBe(0);

    const again = await runCli(['plan', dir, '--env', 'staging', '--detailed-exitcode'], { env });
    expect(again.stdout).toBe('Environment: staging\nNo changes. The firewall matches the configuration.\n');
    expect(again.code).toBe(0);
    const other = await runCli(['plan', dir, '--env', 'production', '--detailed-exitcode'], { env });
    expect(other.code).toBe(2);

    expect((await runCli(['apply', dir, '--env', 'production', '--auto-approve'], { env })).code).toBe(0);
    const clean = await runCli(['drift', dir, '--env', 'production'], { env });
    expect(clean.stdout).toBe('Environment: production\nNo drift: the firewall matches the configuration.\n');
    expect(clean.code).toBe(0);
    const [rule] = await production.api.applicationRules.list();
    await production.api.applicationRules.update(rule?.id ?? '', { priority: 'low' });
    const drifted = await runCli(['drift', dir, '--env', 'production'], { env });
    expect(drifted.code).toBe(2);
    expect(drifted.stdout).toContain('Drift detected: 1 object differs from the configuration.');
    const json = await runCli(['drift', dir, '--env', 'production', '--format', 'json'], { env });
    expect(JSON.parse(json.stdout)).toMatchObject({ drift: true, objects: 1 });
    // Staging, applied before and untouched since, has not drifted.
    expect((await runCli(['drift', dir, '--env', 'staging'], { env })).code).toBe(0);
  });
});

describe('refusals, before any request', () => {
  async function expectRefused(args: string[], message: string, extra: Record<string, string> = {}) {
    const result = await runCli(args, { env: { ...env, ...extra } });
    expect(result.stderr).toContain(message);
    expect(result.code).toBe(1);
    expect((await staging.stats()).total).toBe(0);
    expect((await production.stats()).total).toBe(0);
  }

  it('names an unset url_env variable, never a value', async () => {
    await writeFile(join(dir, 'wafctl.yaml'), project('url_env: URL_PROD'));
    await expectRefused(
      ['plan', dir, '--env', 'production'],
      'environment production: URL_PROD is not set (url_env in',
    );
    await expectRefused(['drift', dir, '--env', 'production'], 'URL_PROD is not set', { URL_PROD: '' });
    const set = await runCli(['plan', dir, '--env', 'production'], {
      env: { ...env, URL_PROD: production.url },
    });
    expect(set.code).toBe(0);
  });

  it('names an unset token_env variable', async () => {
    const { TOKEN_PROD: _, ...noToken } = env;
    const result = await runCli(['plan', dir, '--env', 'production'], { env: noToken });
    expect(result.stderr).toBe(
      `Error: environment production: TOKEN_PROD is not set (token_env in ${join(dir, 'wafctl.yaml')}): set it to the API token.\n`,
    );
    expect(result.code).toBe(1);
    expect((await production.stats()).total).toBe(0);
  });

  it('refuses several environments at once, naming them', async () => {
    await expectRefused(
      ['plan', dir, '--env', 'all'],
      'several environments at once (staging, production) are not supported yet',
    );
    await expectRefused(
      ['apply', dir, '--env', 'staging', '--env', 'production', '--auto-approve'],
      'several environments at once (staging, production) are not supported yet',
    );
    await expectRefused(['drift', dir, '--env', 'qa'], 'unknown environment "qa"');
  });

  it('refuses --url and --token-file with --env', async () => {
    await expectRefused(
      ['plan', dir, '--env', 'staging', '--url', production.url],
      '--url cannot be combined with --env',
    );
    await expectRefused(
      ['apply', dir, '--env', 'staging', '--token-file', 'token', '--auto-approve'],
      '--token-file cannot be combined with --env',
    );
  });

  it('without --env, asks for one; --env on a root without environments is refused', async () => {
    await expectRefused(
      ['plan', dir],
      `${join(dir, 'wafctl.yaml')} declares environments (staging, production): pass --env NAME to choose the one to plan`,
      staging.env,
    );
    const plain = await writeConfig({ 'rules.yaml': BASE });
    try {
      await expectRefused(
        ['plan', plain, '--env', 'staging'],
        '--env selects environments of wafctl.yaml at the configuration root',
        staging.env,
      );
    } finally {
      await rm(plain, { recursive: true, force: true });
    }
  });

  it('redacts the token read through token_env', async () => {
    const token = 'environment-token-2b9e1d';
    const result = await runCli(['plan', dir, '--env', 'staging'], {
      env: { ...env, TOKEN_STAGING: token, WAFCTL_DEBUG: '1' },
    });
    expect(result.code).toBe(1);
    expect(result.stdout + result.stderr).not.toContain(token);
  });
});
