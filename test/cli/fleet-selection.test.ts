/**
 * Selecting a fleet on the command line: `--env` globs, `--exclude-env`, `--shard K/N` and
 * WAFCTL_SHARD, on a project declared with `environment_defaults:`; offline (validate), and the
 * refusals made before any request.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { writeFiles } from '../helpers/firewall.js';

let dir = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wafctl-fleet-selection-'));
  await writeFiles(dir, {
    'wafctl.yaml': `environment_defaults:
  url_env: WAF_URL_{ENV}
  token_env: WAF_TOKEN_{ENV}
  paths: [base]
environments:
  staging: {}
  prod-eu-1: {}
  prod-eu-2: {}
  prod-eu-3: {}
  prod-us-1: {}
  prod-us-2: {}
`,
    'base/groups.yaml': 'groups:\n  - name: soc\n',
  });
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The environments a `validate --format json` run reported on, in its order. */
async function validated(args: string[], env: Record<string, string> = {}) {
  const result = await runCli(['validate', '--format', 'json', ...args], { cwd: dir, env });
  const names = result.code === 0 ? Object.keys(JSON.parse(result.stdout).environments) : [];
  return { ...result, names };
}

describe('validate over a fleet', () => {
  it('--env GLOB --exclude-env --shard K/N: the K-th part of what is left, in declared order', async () => {
    const flags = ['--env', 'prod-*', '--exclude-env', 'prod-eu-2'];
    // Shards of 2 (test/ops/selection-shard.test.ts): prod-eu-1 and prod-us-1 in 2, prod-eu-3 and prod-us-2 in 1.
    expect((await validated([...flags, '--shard', '1/2'])).names).toEqual(['prod-eu-3', 'prod-us-2']);
    expect((await validated([...flags, '--shard', '2/2'])).names).toEqual(['prod-eu-1', 'prod-us-1']);
    expect((await validated(flags)).names).toEqual(['prod-eu-1', 'prod-eu-3', 'prod-us-1', 'prod-us-2']);
  });

  it('reads WAFCTL_SHARD, and --shard wins over it', async () => {
    const env = { WAFCTL_SHARD: '2/2' };
    expect((await validated(['--env', 'prod-eu-?'], env)).names).toEqual(['prod-eu-1']);
    expect((await validated(['--env', 'prod-eu-?', '--shard', '1/2'], env)).names).toEqual([
      'prod-eu-2',
      'prod-eu-3',
    ]);
  });

  it('an empty shard says so on stderr and exits 0', async () => {
    const result = await validated(['--env', 'prod-eu-2', '--shard', '2/2']);
    expect(result).toMatchObject({
      code: 0,
      names: [],
      stderr: 'Note: shard 2/2 holds none of the 1 selected environment: nothing to do.\n',
    });
  });

  it('refuses a bad shard, a glob that matches nothing and an empty selection, naming what is expected', async () => {
    const bad = await validated([], { WAFCTL_SHARD: '3/2' });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('WAFCTL_SHARD must be K/N, the K-th of N parts, with integers 1 ≤ K ≤ N');
    const flag = await validated(['--shard', '0/2']);
    expect(flag.code).not.toBe(0);
    expect(flag.stderr).toContain('--shard must be K/N');
    const none = await validated(['--env', 'qa-*']);
    expect(none.stderr).toContain(
      '--env "qa-*" matches no environment: wafctl.yaml declares staging, prod-eu-1, prod-eu-2, prod-eu-3, prod-us-1, prod-us-2',
    );
    const empty = await validated(['--env', 'prod-eu-*', '--exclude-env', 'prod-*']);
    expect(empty.stderr).toContain('--env prod-eu-* --exclude-env prod-* leaves no environment');
  });

  it('--concurrency takes a positive integer', async () => {
    const result = await validated(['--concurrency', '0']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('--concurrency must be a positive integer.');
  });
});

describe('a command that takes one environment', () => {
  it('ignores WAFCTL_SHARD, which a fleet job sets: its --env NAME is read as given', async () => {
    const result = await runCli(['get', 'groups', '--env', 'staging'], {
      cwd: dir,
      env: { WAFCTL_SHARD: '1/2' },
    });
    expect(result.code).toBe(1);
    // staging is in shard 2 of 2: had the shard been taken, nothing would be selected.
    expect(result.stderr).toContain('environment staging: WAF_URL_STAGING is not set');
  });

  it('refuses a glob, even one that matches a single environment, before any request', async () => {
    const result = await runCli(['get', 'groups', '--env', 'stag*'], { cwd: dir, env: {} });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'get takes one --env NAME here: all, a glob, --exclude-env and --shard select a fleet',
    );
  });
});
