/**
 * The GitHub Action end to end: dist/action.mjs run as the runner runs it, against the embedded
 * emulator with the bundled CLI (dist/wafctl.mjs), or against a stub wafctl (WAFCTL_ACTION_CLI) that
 * records the arguments of each run. `npm test` builds dist/ first.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { git, pullRequestRepo } from '../helpers/git.js';
import { type RecordedRun, ROOT, runAction, stubCli } from './action-helpers.js';

/** `branch` of `origin`, one commit deep and alone, as actions/checkout leaves a job's work tree. */
async function checkout(origin: string, branch: string): Promise<string> {
  const work = await mkdtemp(join(tmpdir(), 'wafctl-checkout-'));
  await git(
    work,
    'clone',
    '--quiet',
    '--depth=1',
    '--single-branch',
    '--branch',
    branch,
    `file://${origin}`,
    '.',
  );
  return work;
}

describe('the action, with the bundled CLI against the embedded emulator', () => {
  const action = (inputs: Record<string, string>) =>
    runAction({ url: 'embedded', paths: 'examples/config', ...inputs });

  it('plan: exit 0 with changes, outputs exit-code 2, has-changes and the markdown plan', async () => {
    const result = await action({ command: 'plan' });
    expect(result.code, result.stderr).toBe(0);
    expect(result.outputs).toMatchObject({
      'exit-code': '2',
      'has-changes': 'true',
      'comment-marker': '<!-- wafctl-plan -->',
    });
    expect(result.outputs.markdown).toBe(join(result.dir, 'wafctl-plan.md'));
    expect(await readFile(result.outputs.markdown ?? '', 'utf8')).toMatch(/^<!-- wafctl-plan -->\n/);
    expect(result.summary).toContain('#### Security impact');
  });

  it('plan with fail-on: the step fails with exit 3, and has-changes is still true', async () => {
    const result = await action({ command: 'plan', 'fail-on': 'broadens_access' });
    expect(result.code).toBe(3);
    expect(result.outputs).toMatchObject({ 'exit-code': '3', 'has-changes': 'true' });
  });

  it('plan without changes, in a working-directory: exit 0, has-changes false', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wafctl-empty-'));
    await mkdir(join(dir, 'infra'));
    await writeFile(join(dir, 'infra', 'empty.yaml'), 'groups: []\n');
    const result = await runAction(
      { command: 'plan', url: 'embedded', paths: 'empty.yaml', 'working-directory': 'infra' },
      { cwd: dir },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.outputs).toMatchObject({ 'exit-code': '0', 'has-changes': 'false' });
  });

  it('on a pull request: fetches the base branch and pins trust to it (--trusted-ref origin/main)', async () => {
    // origin's main holds the configuration; the checkout is the pull request's branch alone, one
    // commit deep (as actions/checkout leaves it), and its work tree redefines a firewall action.
    const origin = await pullRequestRepo({ 'config/groups.yaml': 'groups:\n  - name: soc\n' }, {});
    await git(origin, 'commit', '--quiet', '--allow-empty', '--message', 'pr');
    const work = await checkout(origin, 'pr');
    await writeFile(join(work, 'config', 'settings.yaml'), 'settings:\n  firewall_actions: {allowing: []}\n');
    const result = await runAction(
      { command: 'plan', url: 'embedded', paths: 'config' },
      { cwd: work, env: { GITHUB_EVENT_NAME: 'pull_request', GITHUB_BASE_REF: 'main' } },
    );
    expect(result.code, result.stderr).toBe(0);
    const markdown = await readFile(result.outputs.markdown ?? '', 'utf8');
    expect(markdown).toContain('#### Trust');
    expect(markdown).toContain('read from the trusted ref origin/main');
    expect(markdown).toContain('- **changes_trust** `settings.firewall_actions`: allowing:');
    expect((await git(work, 'rev-parse', 'origin/main')).trim()).toBe(
      (await git(origin, 'rev-parse', 'main')).trim(),
    );
  });

  it('on a pull request whose base branch cannot be fetched: an error annotation, nothing run', async () => {
    const origin = await pullRequestRepo({ 'config/groups.yaml': 'groups:\n  - name: soc\n' }, {});
    const work = await checkout(origin, 'main');
    const result = await runAction(
      { command: 'plan', url: 'embedded', paths: 'config' },
      { cwd: work, env: { GITHUB_EVENT_NAME: 'pull_request', GITHUB_BASE_REF: 'gone' } },
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      "::error::wafctl action: cannot fetch the pull request's base branch gone from origin, which wafctl reads connections and policy from (--trusted-ref origin/gone)",
    );
    expect(result.outputs).toMatchObject({ 'exit-code': '1', 'has-changes': 'false' });
  });

  /** How many times a text plan is in the log: each ends with exactly one `Plan: ...` line. */
  const plansIn = (log: string) => log.split('\n').filter((line) => line.startsWith('Plan: ')).length;

  it('apply: prints the plan once, applies it, has-changes true, and the log in the job summary', async () => {
    const result = await action({ command: 'apply' });
    expect(result.code, result.stderr).toBe(0);
    expect(result.outputs).toMatchObject({ 'exit-code': '0', 'has-changes': 'true', markdown: '' });
    expect(plansIn(result.stdout), result.stdout).toBe(1);
    expect(result.stdout).toContain('Apply complete! Resources: 13 added');
    expect(result.summary).toContain('### wafctl apply: succeeded');
    expect(result.summary).toContain('Apply complete! Resources: 13 added');
  });

  it('apply refused by fail-on: prints the plan once, then the refusal; has-changes true', async () => {
    const result = await action({ command: 'apply', 'fail-on': 'broadens_access' });
    expect(result.code).toBe(3);
    expect(result.outputs).toMatchObject({ 'exit-code': '3', 'has-changes': 'true' });
    expect(plansIn(result.stdout), result.stdout).toBe(1);
    expect(result.stdout).not.toContain('Apply complete');
    expect(result.stderr).toContain('--fail-on');
    expect(result.summary).toContain('### wafctl apply: refused by fail-on (exit 3)');
  });

  it('apply with a plan-file: prints the plan once, has-changes from the saved plan', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wafctl-saved-'));
    const saved = join(dir, 'plan.json');
    await promisify(execFile)(
      process.execPath,
      [join(ROOT, 'dist', 'wafctl.mjs'), 'plan', 'examples/config', '--url', 'embedded', '--out', saved],
      { cwd: ROOT, env: { PATH: process.env.PATH, NO_COLOR: '1' } },
    );
    const result = await action({ command: 'apply', 'plan-file': saved });
    expect(result.code, result.stderr).toBe(0);
    expect(result.outputs).toMatchObject({ 'exit-code': '0', 'has-changes': 'true' });
    expect(plansIn(result.stdout), result.stdout).toBe(1);
  });

  it('an unknown command fails with a GitHub error annotation', async () => {
    const result = await action({ command: 'destroy' });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      "::error::wafctl action: command must be plan, apply, drift or pull, got 'destroy'",
    );
    expect(result.outputs).toMatchObject({
      'exit-code': '1',
      'has-changes': 'false',
      markdown: '',
      'comment-marker': '',
    });
  });
});

describe('the action, against a stub wafctl', () => {
  async function action(inputs: Record<string, string>, exit?: number) {
    const stub = await stubCli(exit);
    const result = await runAction(
      { paths: 'config', ...inputs },
      { cwd: stub.dir, dir: stub.dir, env: { WAFCTL_ACTION_CLI: stub.cli } },
    );
    return { ...result, runs: await stub.runs() };
  }

  /** The arguments of the one run of wafctl. */
  function argsOfOnlyRun(runs: RecordedRun[]): string[] {
    expect(runs).toHaveLength(1);
    return runs[0]?.args ?? [];
  }

  it('environment: staging passes --env staging, and the markdown starts with a marker of its own', async () => {
    const result = await action({ command: 'plan', environment: 'staging' });
    expect(result.code, result.stderr).toBe(0);
    const args = argsOfOnlyRun(result.runs);
    expect(args.slice(0, 2)).toEqual(['plan', 'config']);
    expect(args.join(' ')).toContain('--env staging');
    expect(args.join(' ')).toContain(`--max-chars ${65_536 - '<!-- wafctl-plan:staging -->'.length - 1}`);
    expect(result.outputs).toMatchObject({
      'exit-code': '2',
      'has-changes': 'true',
      'comment-marker': '<!-- wafctl-plan:staging -->',
    });
    expect(await readFile(result.outputs.markdown ?? '', 'utf8')).toBe(
      '<!-- wafctl-plan:staging -->\n<!-- wafctl-plan -->\nplan\n',
    );
  });

  it("no environment: no --env, wafctl's own marker and markdown unchanged", async () => {
    const result = await action({ command: 'plan', environment: '' });
    expect(argsOfOnlyRun(result.runs)).toEqual([
      'plan',
      'config',
      '--detailed-exitcode',
      '--format',
      'markdown',
    ]);
    expect(result.outputs['comment-marker']).toBe('<!-- wafctl-plan -->');
    expect(await readFile(result.outputs.markdown ?? '', 'utf8')).toBe('<!-- wafctl-plan -->\nplan\n');
  });

  it('drift of all: --env all, one combined report in the job summary', async () => {
    const result = await action({ command: 'drift', environment: 'all' });
    expect(result.code, result.stderr).toBe(0);
    const args = argsOfOnlyRun(result.runs);
    expect(args).toEqual([
      'drift',
      'config',
      '--env',
      'all',
      '--format',
      'markdown',
      '--report',
      join(result.dir, 'wafctl-drift.md'),
    ]);
    expect(result.outputs['comment-marker']).toBe('<!-- wafctl-drift -->');
    expect(result.summary).toBe('<!-- wafctl-drift -->\ndrift\n');
  });

  it('apply with an environment: plan --env, then apply --plan --env in the configuration root', async () => {
    const result = await action({ command: 'apply', environment: 'production' });
    expect(result.code, result.stderr).toBe(0);
    const saved = join(result.dir, 'wafctl-plan.json');
    expect(result.runs).toEqual([
      { cwd: result.dir, args: ['plan', 'config', '--env', 'production', '--out', saved] },
      { cwd: result.dir, args: ['apply', '--plan', saved, 'config', '--env', 'production'] },
    ]);
    expect(result.outputs).toMatchObject({ 'has-changes': 'true', 'comment-marker': '' });
  });

  it('pull with one environment passes --env NAME, and its log goes to the job summary', async () => {
    const result = await action({ command: 'pull', environment: 'staging' });
    expect(result.code).toBe(0);
    expect(result.runs.map((run) => run.args)).toEqual([['pull', 'config', '--env', 'staging', '--adopt']]);
    expect(result.summary).toContain('### wafctl pull (`staging`): succeeded');
    expect(result.summary).toContain('pull done');
  });

  it.each([
    ['plan', { environment: 'staging;rm -rf /' }, 'environment must be environment names of wafctl.yaml'],
    [
      'drift',
      { environment: 'staging\n::add-mask::x' },
      'environment must be environment names of wafctl.yaml',
    ],
    ['apply', { environment: 'all' }, 'apply takes one environment per run'],
    ['plan', { environment: 'staging', url: 'https://x' }, 'url cannot be combined with environment'],
    ['plan', { version: 'latest' }, 'version must be a wafctl version'],
    [
      'plan',
      { 'working-directory': 'nowhere' },
      "working-directory must be a directory of the workspace, got 'nowhere'",
    ],
  ] as [string, Record<string, string>, string][])(
    '%s with %j fails with an annotation and runs nothing',
    async (command, inputs, message) => {
      const result = await action({ command, ...inputs });
      expect(result.code).toBe(1);
      expect(result.runs).toEqual([]);
      expect(result.stdout).toContain(`::error::wafctl action: ${message}`);
      // One line: the value it quotes cannot start a workflow command of its own.
      expect(result.stdout.trim().split('\n')).toHaveLength(1);
      expect(result.outputs).toMatchObject({ 'exit-code': '1', 'has-changes': 'false', markdown: '' });
    },
  );

  it('version: runs npx --yes wafctl@VERSION instead of the bundled CLI', async () => {
    // A stand-in `npx` on PATH records its arguments: nothing is fetched.
    const stub = await stubCli();
    await mkdir(join(stub.dir, 'bin'));
    await writeFile(
      join(stub.dir, 'bin', 'npx'),
      `#!/bin/sh\necho "$1 $2" > '${join(stub.dir, 'npx-args')}'\nshift 2\nexec '${process.execPath}' '${stub.cli}' "$@"\n`,
      { mode: 0o755 },
    );
    const result = await runAction(
      { command: 'pull', paths: 'config', version: '1.4.2' },
      { cwd: stub.dir, dir: stub.dir, env: { PATH: `${join(stub.dir, 'bin')}:${process.env.PATH}` } },
    );
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(await readFile(join(stub.dir, 'npx-args'), 'utf8')).toBe('--yes wafctl@1.4.2\n');
    expect((await stub.runs()).map((run) => run.args)).toEqual([['pull', 'config', '--adopt']]);
  });

  it('version without npx on PATH: an error annotation, exit 1', async () => {
    const stub = await stubCli();
    const result = await runAction(
      { command: 'plan', paths: 'config', version: '1.4.2' },
      { cwd: stub.dir, dir: stub.dir, env: { PATH: join(stub.dir, 'no-bin') } },
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('::error::wafctl action: could not run npx: spawn npx ENOENT');
    expect(result.outputs).toMatchObject({ 'exit-code': '1', 'has-changes': 'false' });
  });
});
