/**
 * The GitHub Action's inputs and what they make wafctl run: pure functions, no I/O (the runner,
 * run.ts, does the rest). Inputs arrive as GitHub passes them to a JavaScript action: one variable
 * each, `INPUT_` and the input's name upper-cased, dashes kept (`fail-on` is `INPUT_FAIL-ON`). A
 * value is only ever an argument of wafctl, never shell: a path or URL can hold shell syntax.
 */

/** The action's inputs (action.yml), trimmed as GitHub's toolkit trims them. */
export interface ActionInputs {
  command: string;
  paths: string;
  url: string;
  failOn: string;
  planFile: string;
  environment: string;
  version: string;
  workingDirectory: string;
  comment: string;
  commentAuthor: string;
  githubToken: string;
  trustedRef: string;
}

/** The name of each input in action.yml. */
const INPUT_NAMES: Record<keyof ActionInputs, string> = {
  command: 'command',
  paths: 'paths',
  url: 'url',
  failOn: 'fail-on',
  planFile: 'plan-file',
  environment: 'environment',
  version: 'version',
  workingDirectory: 'working-directory',
  comment: 'comment',
  commentAuthor: 'comment-author',
  githubToken: 'github-token',
  trustedRef: 'trusted-ref',
};

/** The variable GitHub sets for an input: `fail-on` -> `INPUT_FAIL-ON` (spaces become `_`). */
export function inputVariable(name: string): string {
  return `INPUT_${name.replace(/ /g, '_').toUpperCase()}`;
}

/** Reads every input from `env`; an input that is not set is empty (the defaults come after). */
export function readInputs(env: Readonly<Record<string, string | undefined>>): ActionInputs {
  const inputs = {} as ActionInputs;
  for (const [key, name] of Object.entries(INPUT_NAMES) as [keyof ActionInputs, string][]) {
    inputs[key] = (env[inputVariable(name)] ?? '').trim();
  }
  return inputs;
}

export type Command = 'plan' | 'apply' | 'drift' | 'pull';
const COMMANDS: readonly string[] = ['plan', 'apply', 'drift', 'pull'];

/** What one run of the action does, once its inputs are accepted. */
export interface Invocation {
  command: Command;
  paths: string[];
  /** --url, --fail-on and --max-chars, as they apply to plan, drift and apply. */
  common: string[];
  /** One `--env NAME` per environment. */
  envFlags: string[];
  environments: string[];
  url: string;
  planFile: string;
  /** The comment-marker output: wafctl's own marker, or the environment's; empty for apply and pull. */
  marker: string;
  /** The marker the action puts on the markdown's first line (one environment), else empty. */
  ownMarker: string;
  /** A wafctl version to run from the npm registry instead of the bundled CLI; empty: the bundled one. */
  version: string;
  /** Where paths resolve and commands run, as given (relative to the workspace); empty: the workspace. */
  workingDirectory: string;
  comment: boolean;
  /** The login whose comment is the sticky one (the token's): another author's is never edited. */
  commentAuthor: string;
  githubToken: string;
  /**
   * The git ref wafctl reads connections and policy from (`--trusted-ref`), empty for none; the base
   * branch to fetch first when it is the default on a pull request (`origin/BRANCH`).
   */
  trustedRef: { ref: string; fetchBranch?: string | undefined };
}

export type Resolution = { ok: true; invocation: Invocation } | { ok: false; refusal: string };

/** Who comments with the job's own token (GITHUB_TOKEN). */
export const DEFAULT_COMMENT_AUTHOR = 'github-actions[bot]';

/** GitHub's limit on a comment's body, which wafctl's markdown fills at most. */
export const COMMENT_LIMIT = 65_536;

/** A semantic version (semver.org's own expression): what `version` accepts. */
const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

/** The values GitHub's toolkit reads as a boolean input. */
const TRUE = ['true', 'True', 'TRUE'];
const FALSE = ['false', 'False', 'FALSE'];

/**
 * Checks the inputs and works out what to run, or the refusal to report before anything runs. The
 * refusals and their wording are the action's contract (they were scripts/github-action.sh's).
 */
export function resolveInvocation(
  inputs: ActionInputs,
  /** The run's GITHUB_EVENT_NAME and GITHUB_BASE_REF: the default trusted ref. */
  event: { name?: string | undefined; baseRef?: string | undefined } = {},
): Resolution {
  const command = inputs.command || 'plan';
  const paths = inputs.paths.split(/\s+/).filter((path) => path !== '');
  // environment: names of wafctl.yaml's environments (or `all`), separated by commas or spaces, each
  // passed as --env NAME. Only plain names: a value is an argument, never shell, but a name that is
  // not one is a mistake to report before anything runs.
  const environments = inputs.environment.split(/[ \t\n,]+/).filter((name) => name !== '');
  const refuse = (refusal: string): Resolution => ({ ok: false, refusal });
  // wafctl.yaml's rule for a name (src/config/project.ts ENVIRONMENT_NAME; this layer imports nothing).
  if (environments.some((name) => !/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(name))) {
    return refuse(
      `environment must be environment names of wafctl.yaml (letters, digits, ., - and _, starting with a letter or digit) or all, separated by commas or spaces, got '${inputs.environment}'`,
    );
  }
  if (environments.length > 0) {
    if (inputs.url !== '') {
      return refuse(
        "url cannot be combined with environment: each environment's URL comes from its url or url_env in wafctl.yaml",
      );
    }
    if (
      (command === 'apply' || command === 'pull') &&
      (environments.length > 1 || environments[0] === 'all')
    ) {
      return refuse(
        `${command} takes one environment per run, got '${inputs.environment}': run one job per environment (a matrix with max-parallel: 1)`,
      );
    }
  }
  if (!COMMANDS.includes(command)) {
    return refuse(`command must be plan, apply, drift or pull, got '${inputs.command}'`);
  }
  if (inputs.version !== '' && !SEMVER.test(inputs.version.replace(/^v/, ''))) {
    return refuse(
      `version must be a wafctl version to run from the npm registry (e.g. 1.2.3), got '${inputs.version}'`,
    );
  }
  const comment = inputs.comment || 'false';
  if (!TRUE.includes(comment) && !FALSE.includes(comment)) {
    return refuse(`comment must be true or false, got '${inputs.comment}'`);
  }

  const trust = trustedRefOf(inputs.trustedRef, event);
  if ('refusal' in trust) return refuse(trust.refusal);

  const common: string[] = [];
  if (inputs.url !== '') common.push('--url', inputs.url);
  if (trust.ref !== '') common.push('--trusted-ref', trust.ref);
  if (inputs.failOn !== '') common.push('--fail-on', inputs.failOn);
  // The sticky-comment marker the markdown starts with. wafctl's own (<!-- wafctl-plan -->, or
  // <!-- wafctl-drift -->) without an environment or with several (one combined comment); with ONE
  // environment, a marker of its own on the line before it (<!-- wafctl-plan:staging -->), so that
  // the jobs of a matrix over environments each keep their own comment.
  let marker = command === 'plan' || command === 'drift' ? `<!-- wafctl-${command} -->` : '';
  let ownMarker = '';
  const [only] = environments;
  if (marker !== '' && environments.length === 1 && only !== undefined && only !== 'all') {
    marker = `<!-- wafctl-${command}:${only} -->`;
    ownMarker = marker;
    // Room for the marker's line within GitHub's 65,536 characters, which wafctl fills at most.
    common.push('--max-chars', String(COMMENT_LIMIT - marker.length - 1));
  }
  return {
    ok: true,
    invocation: {
      command: command as Command,
      paths: paths.length > 0 ? paths : ['.'],
      common,
      envFlags: environments.flatMap((name) => ['--env', name]),
      environments,
      url: inputs.url,
      planFile: inputs.planFile,
      marker,
      ownMarker,
      version: inputs.version.replace(/^v/, ''),
      workingDirectory: inputs.workingDirectory,
      comment: TRUE.includes(comment),
      commentAuthor: inputs.commentAuthor || DEFAULT_COMMENT_AUTHOR,
      githubToken: inputs.githubToken,
      trustedRef: trust,
    },
  };
}

/** The events whose checkout holds a pull request's files, which must not decide what wafctl trusts. */
const PULL_REQUEST_EVENTS = ['pull_request', 'pull_request_target'];

/** A branch or ref name as git and wafctl take it: nothing git could read as an option. */
const REF_NAME = /^[A-Za-z0-9_][A-Za-z0-9_./-]{0,254}$/;

/**
 * The `trusted-ref` input: a ref as given, `none` for no trusted ref, or empty for the default: the
 * base branch on a pull request (fetched first when the checkout lacks it), nothing otherwise.
 */
function trustedRefOf(
  input: string,
  event: { name?: string | undefined; baseRef?: string | undefined },
): Invocation['trustedRef'] | { refusal: string } {
  if (input === 'none') return { ref: '' };
  if (input !== '') {
    return REF_NAME.test(input) && !input.includes('..')
      ? { ref: input }
      : { refusal: `trusted-ref must be a git ref (a branch, tag or commit), or none, got '${input}'` };
  }
  const base = event.baseRef ?? '';
  if (!PULL_REQUEST_EVENTS.includes(event.name ?? '') || base === '') return { ref: '' };
  if (!REF_NAME.test(base) || base.includes('..')) {
    return {
      refusal: `the pull request's base branch '${base}' is not a ref the action can pin to: set trusted-ref`,
    };
  }
  return { ref: `origin/${base}`, fetchBranch: base };
}

/** `wafctl plan PATHS --detailed-exitcode --format markdown` (its stdout is the markdown file). */
export function planArgs(run: Invocation): string[] {
  return [
    'plan',
    ...run.paths,
    ...run.common,
    ...run.envFlags,
    '--detailed-exitcode',
    '--format',
    'markdown',
  ];
}

/** `wafctl drift PATHS --format markdown --report FILE`. */
export function driftArgs(run: Invocation, report: string): string[] {
  return ['drift', ...run.paths, ...run.common, ...run.envFlags, '--format', 'markdown', '--report', report];
}

/** `wafctl plan PATHS --out FILE`: the plan apply then applies exactly. */
export function savedPlanArgs(run: Invocation, out: string): string[] {
  return ['plan', ...run.paths, ...run.common, ...run.envFlags, '--out', out];
}

/** `wafctl apply --plan FILE PATHS`: judged by the policy of the configuration at PATHS. */
export function applyArgs(run: Invocation, file: string): string[] {
  return ['apply', '--plan', file, ...run.paths, ...run.common, ...run.envFlags];
}

/** `wafctl pull PATHS --adopt`: writes the live changes back into the files (no --fail-on). */
export function pullArgs(run: Invocation): string[] {
  const trusted = run.trustedRef.ref === '' ? [] : ['--trusted-ref', run.trustedRef.ref];
  return [
    'pull',
    ...run.paths,
    ...(run.url === '' ? [] : ['--url', run.url]),
    ...trusted,
    ...run.envFlags,
    '--adopt',
  ];
}

/**
 * Whether a saved plan (plan --out: the JSON plan of the contract plus context) has changes, from
 * its summary. A text that is not such a plan has none we know of: wafctl itself reports why.
 */
export function savedPlanHasChanges(text: string | undefined): boolean {
  if (text === undefined) return false;
  try {
    const { summary: s } = JSON.parse(text) as {
      summary?: { create?: number; update?: number; replace?: number; delete?: number };
    };
    return (s?.create ?? 0) + (s?.update ?? 0) + (s?.replace ?? 0) + (s?.delete ?? 0) > 0;
  } catch {
    return false;
  }
}

/**
 * has-changes of plan and drift, from wafctl's exit code: 2 is changes (or drift), and 3 is a
 * change (or drifted object) that --fail-on refused, so there is one. 1: no complete plan.
 */
export function exitHasChanges(code: number): boolean {
  return code === 2 || code === 3;
}

/** The step's own exit code: 2 (changes, drift) is a result, not a failure. */
export function stepExitCode(code: number): number {
  return code === 2 ? 0 : code;
}

/**
 * A GitHub error annotation. The value it quotes is escaped so that it cannot start a workflow
 * command of its own (a newline in an input would).
 */
export function errorAnnotation(message: string): string {
  return `::error::wafctl action: ${escapeData(message)}`;
}

export function warningAnnotation(message: string): string {
  return `::warning::wafctl action: ${escapeData(message)}`;
}

function escapeData(message: string): string {
  return message.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

export interface ActionOutputs {
  exitCode: number;
  hasChanges: boolean;
  /** The markdown file's path when there is one (plan, drift), else empty. */
  markdown: string;
  commentMarker: string;
}

/**
 * The lines appended to $GITHUB_OUTPUT: `name=value`, or GitHub's multi-line form (`name<<DELIMITER`)
 * for a value holding a line break, with a delimiter the value does not contain.
 */
export function formatOutputs(outputs: ActionOutputs, delimiter = 'wafctl_output_eof'): string {
  const pairs: [string, string][] = [
    ['exit-code', String(outputs.exitCode)],
    ['has-changes', String(outputs.hasChanges)],
    ['markdown', outputs.markdown],
    ['comment-marker', outputs.commentMarker],
  ];
  return pairs
    .map(([name, value]) => {
      if (!/[\r\n]/.test(value)) return `${name}=${value}\n`;
      let eof = delimiter;
      while (value.includes(eof)) eof = `${eof}_`;
      return `${name}<<${eof}\n${value}\n${eof}\n`;
    })
    .join('');
}

/** The most of a command's log the job summary holds: its head and its tail, the middle elided. */
export const SUMMARY_LOG_LIMIT = 60_000;

/**
 * The job summary of apply and pull (plan and drift put their markdown there): a heading with the
 * outcome, and the command's log as text, without terminal colours.
 */
export function commandSummary(run: Invocation, code: number, hasChanges: boolean, log: string): string {
  const where = run.environments.length === 1 ? ` (${run.environments[0]})` : '';
  const outcome =
    code === 0 ? 'succeeded' : code === 3 ? 'refused by fail-on (exit 3)' : `failed (exit ${code})`;
  const lines = [`### wafctl ${run.command}${where}: ${outcome}`, ''];
  if (run.command === 'apply') lines.push(`Changes: ${hasChanges ? 'yes' : 'none'}`, '');
  let text = stripColours(log).trimEnd();
  if (text.length > SUMMARY_LOG_LIMIT) {
    const half = SUMMARY_LOG_LIMIT / 2;
    const elided = text.length - SUMMARY_LOG_LIMIT;
    text = `${text.slice(0, half)}\n[... ${elided} characters left out: the whole log is in the step's output ...]\n${text.slice(-half)}`;
  }
  if (text !== '') {
    // A fence longer than any run of backticks in the log, so the log cannot close it.
    const longest = (text.match(/`+/g) ?? []).reduce((most, run) => Math.max(most, run.length), 2);
    const fence = '`'.repeat(longest + 1);
    lines.push(`${fence}text`, text, fence, '');
  }
  return `${lines.join('\n')}\n`;
}

const ESC = String.fromCharCode(27);
const COLOURS = new RegExp(`${ESC}\\[[0-9;]*[A-Za-z]`, 'g');

function stripColours(text: string): string {
  return text.replace(COLOURS, '');
}

/** The pull request a comment goes to, from the event that started the workflow (GITHUB_EVENT_PATH). */
export function pullRequestNumber(event: unknown): number | undefined {
  if (typeof event !== 'object' || event === null) return undefined;
  const { pull_request: pr, issue } = event as {
    pull_request?: { number?: unknown };
    issue?: { number?: unknown; pull_request?: unknown };
  };
  if (typeof pr?.number === 'number') return pr.number;
  // issue_comment on a pull request: the issue is the pull request.
  if (issue?.pull_request !== undefined && typeof issue.number === 'number') return issue.number;
  return undefined;
}
