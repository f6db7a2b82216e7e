/**
 * The CI recipes and the GitHub Action: every file parses and is valid against the vendored GitHub
 * workflow / action and GitLab CI JSON Schemas (test/fixtures/ci-schemas), and the action's script
 * runs wafctl and reports its outputs.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
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

  it('plan with fail-on: the step fails with exit 3', async () => {
    const result = await action({ WAFCTL_COMMAND: 'plan', WAFCTL_FAIL_ON: 'broadens_access' });
    expect(result.code).toBe(3);
    expect(result.outputs).toMatchObject({ 'exit-code': '3', 'has-changes': 'false' });
  });

  it('an unknown command fails with a GitHub error annotation', async () => {
    const result = await action({ WAFCTL_COMMAND: 'destroy' });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      "::error::wafctl action: command must be plan, apply, drift or pull, got 'destroy'",
    );
  });
});
