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
import { spawn } from 'node:child_process';
import {
  appendFileSync,
  closeSync,
  existsSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { upsertComment } from './comment.js';
import {
  type ActionOutputs,
  applyArgs,
  commandSummary,
  driftArgs,
  errorAnnotation,
  exitHasChanges,
  formatOutputs,
  type Invocation,
  inputVariable,
  planArgs,
  pullArgs,
  pullRequestNumber,
  readInputs,
  resolveInvocation,
  savedPlanArgs,
  savedPlanHasChanges,
  stepExitCode,
  warningAnnotation,
} from './inputs.js';

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

/** Where a child's stream goes: the step's log, a file, the log and a copy kept, or a copy only. */
type Sink = 'log' | 'tee' | 'capture' | { file: string };

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout and stderr as they arrived, for the job summary. */
  log: string;
}

/** Runs the action; resolves to the step's exit code. */
export async function runAction(context: ActionContext): Promise<number> {
  const { env } = context;
  const say = (line: string) => context.stdout.write(`${line}\n`);
  const temp = env.RUNNER_TEMP || tmpdir();
  const summaryFile = env.GITHUB_STEP_SUMMARY || undefined;
  const outputFile = env.GITHUB_OUTPUT || undefined;
  const writeOutputs = (outputs: ActionOutputs) => {
    if (outputFile !== undefined) appendFileSync(outputFile, formatOutputs(outputs));
  };
  const summarize = (text: string) => {
    if (summaryFile !== undefined) appendFileSync(summaryFile, text);
  };
  const refuse = (refusal: string): number => {
    say(errorAnnotation(refusal));
    writeOutputs({ exitCode: 1, hasChanges: false, markdown: '', commentMarker: '' });
    return 1;
  };

  const event = { name: env.GITHUB_EVENT_NAME, baseRef: env.GITHUB_BASE_REF };
  const resolution = resolveInvocation(readInputs(env), event);
  if (!resolution.ok) return refuse(resolution.refusal);
  const run = resolution.invocation;
  const cwd = resolve(context.cwd, run.workingDirectory);
  if (!isDirectory(cwd)) {
    return refuse(`working-directory must be a directory of the workspace, got '${run.workingDirectory}'`);
  }
  const unfetched = await fetchTrustedRef(run, cwd, context);
  if (unfetched !== undefined) return refuse(unfetched);

  // The bundled CLI, run by the Node.js running the action; WAFCTL_ACTION_CLI (a script run the same
  // way) is for the action's own tests only.
  const wafctl: [string, string[]] =
    run.version !== ''
      ? ['npx', ['--yes', `wafctl@${run.version}`]]
      : [context.execPath, [env.WAFCTL_ACTION_CLI || join(context.actionDir, 'wafctl.mjs')]];
  const exec = (args: string[], where: string, stdout: Sink, stderr: Sink) =>
    runProgram(wafctl, args, where, env, context, stdout, stderr);

  let code = 0;
  let hasChanges = false;
  let markdown = join(temp, `wafctl-${run.command}.md`);
  switch (run.command) {
    case 'plan': {
      const ran = await exec(planArgs(run), cwd, { file: markdown }, 'log');
      code = ran.code;
      mark(run, markdown);
      if (existsSync(markdown)) summarize(readFileSync(markdown, 'utf8'));
      hasChanges = exitHasChanges(code);
      break;
    }
    case 'drift': {
      const ran = await exec(driftArgs(run, markdown), cwd, 'log', 'log');
      code = ran.code;
      mark(run, markdown);
      if (existsSync(markdown)) summarize(readFileSync(markdown, 'utf8'));
      hasChanges = exitHasChanges(code);
      break;
    }
    case 'apply': {
      markdown = '';
      let log = '';
      const applySaved = async (file: string) => {
        const ran = await exec(applyArgs(run, file), cwd, 'tee', 'tee');
        log += ran.log;
        return ran.code;
      };
      if (run.planFile !== '') {
        hasChanges = savedPlanChanges(resolve(cwd, run.planFile));
        code = await applySaved(run.planFile);
      } else {
        // Plan, save, then apply exactly that plan. The log shows the plan ONCE, and it is apply's:
        // `apply --plan` rebuilds the plan from the live objects and the saved intent, prints that,
        // and applies exactly what it printed (refusing a stale one). plan's own copy is printed
        // only when there is no apply to print one (plan failed, or --fail-on refused it: 1 or 3).
        const saved = join(temp, 'wafctl-plan.json');
        rmSync(saved, { force: true });
        const planned = await exec(savedPlanArgs(run, saved), cwd, 'capture', 'capture');
        code = planned.code;
        // Written even when --fail-on refuses the plan (exit 3): has-changes is true then too.
        hasChanges = savedPlanChanges(saved);
        if (code === 0) {
          context.stderr.write(planned.stderr);
          log += planned.stderr;
          code = await applySaved(saved);
        } else {
          // The plan, then its error ("see the Security impact section above"), in that order.
          context.stdout.write(planned.stdout);
          context.stderr.write(planned.stderr);
          log += planned.stdout + planned.stderr;
        }
      }
      summarize(commandSummary(run, code, hasChanges, log));
      break;
    }
    case 'pull': {
      // Writes the live changes (and undeclared in-scope objects) back into the checked-out files.
      markdown = '';
      const ran = await exec(pullArgs(run), cwd, 'tee', 'tee');
      code = ran.code;
      summarize(commandSummary(run, code, false, ran.log));
      break;
    }
  }

  const hasMarkdown = markdown !== '' && existsSync(markdown);
  writeOutputs({
    exitCode: code,
    hasChanges,
    markdown: hasMarkdown ? markdown : '',
    commentMarker: run.marker,
  });

  let step = stepExitCode(code);
  if (run.comment) {
    const posted = await postComment(run, hasMarkdown ? markdown : '', context);
    if (!posted && step === 0) step = 1;
  }
  return step;
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

/** The most of a stream kept in memory for the job summary. */
const KEEP = 4 * 1024 * 1024;

/**
 * Runs wafctl (or git) once; a failure to start it (npx missing) is exit 1 with an error annotation.
 */
function runProgram(
  [program, prefix]: [string, string[]],
  args: string[],
  cwd: string,
  env: Readonly<Record<string, string | undefined>>,
  context: ActionContext,
  stdout: Sink,
  stderr: Sink,
): Promise<Ran> {
  return new Promise((done) => {
    const files: number[] = [];
    const target = (sink: Sink): 'inherit' | 'pipe' | number => {
      if (sink === 'log') return 'inherit';
      if (typeof sink === 'object') {
        const fd = openSync(sink.file, 'w');
        files.push(fd);
        return fd;
      }
      return 'pipe';
    };
    const ran: Ran = { code: 0, stdout: '', stderr: '', log: '' };
    // wafctl (or `npx wafctl@VERSION`, fetched at run time), and git, never need the GitHub token.
    const { [inputVariable('github-token')]: _token, ...childEnv } = env;
    const child = spawn(program, [...prefix, ...args], {
      cwd,
      env: childEnv as NodeJS.ProcessEnv,
      stdio: ['ignore', target(stdout), target(stderr)],
    });
    for (const fd of files) closeSync(fd);
    const collect = (stream: NodeJS.ReadableStream | null, sink: Sink, key: 'stdout' | 'stderr') => {
      if (stream === null) return;
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => {
        if (sink === 'tee') (key === 'stdout' ? context.stdout : context.stderr).write(chunk);
        if (ran[key].length < KEEP) ran[key] += chunk;
        if (ran.log.length < KEEP) ran.log += chunk;
      });
    };
    collect(child.stdout, stdout, 'stdout');
    collect(child.stderr, stderr, 'stderr');
    // A child that could not start emits 'error' and may emit no 'close': settle once, on either.
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      done(ran);
    };
    child.on('error', (error) => {
      context.stdout.write(`${errorAnnotation(`could not run ${program}: ${error.message}`)}\n`);
      ran.code = 1;
      settle();
    });
    child.on('close', (code, signal) => {
      if (settled) return;
      if (code !== null) ran.code = code;
      else if (signal !== null) ran.code = 128 + (constants.signals[signal] ?? 0);
      settle();
    });
  });
}
