/**
 * `apply --wait` against the emulator (issue 44): its actions are `pending` for `syncDelayMs`, then
 * `synced`, or `error` on the `syncFail` firewalls. The emulator and the command share one manual
 * clock (test/helpers/firewall.ts): each wait of the command moves the emulator's time, so a sync
 * delay passes without a real sleep.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { runWafctl } from '../../src/cli/program.js';
import { forgetSecrets } from '../../src/core/secrets.js';
import { apply } from '../../src/library/index.js';
import {
  applyReportDocumentSchema,
  applyReportEnvironmentsSchema,
} from '../../src/ops/apply/report-document.js';
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
import { testIo } from '../helpers/io.js';

const opened: { firewall?: TestFirewall; dir?: string } = {};

afterEach(async () => {
  await opened.firewall?.close();
  if (opened.dir !== undefined) await rm(opened.dir, { recursive: true, force: true });
});

/** Two rules: `shop.example.com/Block admin` on waf-eu-1, `blog.example.com/Block login` on waf-us-1. */
const RULES = rulesYaml([{}, { host: 'blog.example.com', description: 'Block login', firewall: 'waf-us-1' }]);

async function setUp(sync: { syncDelayMs?: number; syncFail?: string[] }): Promise<{
  firewall: TestFirewall;
  dir: string;
  clock: ManualClock;
}> {
  const clock = manualClock();
  const firewall = await startTestFirewall({ seed: { rules: [] }, clock, ...sync });
  const dir = await writeConfig({ 'rules.yaml': RULES });
  Object.assign(opened, { firewall, dir });
  return { firewall, dir, clock };
}

const reportOf = async (file: string) =>
  applyReportDocumentSchema.parse(JSON.parse(await readFile(file, 'utf8')));

describe('apply --wait', () => {
  it('with a sync delay: returns once every action is synced, and reports it', async () => {
    const { firewall, dir, clock } = await setUp({ syncDelayMs: 2500 });
    const report = join(dir, 'report.json');
    const run = await runCli(['apply', dir, '--auto-approve', '--wait', '--report', report], {
      env: firewall.env,
      clock,
    });
    expect(run.stderr).not.toContain('Error');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Apply complete! Resources: 2 added, 0 changed, 0 destroyed.');
    expect(run.stdout).toContain(
      'Waiting for 2 application rules to be enforced on their firewalls (up to 5m)...',
    );
    expect(run.stdout).toContain('Enforced: 2 application rules synced on waf-eu-1, waf-us-1.');
    // Read at once (pending), after 1 s (pending), after 2 s more: synced at 2.5 s.
    expect(clock.sleeps).toEqual([1000, 2000]);

    const { enforcement, exit_code } = await reportOf(report);
    expect(exit_code).toBe(0);
    const rules = await firewall.api.applicationRules.list();
    const idOf = (description: string) => rules.find((r) => r.description === description)?.id;
    expect(enforcement).toMatchObject({
      result: 'enforced',
      timeout_ms: 300_000,
      waited_ms: 3000,
      polls: 3,
      summary: { rules: 2, actions: 2, synced: 2, pending: 0, error: 0 },
    });
    expect(enforcement?.actions).toEqual([
      {
        kind: 'application_rule',
        key: 'blog.example.com/Block login',
        address: 'application_rule.blog.example.com/Block login',
        id: idOf('Block login'),
        firewall: 'waf-us-1',
        firewall_action: 'block',
        status: 'synced',
        state: 'synced',
      },
      {
        kind: 'application_rule',
        key: 'shop.example.com/Block admin',
        address: 'application_rule.shop.example.com/Block admin',
        id: idOf('Block admin'),
        firewall: 'waf-eu-1',
        firewall_action: 'block',
        status: 'synced',
        state: 'synced',
      },
    ]);
  });

  it('waits for an updated rule, which goes back to pending, and not for a deleted one', async () => {
    const { firewall, dir, clock } = await setUp({ syncDelayMs: 500 });
    const first = await runCli(['apply', dir, '--auto-approve'], { env: firewall.env, clock });
    expect(first.code).toBe(0);
    clock.advance(1000);
    // One rule's priority changes (an update in place), the other is gone (a delete).
    await writeFile(join(dir, 'rules.yaml'), rulesYaml([{ priority: 'low' }]));
    await writeFile(join(dir, 'wafctl.yaml'), 'manage:\n  application_rules: {prune: true}\n');
    const report = join(dir, 'report.json');
    const run = await runCli(['apply', dir, '--auto-approve', '--wait', '--report', report], {
      env: firewall.env,
      clock,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Resources: 0 added, 1 changed, 1 destroyed.');
    expect(run.stdout).toContain('Enforced: 1 application rule synced on waf-eu-1.');
    // Pending right after the PUT: the wait read it twice.
    expect(clock.sleeps).toEqual([1000]);
    const { enforcement } = await reportOf(report);
    expect(enforcement?.actions.map((a) => [a.address, a.state])).toEqual([
      ['application_rule.shop.example.com/Block admin', 'synced'],
    ]);
  });

  it('with a failing firewall: exits 1 naming the rule and the firewall', async () => {
    const { firewall, dir, clock } = await setUp({ syncFail: ['waf-us-1'] });
    const run = await runCli(['apply', dir, '--auto-approve', '--wait', '--format', 'json'], {
      env: firewall.env,
      clock,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      '  ! application_rule.blog.example.com/Block login on waf-us-1: sync error (sync_status "error")',
    );
    expect(run.stderr).toContain('Not enforced: 1 of 2 application rules not synced on waf-us-1.');
    expect(run.stderr).not.toContain('Block admin on waf-eu-1');
    // The error is there at once: no waiting.
    expect(clock.sleeps).toEqual([]);
    const report = applyReportDocumentSchema.parse(JSON.parse(run.stdout));
    expect(report).toMatchObject({ exit_code: 1, succeeded: true, summary: { created: 2, failed: 0 } });
    expect(report.enforcement).toMatchObject({ result: 'not_enforced', summary: { synced: 1, error: 1 } });
    expect(report.enforcement?.actions.map((a) => [a.firewall, a.status, a.state])).toEqual([
      ['waf-us-1', 'error', 'error'],
      ['waf-eu-1', 'synced', 'synced'],
    ]);
  });

  it('--wait-timeout alone waits, and gives up at the timeout: exit 1, each rule and firewall named', async () => {
    const { firewall, dir, clock } = await setUp({ syncDelayMs: 600_000 });
    const run = await runCli(['apply', dir, '--auto-approve', '--wait-timeout', '20s'], {
      env: firewall.env,
      clock,
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('(up to 20s)...');
    expect(run.stdout).toContain(
      '  ! application_rule.blog.example.com/Block login on waf-us-1: not synced within 20s (sync_status "pending")',
    );
    expect(run.stdout).toContain(
      '  ! application_rule.shop.example.com/Block admin on waf-eu-1: not synced within 20s (sync_status "pending")',
    );
    expect(run.stdout).toContain(
      'Not enforced within 20s: 2 of 2 application rules not synced on waf-eu-1, waf-us-1.',
    );
    expect(clock.sleeps).toEqual([1000, 2000, 4000, 8000, 5000]);
  });

  it('an interrupt during the wait stops waiting: the writes are done, and said so', async () => {
    const { firewall, dir, clock } = await setUp({ syncDelayMs: 600_000 });
    forgetSecrets();
    // The first wait of the poll is when SIGINT comes.
    const run = testIo({
      env: firewall.env,
      clock: {
        ...clock,
        sleep: async (ms) => {
          run.signal('SIGINT');
          await clock.sleep(ms);
        },
      },
    });
    const code = await runWafctl(['apply', dir, '--auto-approve', '--wait'], run.io);
    expect(code).toBe(130);
    expect(run.stdout()).toContain('Apply complete! Resources: 2 added, 0 changed, 0 destroyed.');
    expect(run.stdout()).toContain(
      'Stopped waiting for enforcement (interrupted): the writes are done; 2 of 2 application rules not confirmed synced.',
    );
    expect(await firewall.api.applicationRules.list()).toHaveLength(2);
  });

  it('several environments: each waits on its own firewall, and its section and report say what it found', async () => {
    const clock = manualClock();
    const staging = await startTestFirewall({ seed: { rules: [] }, clock, syncDelayMs: 1500 });
    const production = await startTestFirewall({ seed: { rules: [] }, clock, syncFail: ['waf-eu-1'] });
    onTestFinished(async () => {
      await staging.close();
      await production.close();
    });
    const environment = (name: string, firewall: TestFirewall) =>
      `  ${name}:\n    url: ${firewall.url}\n    token_env: TOKEN\n    paths: [rules.yaml]\n`;
    const dir = await writeConfig({
      'wafctl.yaml': `environments:\n${environment('staging', staging)}${environment('production', production)}`,
      'rules.yaml': rulesYaml([{}]),
    });
    opened.dir = dir;
    const report = join(dir, 'report.json');
    const run = await runCli(['apply', dir, '--env', 'all', '--auto-approve', '--wait', '--report', report], {
      env: { TOKEN: E2E_TOKEN },
      clock,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'staging: Waiting for 1 application rule to be enforced on their firewalls (up to 5m)...',
    );
    // The plans, then the reports, each in one section per environment.
    const [stagingText, productionText] = run.stdout
      .split(/== Environment: (?:staging|production) ==/)
      .slice(-2);
    expect(stagingText).toContain('Enforced: 1 application rule synced on waf-eu-1.');
    expect(productionText).toContain(
      '  ! application_rule.shop.example.com/Block admin on waf-eu-1: sync error (sync_status "error")',
    );
    const { environments } = applyReportEnvironmentsSchema.parse(JSON.parse(await readFile(report, 'utf8')));
    expect(environments.staging?.enforcement?.result).toBe('enforced');
    expect(environments.production?.enforcement?.result).toBe('not_enforced');
  });

  it('an invalid --wait-timeout is a usage error before anything runs', async () => {
    const run = await runCli(['apply', '--wait-timeout', '5 minutes']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('--wait-timeout must be a positive duration, e.g. 90s, 5m or 1m30s');
  });

  it('the library: apply with wait and a clock gives the enforcement in its report', async () => {
    const { firewall, dir, clock } = await setUp({ syncDelayMs: 1500 });
    const applied = await apply({
      cwd: dir,
      connection: { url: firewall.url, token: E2E_TOKEN },
      wait: true,
      waitTimeoutSeconds: 60,
      clock,
    });
    const report = applyReportDocumentSchema.parse(applied);
    expect(report.exit_code).toBe(0);
    expect(report.enforcement).toMatchObject({ result: 'enforced', timeout_ms: 60_000, polls: 3 });
    expect(clock.sleeps).toEqual([1000, 2000]);
  });
});
