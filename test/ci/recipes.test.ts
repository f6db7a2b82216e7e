/**
 * The CI recipes and the GitHub Action: every file parses and is valid against the vendored GitHub
 * workflow / action and GitLab CI JSON Schemas (test/fixtures/ci-schemas), and the action's script
 * runs wafctl and reports its outputs.
 */
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Ajv, type ValidateFunction } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const ROOT = join(import.meta.dirname, '..', '..');
const SCHEMAS = join(ROOT, 'test', 'fixtures', 'ci-schemas');
const RECIPES = join(ROOT, 'examples', 'ci');

async function validator(file: string): Promise<ValidateFunction> {
  const schema = JSON.parse(await readFile(join(SCHEMAS, file), 'utf8')) as Record<string, unknown>;
  // The schemas carry editor-only keywords (markdownDescription, ...): not strict about those.
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
  return ajv.compile({ ...schema, $schema: undefined });
}

async function check(schemaFile: string, yamlText: string): Promise<string[]> {
  const validate = await validator(schemaFile);
  const ok = validate(parse(yamlText));
  return ok ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`);
}

const text = (path: string) => readFile(path, 'utf8');

describe('CI recipes', () => {
  it('every GitHub Actions recipe is a valid workflow', async () => {
    const dir = join(RECIPES, 'github-actions');
    const files = (await readdir(dir)).sort();
    expect(files).toEqual(['apply.yml', 'drift.yml', 'plan.yml']);
    for (const file of files)
      expect(await check('github-workflow.json', await text(join(dir, file))), file).toEqual([]);
  });

  it('the GitLab recipe is a valid .gitlab-ci.yml', async () => {
    expect(await check('gitlab-ci.json', await text(join(RECIPES, 'gitlab-ci.yml')))).toEqual([]);
  });

  it('action.yml is a valid composite action', async () => {
    const action = await text(join(ROOT, 'action.yml'));
    expect(await check('github-action.json', action)).toEqual([]);
    expect(parse(action).runs.using).toBe('composite');
  });

  it('the validators are real: broken files are refused', async () => {
    expect(
      await check('github-workflow.json', 'name: x\non: push\njobs:\n  a:\n    runs_on: ubuntu-latest\n'),
    ).not.toEqual([]);
    expect(await check('gitlab-ci.json', 'job:\n  script: 1\n  resource_group: [a]\n')).not.toEqual([]);
    expect(await check('github-action.json', 'name: x\nruns:\n  using: composite\n')).not.toEqual([]);
  });

  it('the recipes keep the contract: sticky markers, a concurrency group for apply, a nightly drift', async () => {
    const plan = parse(await text(join(RECIPES, 'github-actions', 'plan.yml')));
    expect(JSON.stringify(plan)).toContain('<!-- wafctl-plan -->');
    expect(Object.keys(plan.on)).toEqual(['pull_request']);
    const apply = parse(await text(join(RECIPES, 'github-actions', 'apply.yml')));
    expect(apply.concurrency).toEqual({ group: 'wafctl-apply', 'cancel-in-progress': false });
    const drift = parse(await text(join(RECIPES, 'github-actions', 'drift.yml')));
    expect(Object.keys(drift.on).sort()).toEqual(['schedule', 'workflow_dispatch']);
    const gitlab = parse(await text(join(RECIPES, 'gitlab-ci.yml')));
    expect(gitlab['wafctl-apply'].resource_group).toBe('wafctl-production');
    expect(JSON.stringify(gitlab)).toContain('<!-- wafctl-plan -->');
  });
});

describe('the action script', () => {
  const run = promisify(execFile);

  /** Runs scripts/github-action.sh as the runner would, against an embedded emulator. */
  async function action(inputs: Record<string, string>) {
    const dir = await mkdtemp(join(tmpdir(), 'wafctl-action-'));
    const env = {
      HOME: dir, // no ~/.bashrc: bash reads it when its stdin is a socket, as under execFile
      PATH: process.env.PATH,
      GITHUB_ACTION_PATH: ROOT,
      GITHUB_OUTPUT: join(dir, 'output'),
      GITHUB_STEP_SUMMARY: join(dir, 'summary'),
      RUNNER_TEMP: dir,
      WAFCTL_URL: 'embedded',
      WAFCTL_PATHS: 'examples/config',
      NO_COLOR: '1',
      ...inputs,
    };
    const result = await run('bash', [join(ROOT, 'scripts', 'github-action.sh')], { env, cwd: ROOT }).then(
      (r) => ({ code: 0, ...r }),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    const outputs = Object.fromEntries(
      (await readFile(join(dir, 'output'), 'utf8'))
        .trim()
        .split('\n')
        .map((line) => line.split(/=(.*)/s).slice(0, 2)),
    );
    return { ...result, outputs, dir };
  }

  it('plan: exit 0 with changes, outputs exit-code 2, has-changes and the markdown plan', async () => {
    const result = await action({ WAFCTL_COMMAND: 'plan' });
    expect(result.code, result.stderr).toBe(0);
    expect(result.outputs).toMatchObject({ 'exit-code': '2', 'has-changes': 'true' });
    expect(result.outputs.markdown).toBe(join(result.dir, 'wafctl-plan.md'));
    expect(await readFile(result.outputs.markdown, 'utf8')).toMatch(/^<!-- wafctl-plan -->\n/);
    expect(await readFile(join(result.dir, 'summary'), 'utf8')).toContain('#### Security impact');
  });

  it('plan with fail-on: the step fails with exit 3, and has-changes is still true', async () => {
    const result = await action({ WAFCTL_COMMAND: 'plan', WAFCTL_FAIL_ON: 'broadens_access' });
    expect(result.code).toBe(3);
    // The refused plan has changes (the riskiest ones): `if: has-changes == 'true'` must not skip it.
    expect(result.outputs).toMatchObject({ 'exit-code': '3', 'has-changes': 'true' });
  });

  it('plan without changes: exit 0, has-changes false', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wafctl-empty-'));
    await writeFile(join(dir, 'empty.yaml'), 'groups: []\n');
    const result = await action({ WAFCTL_COMMAND: 'plan', WAFCTL_PATHS: dir });
    expect(result.code, result.stderr).toBe(0);
    expect(result.outputs).toMatchObject({ 'exit-code': '0', 'has-changes': 'false' });
  });

  it('drift refused by fail-on: exit 3, and has-changes is still true', async () => {
    const result = await action({ WAFCTL_COMMAND: 'drift', WAFCTL_FAIL_ON: 'weakens_protection' });
    expect(result.code).toBe(3);
    expect(result.outputs).toMatchObject({ 'exit-code': '3', 'has-changes': 'true' });
  });

  /** How many times a text plan is in the log: each ends with exactly one `Plan: ...` line. */
  const plansIn = (log: string) => log.split('\n').filter((line) => line.startsWith('Plan: ')).length;

  it('apply: prints the plan once, applies it, has-changes true', async () => {
    const result = await action({ WAFCTL_COMMAND: 'apply' });
    expect(result.code, result.stderr).toBe(0);
    expect(result.outputs).toMatchObject({ 'exit-code': '0', 'has-changes': 'true', markdown: '' });
    expect(plansIn(result.stdout), result.stdout).toBe(1);
    expect(result.stdout).toContain('Apply complete! Resources: 13 added');
  });

  it('apply refused by fail-on: prints the plan once, then the refusal; has-changes true', async () => {
    const result = await action({ WAFCTL_COMMAND: 'apply', WAFCTL_FAIL_ON: 'broadens_access' });
    expect(result.code).toBe(3);
    expect(result.outputs).toMatchObject({ 'exit-code': '3', 'has-changes': 'true' });
    expect(plansIn(result.stdout), result.stdout).toBe(1);
    expect(result.stdout).not.toContain('Apply complete');
    expect(result.stderr).toContain('--fail-on');
  });

  it('apply with a plan-file: prints the plan once, has-changes from the saved plan', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wafctl-saved-'));
    const saved = join(dir, 'plan.json');
    await run(
      'node',
      [join(ROOT, 'dist', 'cli', 'main.js'), 'plan', 'examples/config', '--url', 'embedded', '--out', saved],
      { cwd: ROOT, env: { PATH: process.env.PATH, NO_COLOR: '1' } },
    );
    const result = await action({ WAFCTL_COMMAND: 'apply', WAFCTL_PLAN_FILE: saved });
    expect(result.code, result.stderr).toBe(0);
    expect(result.outputs).toMatchObject({ 'exit-code': '0', 'has-changes': 'true' });
    expect(plansIn(result.stdout), result.stdout).toBe(1);
  });

  it('apply without changes: has-changes false', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wafctl-empty-'));
    await writeFile(join(dir, 'empty.yaml'), 'groups: []\n');
    const result = await action({ WAFCTL_COMMAND: 'apply', WAFCTL_PATHS: dir });
    expect(result.code, result.stderr).toBe(0);
    expect(result.outputs).toMatchObject({ 'exit-code': '0', 'has-changes': 'false' });
  });

  it('an unknown command fails with a GitHub error annotation', async () => {
    const result = await action({ WAFCTL_COMMAND: 'destroy' });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      "::error::wafctl action: command must be plan, apply, drift or pull, got 'destroy'",
    );
  });
});

/**
 * The drift job of both recipes, run for each exit code of wafctl drift against a stub wafctl: the
 * GitHub action's step (scripts/github-action.sh, as drift.yml runs it) and the GitLab job's script
 * (examples/ci/gitlab-ci.yml, parsed with yaml, lines run in one bash as the runner does, `set -e`
 * first). Both must pass or fail alike, and open the drift issue alike.
 */
describe('drift: the GitHub and GitLab recipes treat exit codes the same way', () => {
  const run = promisify(execFile);

  /** A directory with a stub `wafctl` CLI (as dist/cli/main.js and as `wafctl` on PATH) exiting `code`. */
  async function stub(code: number) {
    const dir = await mkdtemp(join(tmpdir(), 'wafctl-stub-'));
    await mkdir(join(dir, 'dist', 'cli'), { recursive: true });
    await mkdir(join(dir, 'bin'));
    // Writes the --report file when there is something to report, as wafctl drift does.
    const main = `const i = process.argv.indexOf('--report');
if (i > 0 && ${code} !== 1) require('node:fs').writeFileSync(process.argv[i + 1], 'drift report\\n');
process.exit(${code});
`;
    await writeFile(join(dir, 'dist', 'cli', 'main.js'), main);
    // GitLab's `wafctl` on PATH runs the same stub (the real `node`: the stub below shadows it).
    await writeFile(
      join(dir, 'bin', 'wafctl'),
      `#!/bin/sh\nexec '${process.execPath}' '${join(dir, 'dist', 'cli', 'main.js')}' "$@"\n`,
    );
    // The GitLab job calls `node -e "$DRIFT_ISSUE"` to open the issue: recorded, not sent.
    await writeFile(join(dir, 'bin', 'node'), `#!/bin/sh\necho issue >> '${join(dir, 'issue')}'\n`);
    await chmod(join(dir, 'bin', 'wafctl'), 0o755);
    await chmod(join(dir, 'bin', 'node'), 0o755);
    return dir;
  }

  const exitOf = (promise: Promise<unknown>) =>
    promise.then(
      () => 0,
      (error: { code: number }) => error.code,
    );
  const exists = (path: string) =>
    readFile(path).then(
      () => true,
      () => false,
    );

  async function github(code: number) {
    const dir = await stub(code);
    const env = {
      HOME: dir,
      PATH: process.env.PATH,
      GITHUB_ACTION_PATH: dir,
      GITHUB_OUTPUT: join(dir, 'output'),
      RUNNER_TEMP: dir,
      WAFCTL_COMMAND: 'drift',
      WAFCTL_PATHS: 'config',
      WAFCTL_FAIL_ON: 'weakens_protection,reduces_audit',
    };
    const exit = await exitOf(run('bash', [join(ROOT, 'scripts', 'github-action.sh')], { env, cwd: dir }));
    const outputs = await readFile(join(dir, 'output'), 'utf8');
    // drift.yml opens the issue (and the pull request) when has-changes is true.
    const workflow = parse(await text(join(RECIPES, 'github-actions', 'drift.yml')));
    const issueStep = workflow.jobs.drift.steps.find(
      (s: { name?: string }) => s.name === 'Open or update the drift issue',
    );
    expect(issueStep.if).toBe("always() && steps.wafctl.outputs.has-changes == 'true'");
    return { exit, issue: outputs.includes('has-changes=true\n') };
  }

  async function gitlab(code: number) {
    const dir = await stub(code);
    const job = parse(await text(join(RECIPES, 'gitlab-ci.yml')))['wafctl-drift'];
    const script = (job.script as string[]).join('\n');
    const env = {
      HOME: dir, // no ~/.bashrc: bash reads it when its stdin is a socket, as under execFile
      PATH: `${join(dir, 'bin')}:${process.env.PATH}`,
      CONFIG: 'config',
      DRIFT_ISSUE: 'ignored',
    };
    const exit = await exitOf(run('bash', ['-e', '-o', 'pipefail', '-c', script], { env, cwd: dir }));
    return { exit, issue: await exists(join(dir, 'issue')) };
  }

  it.each([
    [0, { exit: 0, issue: false }],
    [1, { exit: 1, issue: false }],
    [2, { exit: 0, issue: true }], // drift found: a result, reported by the issue, not a failure
    [3, { exit: 3, issue: true }], // a hand change weakened the firewall: the alarm
  ])('wafctl drift exit %i: both recipes give %o', async (code, expected) => {
    expect(await github(code)).toEqual(expected);
    expect(await gitlab(code)).toEqual(expected);
  });
});

describe('the GitLab apply job', () => {
  const run = promisify(execFile);

  it('prints the plan once, and the refused plan once with fail-on', async () => {
    const job = parse(await text(join(RECIPES, 'gitlab-ci.yml')))['wafctl-apply'];
    const script = (job.script as string[]).join('\n');
    for (const [failOn, exit] of [
      ['', 0],
      ['broadens_access', 3],
    ] as const) {
      const dir = await mkdtemp(join(tmpdir(), 'wafctl-gitlab-'));
      await mkdir(join(dir, 'bin'));
      await writeFile(
        join(dir, 'bin', 'wafctl'),
        `#!/bin/sh\nexec '${process.execPath}' '${join(ROOT, 'dist', 'cli', 'main.js')}' "$@"\n`,
      );
      await chmod(join(dir, 'bin', 'wafctl'), 0o755);
      const env = {
        HOME: dir, // no ~/.bashrc: bash reads it when its stdin is a socket, as under execFile
        PATH: `${join(dir, 'bin')}:${process.env.PATH}`,
        CONFIG: join(ROOT, 'examples', 'config'),
        WAF_URL: 'embedded',
        NO_COLOR: '1',
        WAFCTL_FAIL_ON: failOn,
      };
      const result = await run('bash', ['-e', '-o', 'pipefail', '-c', script], { env, cwd: dir }).then(
        (r) => ({ code: 0, ...r }),
        (error: { code: number; stdout: string; stderr: string }) => error,
      );
      expect(result.code, result.stderr).toBe(exit);
      const plans = result.stdout.split('\n').filter((line) => line.startsWith('Plan: '));
      expect(plans, result.stdout).toHaveLength(1);
    }
  });
});
