/**
 * `--env NAME` on plan, drift and apply (issue 31): one environment of wafctl.yaml per run, against
 * its own firewall. Two emulators, a shared base and one overlay per environment: staging blocks
 * what production logs.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { noteWriter } from '../../src/cli/planning.js';
import { applyReportEnvironmentsSchema } from '../../src/ops/apply/report-document.js';
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
import { testIo } from '../helpers/io.js';

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
    // The command it points to is one that works on a root with environments (issue 40).
    expect(drifted.stdout).toContain(`Run \`wafctl plan ${dir} --env production\` for the full diff.`);
    const markdown = await runCli(['drift', dir, '--env', 'production', '--format', 'markdown'], { env });
    expect(markdown.stdout).toContain('### wafctl drift (production): Drift detected');
    const planned = await runCli(['plan', dir, '--env', 'staging', '--format', 'markdown'], { env });
    expect(planned.stdout.split('\n').slice(0, 2)).toEqual([
      '<!-- wafctl-plan -->',
      '### wafctl plan: staging',
    ]);
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

  it('refuses --out with several environments unless it names each, and --plan with several', async () => {
    await expectRefused(
      ['plan', dir, '--env', 'all', '--out', join(dir, 'p.json')],
      "--out saves one environment's plan, and 2 are selected (staging, production): put {env} in the file name",
    );
    const saved = await runCli(['apply', '--plan', 'p.json', '--env', 'all'], { env, cwd: dir });
    expect(saved.stderr).toContain('--plan applies one saved plan, made for one environment');
    expect(saved.code).toBe(1);
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

  it("a refused token's hint names the token_env variable it came from, not WAF_TOKEN (issue 41)", async () => {
    const result = await runCli(['plan', dir, '--env', 'staging'], {
      env: { ...env, TOKEN_STAGING: 'environment-token-2b9e1d', WAF_TOKEN: E2E_TOKEN },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(': 403 ');
    expect(result.stderr).toContain(
      'Hint: the server refused the token, or it lacks the privilege for this request; check TOKEN_STAGING (token_env of environment staging).\n',
    );
    expect(result.stderr).not.toContain('WAF_TOKEN');
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
      const [table, sections] = plan.stdout.split(/\n(?=== Environment: staging ==\n)/);
      // The fleet summary opens the output: one row per environment, in declared order.
      expect(
        table
          ?.split('\n')
          .slice(1, 3)
          .map((row) => row.split(/\s{2,}/).slice(0, 2)),
      ).toEqual([
        ['staging', '2 changes'],
        ['production', '1 change'],
      ]);
      const [first, second] = (sections ?? '').split('\n== Environment: production ==\n');
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
    expect(Object.keys(doc)).toEqual(['format_version', 'environments', 'summary']);
    expect(Object.keys(doc.environments)).toEqual(['staging', 'production']);
    expect(doc.environments.staging?.changes).toHaveLength(2);
    expect(doc.environments.production?.changes).toHaveLength(1);
  });

  it('markdown: the golden two-environment plan (test/e2e/golden/plan-environments.md)', async () => {
    // Applied, then production disables the rule (weakens protection) and staging renames a group's description.
    expect((await runCli(['apply', dir, '--env', 'all', '--auto-approve'], { env })).code).toBe(0);
    await writeFile(join(dir, 'envs/production/rules.yaml'), `${PRODUCTION}    enabled: false\n`);
    await writeFile(
      join(dir, 'envs/staging/groups.yaml'),
      'groups:\n  - name: soc\n    description: SOC analysts\n',
    );
    const md = await runCli(['plan', dir, '--env', 'all', '--format', 'markdown'], { env });
    expect(md.code).toBe(0);
    await expectGolden('plan-environments.md', md.stdout);
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
    expect(failed.stderr).toContain('Error: environment production: URL_PROD is not set');
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

describe('plan --out and drift --report with several environments', () => {
  it('saves one plan per environment where --out names {env}; apply --plan --env applies each', async () => {
    const plan = await runCli(['plan', '--env', 'all', '--out', 'plans-{env}.json'], { env, cwd: dir });
    expect(plan.code).toBe(0);
    expect(JSON.parse(await readFile(join(dir, 'plans-staging.json'), 'utf8'))).toMatchObject({
      base_url: staging.url,
    });
    expect(JSON.parse(await readFile(join(dir, 'plans-production.json'), 'utf8'))).toMatchObject({
      base_url: production.url,
    });
    for (const name of ['staging', 'production']) {
      const applied = await runCli(['apply', '--plan', `plans-${name}.json`, '--env', name], {
        env,
        cwd: dir,
      });
      expect(applied.code).toBe(0);
    }
    expect((await runCli(['plan', '--env', 'all', '--detailed-exitcode'], { env, cwd: dir })).code).toBe(0);
  });

  it('drift --report writes the combined report, as printed', async () => {
    const report = join(dir, 'drift.md');
    const drift = await runCli(['drift', dir, '--env', 'all', '--format', 'markdown', '--report', report], {
      env,
    });
    expect(drift.code).toBe(2);
    expect(await readFile(report, 'utf8')).toBe(drift.stdout);
    expect(drift.stdout).toContain('\n## staging\n');
    expect(drift.stdout).toContain('\n## production\n');
  });
});

describe('apply with several environments', () => {
  it('JSON: a summary row per environment, applied, then no changes', async () => {
    const summaryOf = (stdout: string) => (JSON.parse(stdout) as { summary: unknown }).summary;
    const json = ['apply', dir, '--env', 'all', '--auto-approve', '--format', 'json'];
    const first = await runCli(json, { env });
    expect(first.code).toBe(0);
    expect(summaryOf(first.stdout)).toEqual({
      staging: { result: 'applied: 2 operations', count: 2, impact: null, error: null },
      production: { result: 'applied: 1 operation', count: 1, impact: null, error: null },
    });
    const again = await runCli(json, { env });
    const unchanged = { result: 'no changes', count: 0, impact: null, error: null };
    expect(summaryOf(again.stdout)).toEqual({ staging: unchanged, production: unchanged });
  });

  it('plans every environment, then applies each to its own firewall; plans then show no changes', async () => {
    const applied = await runCli(['apply', dir, '--env', 'all', '--auto-approve'], { env });
    expect(applied.code).toBe(0);
    // The fleet table of the plans opens the output (issue 45).
    expect(
      applied.stdout
        .split('\n')
        .slice(0, 3)
        .map((row) => row.split(/\s{2,}/).slice(0, 2)),
    ).toEqual([
      ['Environment', 'Result'],
      ['staging', '2 changes'],
      ['production', '1 change'],
    ]);
    // The plans first, then the reports, each in declared order.
    const order = [
      '== Environment: staging ==\n',
      'Plan: 2 to add, 0 to change, 0 to destroy.',
      '== Environment: production ==\n',
      'Plan: 1 to add, 0 to change, 0 to destroy.',
      '== Environment: staging ==\n',
      'Apply complete! Resources: 2 added, 0 changed, 0 destroyed.',
      '== Environment: production ==\n',
      'Apply complete! Resources: 1 added, 0 changed, 0 destroyed.',
    ];
    let at = 0;
    for (const part of order) {
      const found = applied.stdout.indexOf(part, at);
      expect(found, part).toBeGreaterThanOrEqual(at);
      at = found + part.length;
    }
    // Progress lines name their environment.
    expect(applied.stderr).toMatch(/^staging: create 1 application_rule: /m);
    expect(applied.stderr).toMatch(/^production: create 1 application_rule: /m);
    expect((await staging.api.groups.list()).map((group) => group.name)).toContain('soc');
    expect((await production.api.groups.list()).map((group) => group.name)).not.toContain('soc');
    const [rule] = await production.api.applicationRules.list();
    expect(rule?.actions[0]?.firewall_action).toBe('log');

    const again = await runCli(['plan', dir, '--env', 'all', '--detailed-exitcode'], { env });
    expect(again.code).toBe(0);
    const nothing = await runCli(['apply', dir, '--env', 'all', '--auto-approve'], { env });
    expect(nothing.code).toBe(0);
    expect(nothing.stdout).not.toContain('Apply complete!');
  });

  it('is all or nothing: an environment that cannot be planned stops every apply, and is named', async () => {
    await writeFile(join(dir, 'wafctl.yaml'), project(`url: ${await unreachableUrl()}`));
    const applied = await runCli(['apply', dir, '--env', 'all', '--auto-approve'], { env });
    expect(applied.code).toBe(1);
    expect(applied.stdout).toContain('== Environment: staging ==\n');
    expect(applied.stdout).toContain('Plan: 2 to add, 0 to change, 0 to destroy.');
    expect(applied.stdout).toContain('== Environment: production ==\nNo plan: this environment failed');
    expect(applied.stderr).toMatch(/^Error: production: /m);
    expect(applied.stderr).toContain(
      'Nothing was applied to any environment: production could not be applied, and several environments are applied all or nothing',
    );
    expect(await staging.api.applicationRules.list()).toEqual([]);
    expect(await staging.api.groups.list()).not.toContainEqual(expect.objectContaining({ name: 'soc' }));
  });

  it('--format json: one report per environment; null for one that could not be planned', async () => {
    const applied = await runCli(['apply', dir, '--env', 'all', '--auto-approve', '--format', 'json'], {
      env,
    });
    expect(applied.code).toBe(0);
    const doc = applyReportEnvironmentsSchema.parse(JSON.parse(applied.stdout));
    expect(doc.environments.staging?.summary).toMatchObject({ operations: 2, done: 2 });
    expect(doc.environments.production?.summary).toMatchObject({ operations: 1, done: 1 });

    await writeFile(join(dir, 'envs/staging/groups.yaml'), 'groups:\n  - name: soc\n    description: SOC\n');
    await writeFile(join(dir, 'wafctl.yaml'), project(`url: ${await unreachableUrl()}`));
    const blocked = await runCli(['apply', dir, '--env', 'all', '--auto-approve', '--format', 'json'], {
      env,
    });
    expect(blocked.code).toBe(1);
    const held = applyReportEnvironmentsSchema.parse(JSON.parse(blocked.stdout));
    expect(held.environments.production).toBeNull();
    expect(held.environments.staging?.results).toMatchObject([
      {
        address: 'group.soc',
        outcome: 'not_started',
        reason: expect.stringContaining('production could not be applied'),
      },
    ]);
  });

  it('a configuration problem in one environment: nothing is read from any firewall', async () => {
    await writeFile(join(dir, 'envs/production/rules.yaml'), 'application_rules: [{rq_host: 1}]\n');
    const applied = await runCli(['apply', dir, '--env', 'all', '--auto-approve'], { env });
    expect(applied.code).toBe(1);
    expect(applied.stdout).toBe('');
    expect(applied.stderr).toMatch(/^Error: production: /m);
    expect(applied.stderr).toContain('Nothing was read from any firewall, and nothing was applied.');
    expect((await staging.stats()).total).toBe(0);
    expect((await production.stats()).total).toBe(0);
  });

  it('--fail-on: exit 3 across environments; apply refuses every environment', async () => {
    expect((await runCli(['apply', dir, '--env', 'all', '--auto-approve'], { env })).code).toBe(0);
    // Production disables the base rule.
    await writeFile(join(dir, 'envs/production/rules.yaml'), `${PRODUCTION}    enabled: false\n`);
    await writeFile(
      join(dir, 'envs/staging/groups.yaml'),
      'groups:\n  - name: soc\n    description: SOC analysts\n',
    );
    const plan = await runCli(['plan', dir, '--env', 'all', '--fail-on', 'weakens_protection'], { env });
    expect(plan.code).toBe(3);
    expect(plan.stderr).toMatch(
      /^Error: production: --fail-on weakens_protection: 1 change weakens protection/m,
    );
    expect(plan.stderr).not.toContain('staging:');
    const applied = await runCli(
      ['apply', dir, '--env', 'all', '--auto-approve', '--fail-on', 'weakens_protection'],
      { env },
    );
    expect(applied.code).toBe(3);
    expect(applied.stderr).toContain(
      'Nothing was applied to any environment: production could not be applied',
    );
    expect((await staging.api.groups.list()).find((group) => group.name === 'soc')?.description).toBe(
      'Analysts',
    );
    expect((await production.api.applicationRules.list())[0]?.enabled).toBe(true);
  });

  it('names the environment in refresh notes, as several run at once', () => {
    const spec = { name: 'staging', paths: ['base'], vars: {} };
    const connection = { name: 'staging', file: 'wafctl.yaml', url: staging.url, spec };
    const named = testIo();
    noteWriter(named.io, { environment: connection })('the server has no user listing');
    expect(named.stderr()).toBe('Note: staging: the server has no user listing.\n');
    const plain = testIo();
    noteWriter(plain.io, {})('the server has no user listing');
    expect(plain.stderr()).toBe('Note: the server has no user listing.\n');
  });
});

describe('an environment that signs in', () => {
  it('signs in with the variables signin_username_env and signin_password_env name, never printing them', async () => {
    const password = 'carol "env" pass/word';
    const signed = await startTestFirewall({
      seed: { users: [{ id: 'u-1', username: 'carol', password }], rules: [] },
    });
    try {
      // The admin token only sets the scene: carol's privileges come from this group.
      await signed.api.groups.create({
        name: 'superusers',
        is_admin: true,
        permissions: [],
        user_ids: ['u-1'],
      });
      await writeFile(
        join(dir, 'wafctl.yaml'),
        `${project(`url: ${production.url}`)}  signed:
    url: ${signed.url}
    signin_username_env: SIGNIN_USER
    signin_password_env: SIGNIN_PASSWORD
    paths: [base, envs/staging]
`,
      );
      await writeFile(
        join(dir, 'envs/staging/groups.yaml'),
        `${STAGING}  - name: superusers\n    is_admin: true\n    users: [carol]\n`,
      );
      const signInEnv = { ...env, SIGNIN_USER: 'carol', SIGNIN_PASSWORD: password };
      const applied = await runCli(['apply', dir, '--env', 'signed', '--auto-approve'], { env: signInEnv });
      expect(applied.stderr).not.toContain('Error');
      expect(applied.code).toBe(0);
      expect(applied.stdout).toContain('Apply complete! Resources: 2 added, 0 changed, 0 destroyed.');
      expect((await signed.stats()).by_route['POST /api/v1/signin']).toBe(1);
      const plan = await runCli(['plan', dir, '--env', 'signed', '--env', 'staging', '--detailed-exitcode'], {
        env: signInEnv,
      });
      expect(plan.stdout).toContain('== Environment: signed ==\nNo changes.');
      expect(plan.code).toBe(2);
      for (const output of [applied.stdout, applied.stderr, plan.stdout, plan.stderr]) {
        expect(output).not.toContain(password);
      }
      const wrong = await runCli(['plan', dir, '--env', 'signed'], {
        env: { ...signInEnv, SIGNIN_PASSWORD: 'wrong-password-123' },
      });
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toBe('Error: sign-in as carol failed: Invalid username or password\n');
      // Signed in, but without the privilege: the hint names the variable that chose the user.
      const superusers = (await signed.api.groups.list()).find((g) => g.name === 'superusers');
      await signed.api.groups.update(superusers?.id ?? '', {
        name: 'superusers',
        is_admin: false,
        permissions: [],
        user_ids: ['u-1'],
      });
      const refused = await runCli(['plan', dir, '--env', 'signed'], { env: signInEnv });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(
        'check the groups of the user named by SIGNIN_USER (signin_username_env of environment signed).',
      );
    } finally {
      await signed.close();
    }
  });
});

describe('export --env', () => {
  it("exports one environment's firewall, or each into its own --dir; refuses without --env", async () => {
    expect((await runCli(['apply', dir, '--env', 'all', '--auto-approve'], { env })).code).toBe(0);
    const one = await runCli(['export', '--env', 'staging', '--kind', 'groups'], { env, cwd: dir });
    expect(one.stderr).toBe('');
    expect(one.code).toBe(0);
    expect(one.stdout).toContain('- name: soc\n');

    const each = await runCli(['export', '--env', 'all', '--dir', 'live/{env}'], { env, cwd: dir });
    expect(each.stderr).toBe('');
    expect(each.code).toBe(0);
    expect(await readFile(join(dir, 'live/staging/groups.yaml'), 'utf8')).toContain('- name: soc\n');
    expect(await readFile(join(dir, 'live/production/application-rules.yaml'), 'utf8')).toContain(
      'firewall_action: log',
    );

    const stdout = await runCli(['export', '--env', 'all'], { env, cwd: dir });
    expect(stdout.stderr).toContain("export writes one environment's firewall, and 2 are selected");
    expect(stdout.code).toBe(1);
    const none = await runCli(['export'], { env: { ...env, ...staging.env }, cwd: dir });
    expect(none.stderr).toContain(
      'declares environments (staging, production): pass --env NAME to choose the one to export',
    );
    expect(none.code).toBe(1);
  });
});

describe('get --env', () => {
  it("reads that environment's firewall; without --env, a root with environments is refused", async () => {
    expect((await runCli(['apply', dir, '--env', 'staging', '--auto-approve'], { env })).code).toBe(0);
    const got = await runCli(['get', 'groups', '--env', 'staging', '--output', 'json'], { env, cwd: dir });
    expect(got.code).toBe(0);
    expect((JSON.parse(got.stdout) as { name: string }[]).map((group) => group.name)).toContain('soc');
    const none = await runCli(['get', 'groups'], { env: { ...env, ...production.env }, cwd: dir });
    expect(none.stderr).toContain('pass --env NAME to choose the one to read from');
    expect(none.code).toBe(1);
  });
});
