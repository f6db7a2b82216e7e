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

  it('refuses several environments for apply, and --out with several', async () => {
    await expectRefused(
      ['apply', dir, '--env', 'all', '--auto-approve'],
      'several environments at once (staging, production) are not supported yet',
    );
    await expectRefused(
      ['apply', dir, '--env', 'production', '--env', 'staging', '--auto-approve'],
      'several environments at once (staging, production) are not supported yet',
    );
    await expectRefused(
      ['plan', dir, '--env', 'all', '--out', join(dir, 'p.json')],
      '--out saves one environment',
    );
    await expectRefused(
      ['plan', dir, '--env', 'all', '--format', 'markdown', '--max-chars', '1500'],
      '--max-chars 1500 is too small for 2 environments',
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

describe('plan and drift with several environments', () => {
  it('plans every environment against its own firewall, in declared order', async () => {
    for (const args of [
      ['--env', 'all'],
      ['--env', 'production', '--env', 'staging'],
    ]) {
      const plan = await runCli(['plan', dir, ...args], { env });
      expect(plan.stderr).toBe('');
      expect(plan.code).toBe(0);
      const [first, second] = plan.stdout.split('\n== Environment: production ==\n');
      expect(first?.split('\n')[0]).toBe('== Environment: staging ==');
      expect(first).toContain('# group.soc will be created');
      expect(first).toMatch(/firewall_action += "block"/);
      expect(second).not.toContain('group.soc');
      expect(second).toMatch(/firewall_action += "log"/);
      expect(plan.stdout).not.toContain('\nEnvironment: ');
    }
    expect((await staging.stats()).total).toBeGreaterThan(0);
    expect((await production.stats()).total).toBeGreaterThan(0);
  });

  it('gives one JSON document, keyed by environment', async () => {
    const json = await runCli(['plan', dir, '--env', 'all', '--format', 'json'], { env });
    expect(json.code).toBe(0);
    const doc = JSON.parse(json.stdout) as { environments: Record<string, { changes: unknown[] }> };
    expect(Object.keys(doc)).toEqual(['environments']);
    expect(Object.keys(doc.environments)).toEqual(['staging', 'production']);
    expect(doc.environments.staging?.changes).toHaveLength(2);
    expect(doc.environments.production?.changes).toHaveLength(1);
  });

  it('gives one markdown comment, one section per environment, within --max-chars', async () => {
    for (const maxChars of [undefined, 2500]) {
      const extra = maxChars === undefined ? [] : ['--max-chars', String(maxChars)];
      const md = await runCli(['plan', dir, '--env', 'all', '--format', 'markdown', ...extra], { env });
      expect(md.code).toBe(0);
      expect(md.stdout.split('<!-- wafctl-plan -->')).toHaveLength(2);
      expect(md.stdout.startsWith('<!-- wafctl-plan -->\n## wafctl plan: staging, production\n')).toBe(true);
      const staged = md.stdout.indexOf('\n## staging\n');
      const produced = md.stdout.indexOf('\n## production\n');
      expect(staged).toBeGreaterThan(0);
      expect(produced).toBeGreaterThan(staged);
      expect(md.stdout.indexOf('Security impact', staged)).toBeLessThan(
        md.stdout.indexOf('<details>', staged),
      );
      expect(md.stdout.length).toBeLessThanOrEqual(maxChars ?? 65_536);
    }
  });

  it('aggregates exit codes: the worst wins, and a failing environment hides nothing', async () => {
    expect((await runCli(['apply', dir, '--env', 'staging', '--auto-approve'], { env })).code).toBe(0);
    const changes = await runCli(['plan', dir, '--env', 'all', '--detailed-exitcode'], { env });
    expect(changes.stdout).toContain(
      '== Environment: staging ==\nNo changes. The firewall matches the configuration.\n',
    );
    expect(changes.code).toBe(2);

    await writeFile(join(dir, 'wafctl.yaml'), project('url_env: URL_PROD'));
    const failed = await runCli(['plan', dir, '--env', 'all', '--detailed-exitcode'], { env });
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain(
      '== Environment: staging ==\nNo changes. The firewall matches the configuration.\n',
    );
    expect(failed.stdout).toContain('== Environment: production ==\nNo plan: this environment failed');
    expect(failed.stderr).toContain('Error: production: environment production: URL_PROD is not set');
    const json = await runCli(['plan', dir, '--env', 'all', '--format', 'json'], { env });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ environments: { production: null } });
  });

  it('drift --env all exits 2 when one environment drifted, 0 when none', async () => {
    expect((await runCli(['apply', dir, '--env', 'staging', '--auto-approve'], { env })).code).toBe(0);
    expect((await runCli(['apply', dir, '--env', 'production', '--auto-approve'], { env })).code).toBe(0);
    expect((await runCli(['drift', dir, '--env', 'all'], { env })).code).toBe(0);
    const [rule] = await production.api.applicationRules.list();
    await production.api.applicationRules.update(rule?.id ?? '', { priority: 'low' });
    const drifted = await runCli(['drift', dir, '--env', 'all'], { env });
    expect(drifted.code).toBe(2);
    expect(drifted.stdout).toContain(
      '== Environment: staging ==\nNo drift: the firewall matches the configuration.\n',
    );
    expect(drifted.stdout).toContain('== Environment: production ==\nDrift detected: 1 object differs');
  });
});
