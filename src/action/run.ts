/**
 * The GitHub Action's runner: runs wafctl for one command (the bundled CLI, dist/wafctl.mjs, with
 * the Node.js that runs the action; or `npx --yes wafctl@VERSION` with the `version` input) and
 * reports exit-code, has-changes, the markdown path and its comment-marker as step outputs
 * ($GITHUB_OUTPUT), the markdown or the command's log in the job summary ($GITHUB_STEP_SUMMARY),
 * and with `comment: true` the sticky pull-request comment. Exit 2 (changes, drift) is not a failure
 * of the step.
 *
 * has-changes comes from the plan, never from exit 2 alone: a plan that --fail-on refused (exit 3)
 * has changes too — the riskiest ones — and `if: has-changes == 'true'` must not skip it.
 */
import { appendFileSync, existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { applyArgs, driftArgs, planArgs, pullArgs, savedPlanArgs } from './args.js';
import { pullRequestNumber, upsertComment } from './comment.js';
import { readInputs } from './inputs.js';
import { type Invocation, resolveInvocation } from './invocation.js';
import { exitHasChanges, savedPlanHasChanges, stepExitCode } from './outcome.js';
import { type Ran, runProgram, type Sink } from './program.js';
import { commandSummary, enforcementSummary } from './summary.js';
import { type ActionOutputs, errorAnnotation, formatOutputs, warningAnnotation } from './workflow.js';

export interface ActionContext {
  env: Readonly<Record<string, string | undefined>>;
  /** The directory of dist/action.mjs, where the bundled dist/wafctl.mjs is. */
  actionDir: string;
  /** The directory the runner started the action in: the workspace. */
  cwd: string;
  /** The Node.js running the action, which runs the bundled CLI. */
  execPath: string;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  fetch?: typeof globalThis.fetch;
}

/** Where the step's results go: the runner's temporary directory, outputs and job summary files. */
interface Step {
  context: ActionContext;
  temp: string;
  summaryFile: string | undefined;
  outputFile: string | undefined;
}

/** Runs wafctl with these arguments, in the run's working directory. */
type Exec = (args: string[], stdout: Sink, stderr: Sink) => Promise<Ran>;

/** What the command came to: wafctl's exit code, has-changes, and the markdown file (or empty). */
interface Outcome {
  code: number;
  hasChanges: boolean;
  markdown: string;
}

/** Runs the action; resolves to the step's exit code. */
export async function runAction(context: ActionContext): Promise<number> {
  const { env } = context;
  const step: Step = {
    context,
    temp: env.RUNNER_TEMP || tmpdir(),
    summaryFile: env.GITHUB_STEP_SUMMARY || undefined,
    outputFile: env.GITHUB_OUTPUT || undefined,
  };
  const accepted = await acceptRun(context);
  if ('refusal' in accepted) {
    context.stdout.write(`${errorAnnotation(accepted.refusal)}\n`);
    writeOutputs(step, { exitCode: 1, hasChanges: false, markdown: '', commentMarker: '' });
    return 1;
  }
  const { run } = accepted;
  const outcome = await runCommand(run, wafctlIn(run, accepted.cwd, context), step, accepted.cwd);
  const markdown = outcome.markdown !== '' && existsSync(outcome.markdown) ? outcome.markdown : '';
  writeOutputs(step, {
    exitCode: outcome.code,
    hasChanges: outcome.hasChanges,
    markdown,
    commentMarker: run.marker,
  });
  let code = stepExitCode(outcome.code);
  if (run.comment) {
    const posted = await postComment(run, markdown, context);
    if (!posted && code === 0) code = 1;
  }
  return code;
}

/**
 * The run the inputs ask for and the directory it runs in, once the inputs, the working directory
 * and the trusted ref are accepted; else the refusal to report before anything runs.
 */
async function acceptRun(
  context: ActionContext,
): Promise<{ run: Invocation; cwd: string } | { refusal: string }> {
  const { env } = context;
  const event = { name: env.GITHUB_EVENT_NAME, baseRef: env.GITHUB_BASE_REF };
  const resolution = resolveInvocation(readInputs(env), event);
  if (!resolution.ok) return { refusal: resolution.refusal };
  const run = resolution.invocation;
  const cwd = resolve(context.cwd, run.workingDirectory);
  if (!isDirectory(cwd)) {
    return {
      refusal: `working-directory must be a directory of the workspace, got '${run.workingDirectory}'`,
    };
  }
  const unfetched = await fetchTrustedRef(run, cwd, context);
  return unfetched === undefined ? { run, cwd } : { refusal: unfetched };
}

/**
 * wafctl, run in `cwd`: the bundled CLI, run by the Node.js running the action, or the `version`
 * given, from the npm registry. WAFCTL_ACTION_CLI (a script run the same way as the bundled CLI) is
 * for the action's own tests only.
 */
function wafctlIn(run: Invocation, cwd: string, context: ActionContext): Exec {
  const { env } = context;
  const wafctl: [string, string[]] =
    run.version !== ''
      ? ['npx', ['--yes', `wafctl@${run.version}`]]
      : [context.execPath, [env.WAFCTL_ACTION_CLI || join(context.actionDir, 'wafctl.mjs')]];
  return (args, stdout, stderr) => runProgram(wafctl, args, cwd, env, context, stdout, stderr);
}

function runCommand(run: Invocation, exec: Exec, step: Step, cwd: string): Promise<Outcome> {
  switch (run.command) {
    case 'plan':
    case 'drift':
      return runReport(run, exec, step);
    case 'apply':
      return runApply(run, exec, step, cwd);
    case 'pull':
      return runPull(run, exec, step);
  }
}

/** plan or drift: the markdown (marked with the environment's marker) is the job summary. */
async function runReport(run: Invocation, exec: Exec, step: Step): Promise<Outcome> {
  const markdown = join(step.temp, `wafctl-${run.command}.md`);
  const { code } =
    run.command === 'plan'
      ? await exec(planArgs(run), { file: markdown }, 'log')
      : await exec(driftArgs(run, markdown), 'log', 'log');
  mark(run, markdown);
  if (existsSync(markdown)) summarize(step, readFileSync(markdown, 'utf8'));
  return { code, hasChanges: exitHasChanges(code), markdown };
}

/**
 * apply: of the plan file given, or of a plan made and saved first; its log is the job summary, with
 * `wait` after what the wait found (from the JSON report it wrote).
 */
async function runApply(run: Invocation, exec: Exec, step: Step, cwd: string): Promise<Outcome> {
  let applied: { code: number; hasChanges: boolean; log: string };
  const report = join(step.temp, 'wafctl-apply-report.json');
  rmSync(report, { force: true });
  if (run.planFile !== '') {
    const hasChanges = savedPlanChanges(resolve(cwd, run.planFile));
    const ran = await exec(applyArgs(run, run.planFile, report), 'tee', 'tee');
    applied = { code: ran.code, hasChanges, log: ran.log };
  } else {
    applied = await planThenApply(run, exec, step, report);
  }
  const enforcement = existsSync(report) ? enforcementSummary(readFileSync(report, 'utf8')) : undefined;
  summarize(step, commandSummary(run, applied.code, applied.hasChanges, applied.log, enforcement));
  return { code: applied.code, hasChanges: applied.hasChanges, markdown: '' };
}

/**
 * Plan, save, then apply exactly that plan. The log shows the plan ONCE, and it is apply's: `apply
 * --plan` rebuilds the plan from the live objects and the saved intent, prints that, and applies
 * exactly what it printed (refusing a stale one). plan's own copy is printed only when there is no
 * apply to print one (plan failed, or --fail-on refused it: 1 or 3).
 */
async function planThenApply(
  run: Invocation,
  exec: Exec,
  step: Step,
  report: string,
): Promise<{ code: number; hasChanges: boolean; log: string }> {
  const { context } = step;
  const saved = join(step.temp, 'wafctl-plan.json');
  rmSync(saved, { force: true });
  const planned = await exec(savedPlanArgs(run, saved), 'capture', 'capture');
  // Written even when --fail-on refuses the plan (exit 3): has-changes is true then too.
  const hasChanges = savedPlanChanges(saved);
  if (planned.code !== 0) {
    // The plan, then its error ("see the Security impact section above"), in that order.
    context.stdout.write(planned.stdout);
    context.stderr.write(planned.stderr);
    return { code: planned.code, hasChanges, log: planned.stdout + planned.stderr };
  }
  context.stderr.write(planned.stderr);
  const ran = await exec(applyArgs(run, saved, report), 'tee', 'tee');
  return { code: ran.code, hasChanges, log: planned.stderr + ran.log };
}

/** pull: writes the live changes (and undeclared in-scope objects) back into the checked-out files. */
async function runPull(run: Invocation, exec: Exec, step: Step): Promise<Outcome> {
  const ran = await exec(pullArgs(run), 'tee', 'tee');
  summarize(step, commandSummary(run, ran.code, false, ran.log));
  return { code: ran.code, hasChanges: false, markdown: '' };
}

function writeOutputs(step: Step, outputs: ActionOutputs): void {
  if (step.outputFile !== undefined) appendFileSync(step.outputFile, formatOutputs(outputs));
}

function summarize(step: Step, text: string): void {
  if (step.summaryFile !== undefined) appendFileSync(step.summaryFile, text);
}

/**
 * On a pull request, the base branch wafctl pins connections and policy to (`--trusted-ref
 * origin/BRANCH`): fetched from origin when the checkout lacks it (actions/checkout fetches one
 * commit, and keeps its credentials for git), one commit deep in a shallow clone. The refusal, if it
 * cannot be had.
 */
async function fetchTrustedRef(
  run: Invocation,
  cwd: string,
  context: ActionContext,
): Promise<string | undefined> {
  const { ref, fetchBranch } = run.trustedRef;
  if (fetchBranch === undefined) return undefined;
  const env = { ...context.env, GIT_TERMINAL_PROMPT: '0' };
  const git = (args: string[]) => runProgram(['git', []], args, cwd, env, context, 'capture', 'capture');
  if ((await git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`])).code === 0) return undefined;
  const shallow = (await git(['rev-parse', '--is-shallow-repository'])).stdout.trim() === 'true';
  const refspec = `+refs/heads/${fetchBranch}:refs/remotes/${ref}`;
  const fetched = await git(['fetch', '--no-tags', ...(shallow ? ['--depth=1'] : []), 'origin', refspec]);
  if (fetched.code === 0) return undefined;
  const why = fetched.stderr.trim().split('\n')[0] ?? '';
  return `cannot fetch the pull request's base branch ${fetchBranch} from origin, which wafctl reads connections and policy from (--trusted-ref ${ref}): check out with actions/checkout, or set trusted-ref (${why})`;
}

/** Prepends the environment's own marker (if any) to the markdown file wafctl wrote. */
function mark(run: Invocation, markdown: string): void {
  if (run.ownMarker === '' || !existsSync(markdown)) return;
  writeFileSync(markdown, `${run.ownMarker}\n${readFileSync(markdown, 'utf8')}`);
}

function savedPlanChanges(file: string): boolean {
  let text: string | undefined;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return false;
  }
  // A file that is missing or not a plan has no changes we know of: wafctl itself reports why.
  return savedPlanHasChanges(text);
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The sticky pull-request comment, with the job's token: false when it was due and failed (an
 * error annotation says why); a run with nothing to post, or not on a pull request, is a warning.
 */
async function postComment(run: Invocation, markdown: string, context: ActionContext): Promise<boolean> {
  const { env } = context;
  const say = (line: string) => context.stdout.write(`${line}\n`);
  if (run.marker === '') {
    say(warningAnnotation(`comment: ${run.command} writes no markdown to comment with; no comment posted`));
    return true;
  }
  if (markdown === '') {
    say(warningAnnotation(`comment: wafctl ${run.command} wrote no markdown; no comment posted`));
    return true;
  }
  let event: unknown;
  try {
    event = JSON.parse(readFileSync(env.GITHUB_EVENT_PATH ?? '', 'utf8'));
  } catch {
    event = undefined;
  }
  const issue = pullRequestNumber(event);
  if (issue === undefined) {
    say(
      warningAnnotation(
        `comment: this run is not for a pull request (${env.GITHUB_EVENT_NAME || 'no event'}); no comment posted`,
      ),
    );
    return true;
  }
  if (run.githubToken === '') {
    say(
      errorAnnotation(
        'comment: github-token is empty: the comment needs a token that may write pull requests',
      ),
    );
    return false;
  }
  try {
    const result = await upsertComment({
      apiUrl: env.GITHUB_API_URL || 'https://api.github.com',
      repository: env.GITHUB_REPOSITORY ?? '',
      issue,
      token: run.githubToken,
      marker: run.marker,
      author: run.commentAuthor,
      body: readFileSync(markdown, 'utf8'),
      ...(context.fetch === undefined ? {} : { fetch: context.fetch }),
    });
    say(`wafctl action: ${result.action} the pull-request comment ${result.url || `#${result.id}`}`);
    return true;
  } catch (error) {
    say(errorAnnotation(`comment: ${error instanceof Error ? error.message : String(error)}`));
    return false;
  }
}
