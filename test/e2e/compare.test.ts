/**
 * `wafctl compare A B --desired` (issue 31): two environments' configurations compared offline, each
 * difference the change from A to B with its security impact. Staging blocks what production logs,
 * and one group is only in production.
 */
import { rm } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { writeConfig } from '../helpers/firewall.js';
import { actionOverlayYaml, rulesYaml } from '../helpers/fixtures.js';

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

  it('without --desired: live comparison is not available yet (usage error)', async () => {
    const run = await runCli(['compare', 'staging', 'production', dir], { env: {} });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('live comparison');
    expect(run.stderr).toContain('--desired');
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
