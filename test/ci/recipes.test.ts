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
    expect(files).toEqual(['apply.yml', 'drift.yml', 'matrix-environments.yml', 'plan.yml']);
    for (const file of files)
      expect(await check('github-workflow.json', await text(join(dir, file))), file).toEqual([]);
  });

  it('the GitLab recipe is a valid .gitlab-ci.yml', async () => {
    expect(await check('gitlab-ci.json', await text(join(RECIPES, 'gitlab-ci.yml')))).toEqual([]);
  });

  it("the GitLab recipe's commented matrix over environments, uncommented in place of its jobs, is valid too", async () => {
    const lines = (await text(join(RECIPES, 'gitlab-ci.yml'))).split('\n');
    const start = lines.findIndex((line) => line.startsWith('# --- Several environments'));
    const end = lines.findIndex((line) => line.startsWith('# --- end of several environments'));
    expect(start).toBeGreaterThan(0);
    expect(end).toBeGreaterThan(start);
    const block = lines.slice(start + 1, end).filter((line) => /^# (wafctl-| {2})/.test(line));
    const jobs = parse(block.map((line) => line.slice(2)).join('\n'));
    expect(Object.keys(jobs)).toEqual(['wafctl-plan', 'wafctl-apply']);
    expect(jobs['wafctl-apply'].resource_group).toBe('wafctl-$WAFCTL_ENV');
    expect(jobs['wafctl-plan'].parallel.matrix).toEqual([{ WAFCTL_ENV: ['staging', 'production'] }]);
    const recipe = { ...parse(await text(join(RECIPES, 'gitlab-ci.yml'))), ...jobs };
    expect(await check('gitlab-ci.json', JSON.stringify(recipe))).toEqual([]);
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

  it('the matrix recipe: a sticky comment per environment, applies one at a time per firewall, drift of all', async () => {
    const workflow = parse(await text(join(RECIPES, 'github-actions', 'matrix-environments.yml')));
    const { plan, apply, drift } = workflow.jobs;
    const environments = ['staging', 'production'];
    /** A GitHub expression, as the workflow spells it. */
    const gh = (expression: string) => `\${{ ${expression} }}`;
    type Step = { id?: string; uses?: string; with?: Record<string, string>; env?: Record<string, string> };
    const action = (job: { steps: Step[] }) => job.steps.find((s) => s.uses === 'your-org/wafctl@v1') as Step;

    expect(plan.strategy.matrix.environment).toEqual(environments);
    expect(action(plan).with).toMatchObject({ command: 'plan', environment: gh('matrix.environment') });
    // The comment is found by the marker the action gives, one per environment, not a fixed one.
    const comment = plan.steps.at(-1) as Step & { with: { script: string } };
    expect(comment.env?.MARKER).toBe(gh('steps.wafctl.outputs.comment-marker'));
    expect(comment.with.script).toContain('c.body?.startsWith(marker)');
    expect(comment.with.script).not.toContain('<!-- wafctl-plan -->');

    expect(apply.strategy['max-parallel']).toBe(1);
    expect(apply.strategy.matrix.environment).toEqual(environments);
    expect(apply.environment).toBe(gh('matrix.environment'));
    expect(apply.concurrency).toEqual({
      group: `wafctl-apply-${gh('matrix.environment')}`,
      'cancel-in-progress': false,
    });
    expect(action(apply).with).toMatchObject({ command: 'apply', environment: gh('matrix.environment') });

    expect(action(drift).with).toMatchObject({ command: 'drift', environment: 'all' });
    // The secrets mapped to the variables the documented wafctl.yaml names, never a URL input.
    for (const job of [plan, apply, drift]) {
      expect(action(job).with?.url).toBeUndefined();
      expect(Object.keys(action(job).env ?? {}).sort()).toEqual([
        'WAF_TOKEN_PRODUCTION',
        'WAF_TOKEN_STAGING',
        'WAF_URL_PRODUCTION',
        'WAF_URL_STAGING',
      ]);
    }
  });
});

/**
 * Runs scripts/github-action.sh as the runner would: `actionPath` holds the wafctl it runs
 * (dist/cli/main.js), `dir` the runner's files (outputs, summary, temp); returns the exit code,
 * streams and outputs.
 */
async function runActionScript(
  dir: string,
  actionPath: string,
  cwd: string,
  inputs: Record<string, string | undefined>,
) {
  const env = {
    HOME: dir, // no ~/.bashrc: bash reads it when its stdin is a socket, as under execFile
    PATH: process.env.PATH,
    GITHUB_ACTION_PATH: actionPath,
    GITHUB_OUTPUT: join(dir, 'output'),
    GITHUB_STEP_SUMMARY: join(dir, 'summary'),
    RUNNER_TEMP: dir,
    ...inputs,
  };
  const result = await promisify(execFile)('bash', [join(ROOT, 'scripts', 'github-action.sh')], {
    env,
    cwd,
  }).then(
    (r) => ({ code: 0, ...r }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
  const outputs = Object.fromEntries(
    (await readFile(join(dir, 'output'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => line.split(/=(.*)/s).slice(0, 2)),
  );
  return { ...result, outputs };
}

describe('the action script', () => {
  /** Runs scripts/github-action.sh as the runner would, against an embedded emulator. */
  async function action(inputs: Record<string, string>) {
    const dir = await mkdtemp(join(tmpdir(), 'wafctl-action-'));
    const result = await runActionScript(dir, ROOT, ROOT, {
      WAFCTL_URL: 'embedded',
      WAFCTL_PATHS: 'examples/config',
      NO_COLOR: '1',
      ...inputs,
    });
    return { ...result, dir };
  }

  it('plan: exit 0 with changes, outputs exit-code 2, has-changes and the markdown plan', async () => {
    const result = await action({ WAFCTL_COMMAND: 'plan' });
    expect(result.code, result.stderr).toBe(0);
    expect(result.outputs).toMatchObject({
      'exit-code': '2',
      'has-changes': 'true',
      'comment-marker': '<!-- wafctl-plan -->',
    });
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
    await promisify(execFile)(
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
 * The action's `environment` input, against a stub wafctl (dist/cli/main.js in GITHUB_ACTION_PATH)
 * that records each run's arguments and directory: which --env flags each command gets, the
 * comment marker, and the names refused before anything runs.
 */
describe('the action script: environment', () => {
  async function action(inputs: Record<string, string>) {
    const dir = await mkdtemp(join(tmpdir(), 'wafctl-env-'));
    await mkdir(join(dir, 'dist', 'cli'), { recursive: true });
    await mkdir(join(dir, 'config'));
    // Records its run; writes what wafctl would (--out plan, --report, the markdown plan); exit 2 for
    // changes, as plan --detailed-exitcode and drift do.
    const main = `const fs = require('node:fs');
const args = process.argv.slice(2);
fs.appendFileSync(${JSON.stringify(join(dir, 'runs'))}, JSON.stringify({ cwd: process.cwd(), args }) + '\\n');
const value = (flag) => args[args.indexOf(flag) + 1];
if (args.includes('--out')) fs.writeFileSync(value('--out'), JSON.stringify({ summary: { create: 1, update: 0, replace: 0, delete: 0 } }));
if (args.includes('--report')) fs.writeFileSync(value('--report'), '<!-- wafctl-drift -->\\ndrift\\n');
if (args[0] === 'plan' && args.includes('--format')) process.stdout.write('<!-- wafctl-plan -->\\nplan\\n');
process.exit(args[0] === 'apply' || args.includes('--out') ? 0 : 2);
`;
    await writeFile(join(dir, 'dist', 'cli', 'main.js'), main);
    const result = await runActionScript(dir, dir, dir, { WAFCTL_PATHS: 'config', ...inputs });
    const runs = await readFile(join(dir, 'runs'), 'utf8').then(
      (log) =>
        log
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as { cwd: string; args: string[] }),
      (): { cwd: string; args: string[] }[] => [],
    );
    return { ...result, runs, dir };
  }

  type Run = { cwd: string; args: string[] };
  /** The arguments of the one run of wafctl. */
  function argsOfOnlyRun(runs: Run[]): string[] {
    expect(runs).toHaveLength(1);
    return runs[0]?.args ?? [];
  }

  it('environment: staging passes --env staging, and the markdown starts with a marker of its own', async () => {
    const result = await action({ WAFCTL_COMMAND: 'plan', WAFCTL_ENVIRONMENT: 'staging' });
    expect(result.code, result.stderr).toBe(0);
    const args = argsOfOnlyRun(result.runs);
    expect(args.slice(0, 2)).toEqual(['plan', 'config']);
    expect(args.join(' ')).toContain('--env staging');
    // Room for the marker's line within GitHub's limit on a comment.
    expect(args.join(' ')).toContain(`--max-chars ${65_536 - '<!-- wafctl-plan:staging -->'.length - 1}`);
    expect(result.outputs).toMatchObject({
      'exit-code': '2',
      'has-changes': 'true',
      'comment-marker': '<!-- wafctl-plan:staging -->',
    });
    expect(await readFile(result.outputs.markdown, 'utf8')).toBe(
      '<!-- wafctl-plan:staging -->\n<!-- wafctl-plan -->\nplan\n',
    );
  });

  it("no environment: no --env, wafctl's own marker and markdown unchanged", async () => {
    const result = await action({ WAFCTL_COMMAND: 'plan', WAFCTL_ENVIRONMENT: '' });
    expect(result.code, result.stderr).toBe(0);
    const args = argsOfOnlyRun(result.runs);
    expect(args).toEqual(['plan', 'config', '--detailed-exitcode', '--format', 'markdown']);
    expect(result.outputs['comment-marker']).toBe('<!-- wafctl-plan -->');
    expect(await readFile(result.outputs.markdown, 'utf8')).toBe('<!-- wafctl-plan -->\nplan\n');
  });

  it('environment: all passes --env all; several names pass one --env each; one combined comment', async () => {
    const all = await action({ WAFCTL_COMMAND: 'drift', WAFCTL_ENVIRONMENT: 'all' });
    expect(all.code, all.stderr).toBe(0);
    const args = argsOfOnlyRun(all.runs);
    expect(args.filter((arg, i) => arg === '--env' || args[i - 1] === '--env')).toEqual(['--env', 'all']);
    expect(all.outputs['comment-marker']).toBe('<!-- wafctl-drift -->');
    expect(await readFile(all.outputs.markdown, 'utf8')).toBe('<!-- wafctl-drift -->\ndrift\n');

    const several = await action({ WAFCTL_COMMAND: 'plan', WAFCTL_ENVIRONMENT: 'staging, production' });
    expect(several.code, several.stderr).toBe(0);
    const planArgs = argsOfOnlyRun(several.runs);
    expect(planArgs.slice(2)).toEqual([
      '--env',
      'staging',
      '--env',
      'production',
      '--detailed-exitcode',
      '--format',
      'markdown',
    ]);
    expect(several.outputs['comment-marker']).toBe('<!-- wafctl-plan -->');
  });

  it('apply with an environment: plan --env, then apply --plan --env in the configuration root', async () => {
    const result = await action({ WAFCTL_COMMAND: 'apply', WAFCTL_ENVIRONMENT: 'production' });
    expect(result.code, result.stderr).toBe(0);
    const saved = join(result.dir, 'wafctl-plan.json');
    expect(result.runs).toEqual([
      { cwd: result.dir, args: ['plan', 'config', '--env', 'production', '--out', saved] },
      { cwd: join(result.dir, 'config'), args: ['apply', '--plan', saved, '--env', 'production'] },
    ]);
    expect(result.outputs).toMatchObject({ 'has-changes': 'true', 'comment-marker': '' });
  });

  it.each([
    ['plan', 'staging;rm -rf /', 'environment must be environment names of wafctl.yaml'],
    ['plan', '../production', 'environment must be environment names of wafctl.yaml'],
    ['drift', 'staging\n::add-mask::x', 'environment must be environment names of wafctl.yaml'],
    ['apply', 'staging,production', 'apply takes one environment per run'],
    ['apply', 'all', 'apply takes one environment per run'],
    ['pull', 'staging production', 'pull takes one environment per run'],
  ])('%s with environment %j fails with an annotation and runs nothing', async (command, value, message) => {
    const result = await action({ WAFCTL_COMMAND: command, WAFCTL_ENVIRONMENT: value });
    expect(result.code).toBe(1);
    expect(result.runs).toEqual([]);
    expect(result.stdout).toContain(`::error::wafctl action: ${message}`);
    // One line: the value it quotes cannot start a workflow command of its own.
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    expect(result.outputs).toMatchObject({ 'exit-code': '1', 'has-changes': 'false', markdown: '' });
  });

  it('pull with one environment passes --env NAME', async () => {
    const result = await action({ WAFCTL_COMMAND: 'pull', WAFCTL_ENVIRONMENT: 'staging' });
    expect(result.code).toBe(0);
    expect(result.runs.map((run) => run.args)).toEqual([['pull', 'config', '--env', 'staging', '--adopt']]);
  });

  it('url with an environment fails with an annotation: the environment names its URL', async () => {
    const result = await action({
      WAFCTL_COMMAND: 'plan',
      WAFCTL_ENVIRONMENT: 'staging',
      WAFCTL_URL: 'https://x',
    });
    expect(result.code).toBe(1);
    expect(result.runs).toEqual([]);
    expect(result.stdout).toContain('::error::wafctl action: url cannot be combined with environment');
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
