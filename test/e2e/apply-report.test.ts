/**
 * `apply --format json` and `apply --report FILE` (issue 32): the apply report machines read, written
 * whenever a plan was made: applied, refused at the gate, or with nothing to do. Checked against its
 * schema (src/ops/apply/report-document.ts, schemas/apply-report.schema.json).
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  applyReportDocumentSchema,
  applyReportEnvironmentsSchema,
} from '../../src/ops/apply/report-document.js';
import { runCli, startCli } from '../helpers/cli.js';
import { startTestFirewall, type TestFirewall, unreachableUrl, writeConfig } from '../helpers/firewall.js';
import { rulesAndGroupFiles } from '../helpers/fixtures.js';

let firewall: TestFirewall;
let dir = '';

beforeEach(async () => {
  firewall = await startTestFirewall({ seed: { rules: [] } });
  dir = await writeConfig(rulesAndGroupFiles());
});

afterEach(async () => {
  await firewall.close();
  await rm(dir, { recursive: true, force: true });
});

const parse = (stdout: string) => applyReportDocumentSchema.parse(JSON.parse(stdout));

describe('apply --format json', () => {
  it('prints only the report on stdout, the plan and the text report on stderr', async () => {
    const applied = await runCli(['apply', dir, '--auto-approve', '--format', 'json'], { env: firewall.env });
    expect(applied.code).toBe(0);
    const report = parse(applied.stdout);
    expect(report).toMatchObject({
      format_version: 1,
      exit_code: 0,
      succeeded: true,
      summary: { operations: 3, done: 3, created: 3, failed: 0, not_started: 0 },
      refused: [],
    });
    expect(report.results.map((result) => [result.address, result.operation, result.outcome])).toEqual([
      ['group.soc', 'create', 'done'],
      ['application_rule.blog.example.com/Block login', 'create', 'done'],
      ['application_rule.shop.example.com/Block admin', 'create', 'done'],
    ]);
    // Every create's id is the one the re-read that proved it found: two rules created in one bulk
    // call (whose answer lists ids in no stated order) included.
    const [group] = await firewall.api.groups.list().then((groups) => groups.filter((g) => g.name === 'soc'));
    const rules = await firewall.api.applicationRules.list();
    const ruleId = (description: string) => rules.find((r) => r.description === description)?.id;
    expect(report.results.map((result) => result.id)).toEqual([
      group?.id,
      ruleId('Block login'),
      ruleId('Block admin'),
    ]);
    // Two creates of rules in one bulk call, one group: what the emulator counted as writes, and one
    // re-read per create call, proving what it created.
    const writes = Object.entries((await firewall.stats()).by_route)
      .filter(([route]) => !route.startsWith('GET '))
      .reduce((n, [, count]) => n + count, 0);
    expect(report.requests).toBe(writes + 2);
    expect(applied.stderr).toContain('Plan: 3 to add, 0 to change, 0 to destroy.');
    expect(applied.stderr).toContain('Apply complete! Resources: 3 added, 0 changed, 0 destroyed.');

    const again = await runCli(['apply', dir, '--auto-approve', '--format', 'json'], { env: firewall.env });
    expect(again.code).toBe(0);
    expect(parse(again.stdout)).toMatchObject({ exit_code: 0, succeeded: true, results: [], requests: 0 });
  });

  it('a refused apply: every change not_started with the reason, and exit 3', async () => {
    await writeFile(join(dir, 'groups.yaml'), 'groups:\n  - name: soc\n    is_admin: true\n');
    const refused = await runCli(
      ['apply', dir, '--auto-approve', '--format', 'json', '--fail-on', 'broadens_access'],
      { env: firewall.env },
    );
    const report = parse(refused.stdout);
    expect(report.results.map((result) => result.outcome)).toEqual([
      'not_started',
      'not_started',
      'not_started',
    ]);
    expect(report.results[0]?.reason).toContain('--fail-on broadens_access');
    expect(refused.code).toBe(3);
    expect(report).toMatchObject({ exit_code: 3, succeeded: false, requests: 0 });
    expect(refused.stderr).toMatch(/^Error: --fail-on broadens_access/m);
    expect(await firewall.api.applicationRules.list()).toEqual([]);
  });
});

describe('apply --report FILE', () => {
  it('writes the JSON report, and keeps the text output as it was', async () => {
    const text = await runCli(['apply', dir, '--auto-approve', '--report', 'report.json'], {
      env: firewall.env,
      cwd: dir,
    });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('Apply complete! Resources: 3 added, 0 changed, 0 destroyed.');
    const report = parse(await readFile(join(dir, 'report.json'), 'utf8'));
    expect(report.summary).toMatchObject({ operations: 3, done: 3 });
  });
});

describe('a run stopped before it had a plan still prints one report (issue 41)', () => {
  /** The document a stopped run prints: nothing done, every count 0, and the error. */
  const expectStopped = (stdout: string, code: number | null) => {
    const report = parse(stdout);
    expect(report).toMatchObject({
      exit_code: code,
      succeeded: false,
      requests: 0,
      results: [],
      refused: [],
    });
    expect(report.summary.operations).toBe(0);
    expect(report.error?.message).toBeTruthy();
    return report;
  };

  it('a configuration problem: the report says where, on stdout and in --report FILE', async () => {
    await writeFile(join(dir, 'broken.yaml'), 'groups:\n  - name: soc\n    bogus: 1\n');
    const out = join(dir, 'report.json');
    const run = await runCli(['apply', dir, '--auto-approve', '--format', 'json', '--report', out], {
      env: firewall.env,
    });
    expect(run.code).toBe(1);
    const report = expectStopped(run.stdout, 1);
    expect(report.error?.message).toMatch(/broken\.yaml:3:5 .*unknown field "bogus"/);
    expect(run.stderr).toContain('unknown field "bogus"');
    expect(JSON.parse(await readFile(out, 'utf8'))).toEqual(report);
  });

  it('a report that cannot be written is said, and the error that stopped the run is still the one reported', async () => {
    await writeFile(join(dir, 'broken.yaml'), 'groups:\n  - name: soc\n    bogus: 1\n');
    const run = await runCli(['apply', dir, '--auto-approve', '--report', join(dir, 'missing', 'r.json')], {
      env: firewall.env,
    });
    expect(run.code).toBe(1);
    const errors = run.stderr.split('\n').filter((line) => line.startsWith('Error: '));
    expect(errors[0]).toMatch(/^Error: cannot write .*r\.json: ENOENT/);
    expect(errors[1]).toMatch(/broken\.yaml:3:5 .*unknown field "bogus"/);
  });

  it('an unreachable firewall and a refused read: the error, and the request it names', async () => {
    const unreachable = await runCli(['apply', dir, '--auto-approve', '--format', 'json'], {
      env: { ...firewall.env, WAF_URL: await unreachableUrl() },
    });
    expect(unreachable.code).not.toBe(0);
    expect(expectStopped(unreachable.stdout, unreachable.code).error?.message).toMatch(
      /^\[GET\] \/api\/v1\/\w+: cannot reach/,
    );

    const refused = await runCli(['apply', dir, '--auto-approve', '--format', 'json'], {
      env: { ...firewall.env, WAF_TOKEN: 'not-the-token-of-anyone' },
    });
    expect(refused.code).toBe(1);
    expect(expectStopped(refused.stdout, 1).error).toMatchObject({ method: 'GET', status: 403 });
  });

  it('a usage error: no terminal to ask on', async () => {
    const run = await runCli(['apply', dir, '--format', 'json'], { env: firewall.env });
    expect(run.code).not.toBe(0);
    expect(expectStopped(run.stdout, run.code).error?.message).toContain('no terminal to ask on');
  });

  it('SIGTERM while the firewall is read: the report, one line, exit 143, nothing applied', async () => {
    const slow = await startTestFirewall({ seed: { rules: [] }, latencyMs: 60_000 });
    try {
      const run = startCli(['apply', dir, '--auto-approve', '--format', 'json'], {
        env: { ...slow.env, WAFCTL_DEBUG: '1' },
      });
      await run.stderrMatches(/--> GET /);
      run.child.kill('SIGTERM');
      const result = await run.result;
      expect(result.code).toBe(143);
      expect(expectStopped(result.stdout, 143).error?.message).toBe(
        'interrupted (SIGTERM) before the apply: the firewall was not changed',
      );
      expect(result.stderr).toContain('Interrupted (SIGTERM): stopped; the firewall was not changed.');
    } finally {
      await slow.close();
    }
  });

  it('several environments, one with a configuration problem: every one null, with its error', async () => {
    const project = await writeConfig({
      'wafctl.yaml': `environments:\n  staging:\n    url: ${firewall.url}\n    token_env: T\n    paths: [good]\n  production:\n    url: http://127.0.0.1:1\n    token_env: T\n    paths: [bad]\n`,
      'good/groups.yaml': 'groups:\n  - name: soc\n',
      'bad/groups.yaml': 'groups:\n  - name: soc\n    bogus: 1\n',
    });
    try {
      const run = await runCli(['apply', project, '--env', 'all', '--auto-approve', '--format', 'json'], {
        env: { T: firewall.env.WAF_TOKEN ?? '' },
      });
      expect(run.code).toBe(1);
      const report = applyReportEnvironmentsSchema.parse(JSON.parse(run.stdout));
      expect(report.environments).toEqual({ staging: null, production: null });
      expect(Object.keys(report.errors ?? {})).toEqual(['production']);
      // The fleet summary: the environment that stopped the run, and the one it stopped.
      expect(report.summary?.staging).toEqual({
        result: 'not planned',
        count: null,
        impact: null,
        error: null,
      });
      expect(report.summary?.production).toMatchObject({ result: 'failed', count: null, impact: null });
      expect(report.summary?.production?.error).toContain('unknown field "bogus"');
      expect(report.errors?.production?.message).toContain('unknown field "bogus"');
    } finally {
      await rm(project, { recursive: true, force: true });
    }
  });
});
