/**
 * What one run of the action does, worked out from its inputs, or the refusal to report before
 * anything runs. Pure. The refusals and their wording are the action's contract (they were
 * scripts/github-action.sh's).
 */
import type { ActionInputs } from './inputs.js';

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
  /** apply's `--wait` and `--wait-timeout DURATION` (inputs `wait`, `wait-timeout`); none for the others. */
  waitFlags: string[];
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

/** The run's GITHUB_EVENT_NAME and GITHUB_BASE_REF: the default trusted ref. */
export interface RunEvent {
  name?: string | undefined;
  baseRef?: string | undefined;
}

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

/** Checks the inputs and works out what to run, or the refusal to report before anything runs. */
export function resolveInvocation(inputs: ActionInputs, event: RunEvent = {}): Resolution {
  const command = inputs.command || 'plan';
  const paths = inputs.paths.split(/\s+/).filter((path) => path !== '');
  // environment: names of wafctl.yaml's environments (or `all`), separated by commas or spaces, each
  // passed as --env NAME.
  const environments = inputs.environment.split(/[ \t\n,]+/).filter((name) => name !== '');
  const comment = inputs.comment || 'false';
  const refusal = inputRefusal(inputs, command, environments, comment);
  if (refusal !== undefined) return { ok: false, refusal };
  const trust = trustedRefOf(inputs.trustedRef, event);
  if ('refusal' in trust) return { ok: false, refusal: trust.refusal };
  const { marker, ownMarker } = markersOf(command, environments);
  return {
    ok: true,
    invocation: {
      command: command as Command,
      paths: paths.length > 0 ? paths : ['.'],
      common: commonFlags(inputs, trust.ref, ownMarker),
      envFlags: environments.flatMap((name) => ['--env', name]),
      waitFlags: waitFlagsOf(command, inputs),
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

/**
 * Why the inputs cannot run, checked in this order; undefined when they can. `command` and `comment`
 * are the inputs with their defaults.
 */
function inputRefusal(
  inputs: ActionInputs,
  command: string,
  environments: readonly string[],
  comment: string,
): string | undefined {
  // Only plain names: a value is an argument, never shell, but a name that is not one is a mistake
  // to report before anything runs. wafctl.yaml's rule for a name (src/config/project.ts
  // ENVIRONMENT_NAME; this layer imports nothing).
  if (environments.some((name) => !/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(name))) {
    return `environment must be environment names of wafctl.yaml (letters, digits, ., - and _, starting with a letter or digit) or all, separated by commas or spaces, got '${inputs.environment}'`;
  }
  if (environments.length > 0 && inputs.url !== '') {
    return "url cannot be combined with environment: each environment's URL comes from its url or url_env in wafctl.yaml";
  }
  if ((command === 'apply' || command === 'pull') && (environments.length > 1 || environments[0] === 'all')) {
    return `${command} takes one environment per run, got '${inputs.environment}': run one job per environment (a matrix with max-parallel: 1)`;
  }
  if (!COMMANDS.includes(command))
    return `command must be plan, apply, drift or pull, got '${inputs.command}'`;
  if (inputs.version !== '' && !SEMVER.test(inputs.version.replace(/^v/, ''))) {
    return `version must be a wafctl version to run from the npm registry (e.g. 1.2.3), got '${inputs.version}'`;
  }
  if (!TRUE.includes(comment) && !FALSE.includes(comment)) {
    return `comment must be true or false, got '${inputs.comment}'`;
  }
  return waitRefusal(inputs);
}

/** Why `wait` and `wait-timeout` cannot run, if they cannot (wafctl checks the duration itself). */
function waitRefusal({ wait, waitTimeout }: ActionInputs): string | undefined {
  if (wait !== '' && !TRUE.includes(wait) && !FALSE.includes(wait)) {
    return `wait must be true or false, got '${wait}'`;
  }
  if (waitTimeout !== '' && !TRUE.includes(wait)) {
    return `wait-timeout is how long apply waits with wait: true; set wait: true, or leave wait-timeout empty`;
  }
  return undefined;
}

/** `--wait [--wait-timeout DURATION]` for apply with `wait: true`; nothing otherwise (only apply waits). */
function waitFlagsOf(command: string, { wait, waitTimeout }: ActionInputs): string[] {
  if (command !== 'apply' || !TRUE.includes(wait)) return [];
  return ['--wait', ...(waitTimeout === '' ? [] : ['--wait-timeout', waitTimeout])];
}

/**
 * The sticky-comment marker the markdown starts with. wafctl's own (<!-- wafctl-plan -->, or
 * <!-- wafctl-drift -->) without an environment or with several (one combined comment); with ONE
 * environment, a marker of its own on the line before it (<!-- wafctl-plan:staging -->), so that the
 * jobs of a matrix over environments each keep their own comment. None for apply and pull.
 */
function markersOf(command: string, environments: readonly string[]): { marker: string; ownMarker: string } {
  if (command !== 'plan' && command !== 'drift') return { marker: '', ownMarker: '' };
  const [only] = environments;
  if (environments.length === 1 && only !== undefined && only !== 'all') {
    const own = `<!-- wafctl-${command}:${only} -->`;
    return { marker: own, ownMarker: own };
  }
  return { marker: `<!-- wafctl-${command} -->`, ownMarker: '' };
}

/** --url, --trusted-ref, --fail-on, and --max-chars when the markdown gets a marker line of its own. */
function commonFlags(inputs: ActionInputs, trustedRef: string, ownMarker: string): string[] {
  const common: string[] = [];
  if (inputs.url !== '') common.push('--url', inputs.url);
  if (trustedRef !== '') common.push('--trusted-ref', trustedRef);
  if (inputs.failOn !== '') common.push('--fail-on', inputs.failOn);
  // Room for the marker's line within GitHub's 65,536 characters, which wafctl fills at most.
  if (ownMarker !== '') common.push('--max-chars', String(COMMENT_LIMIT - ownMarker.length - 1));
  return common;
}

/** The events whose checkout holds a pull request's files, which must not decide what wafctl trusts. */
const PULL_REQUEST_EVENTS = ['pull_request', 'pull_request_target'];

/** A branch or ref name as git and wafctl take it: nothing git could read as an option. */
const REF_NAME = /^[A-Za-z0-9_][A-Za-z0-9_./-]{0,254}$/;

/**
 * The `trusted-ref` input: a ref as given, `none` for no trusted ref, or empty for the default: the
 * base branch on a pull request (fetched first when the checkout lacks it), nothing otherwise.
 */
function trustedRefOf(input: string, event: RunEvent): Invocation['trustedRef'] | { refusal: string } {
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
