/**
 * The fleet drift workflow (examples/ci/github-actions/fleet-drift.yml; its schema and actionlint
 * checks are in recipes.test.ts): a matrix of shards covering 1..SHARDS, each job's script run with
 * bash against a stub wafctl, and the summary job's merge script run on shard reports.
 */
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const RECIPE = join(import.meta.dirname, '..', '..', 'examples', 'ci', 'github-actions', 'fleet-drift.yml');
const run = promisify(execFile);

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  env?: Record<string, string>;
  with?: Record<string, string | number | boolean>;
}
interface Workflow {
  env: { SHARDS: number };
  jobs: {
    drift: { strategy: { 'fail-fast': boolean; matrix: { shard: number[] } }; steps: Step[] };
    summary: { needs: string; if: string; steps: Step[] };
  };
}

const workflow = async () => parse(await readFile(RECIPE, 'utf8')) as Workflow;
const step = (steps: Step[], name: string) => steps.find((s) => s.name?.startsWith(name)) as Step;

/** Runs `script` with bash in a fresh directory (its cwd), with `env` and a stub wafctl exiting `code`. */
async function bash(script: string, env: Record<string, string>, code = 0) {
  const dir = await mkdtemp(join(tmpdir(), 'wafctl-fleet-'));
  await mkdir(join(dir, 'bin'));
  const stub = `#!/bin/sh\necho "$@" > '${join(dir, 'args')}'\necho "$WAFCTL_SHARD" > '${join(dir, 'shard')}'\nexit ${code}\n`;
  await writeFile(join(dir, 'bin', 'wafctl'), stub);
  await chmod(join(dir, 'bin', 'wafctl'), 0o755);
  const exit = await run('bash', ['-e', '-c', script], {
    cwd: dir,
    env: { PATH: `${join(dir, 'bin')}:${process.env.PATH}`, ...env },
  }).then(
    () => 0,
    (error: { code: number }) => error.code,
  );
  return { dir, exit };
}

describe('the fleet drift workflow', () => {
  it('one job per shard, 1..SHARDS, none cancelling the others; the summary runs whatever they end with', async () => {
    const { env, jobs } = await workflow();
    expect(jobs.drift.strategy.matrix.shard).toEqual(Array.from({ length: env.SHARDS }, (_, i) => i + 1));
    expect(jobs.drift.strategy['fail-fast']).toBe(false);
    const drift = step(jobs.drift.steps, 'Drift of shard');
    expect(drift.env?.WAFCTL_SHARD).toBe(`\${{ matrix.shard }}/\${{ env.SHARDS }}`);
    const upload = jobs.drift.steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'));
    expect(upload?.with?.name).toBe(`wafctl-drift-\${{ matrix.shard }}`);
    expect(jobs.summary.needs).toBe('drift');
    expect(jobs.summary.if).toBe('always()');
    const download = jobs.summary.steps.find((s) => s.uses?.startsWith('actions/download-artifact@'));
    expect(download?.with).toMatchObject({ pattern: 'wafctl-drift-*', 'merge-multiple': true });
  });

  it('a shard runs drift of every environment in its part, its report named after it; drift (2) passes, 3 and 1 fail', async () => {
    const { jobs } = await workflow();
    const script = step(jobs.drift.steps, 'Drift of shard').run ?? '';
    const env = { WAFCTL_SHARD: '5/16', SHARD: '5' };
    const drifted = await bash(script, env, 2);
    expect(drifted.exit).toBe(0);
    const args = await readFile(join(drifted.dir, 'args'), 'utf8');
    expect(args).toMatch(/^drift config --env all --concurrency \d+ /);
    expect(args).toContain('--format json --report reports/drift-5.json');
    expect((await readFile(join(drifted.dir, 'shard'), 'utf8')).trim()).toBe('5/16');
    expect((await bash(script, env, 3)).exit).toBe(3);
    expect((await bash(script, env, 1)).exit).toBe(1);
  });

  it('the summary merges the shards into drift.json and lists the drifted, the failed and the missing shards', async () => {
    const { jobs } = await workflow();
    const script = step(jobs.summary.steps, 'Merge the shards').run ?? '';
    /** A shard's `drift --env all --format json`: each environment's report (or null) and summary row. */
    const shard = (k: number, rows: Record<string, [result: string, count: number | null, error?: string]>) =>
      writeFile(
        join(dir, 'reports', `drift-${k}.json`),
        JSON.stringify({
          format_version: 1,
          environments: Object.fromEntries(
            Object.entries(rows).map(([name, [, count]]) => [
              name,
              count === null ? null : { drift: count > 0 },
            ]),
          ),
          summary: Object.fromEntries(
            Object.entries(rows).map(([name, [result, count, error]]) => [
              name,
              { result, count, impact: count ? 'weakens_protection' : null, error: error ?? null },
            ]),
          ),
        }),
      );
    const dir = await mkdtemp(join(tmpdir(), 'wafctl-fleet-summary-'));
    await mkdir(join(dir, 'reports'));
    await shard(1, { 'us-002': ['no drift', 0], 'eu-001': ['drift: 2 objects', 2] });
    await shard(2, { 'ap-003': ['failed', null, 'request to https://waf-ap-003 failed | timeout'] });
    await shard(3, {});
    const summary = join(dir, 'summary.md');
    await run('bash', ['-e', '-c', script], {
      cwd: dir,
      env: { PATH: process.env.PATH, SHARDS: '4', GITHUB_STEP_SUMMARY: summary },
    });
    const merged = JSON.parse(await readFile(join(dir, 'drift.json'), 'utf8'));
    expect(merged.format_version).toBe(1);
    expect(Object.keys(merged.environments)).toEqual(['ap-003', 'eu-001', 'us-002']);
    expect(merged.environments['ap-003']).toBeNull();
    expect(Object.keys(merged.summary)).toEqual(['ap-003', 'eu-001', 'us-002']);
    expect(merged.summary['eu-001']).toEqual({
      result: 'drift: 2 objects',
      count: 2,
      impact: 'weakens_protection',
      error: null,
    });
    expect((await readFile(summary, 'utf8')).split('\n')).toEqual([
      '## wafctl fleet drift: 3 environments, 2 drifted or failed',
      '',
      'Shards without a report (failed before writing one): 4.',
      '',
      '| Environment | Result | Worst impact | Error |',
      '|---|---|---|---|',
      '| ap-003 | failed |  | request to https://waf-ap-003 failed \\| timeout |',
      '| eu-001 | drift: 2 objects | weakens_protection |  |',
      '',
    ]);
  });
});
