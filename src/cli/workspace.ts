/**
 * The workspace of a command that reads configuration: its root, the work tree's wafctl.yaml and,
 * with `--trusted-ref REF` (or WAFCTL_TRUSTED_REF), the trusted side: the files at REF, read from
 * git (config/trusted-ref.ts). A pull request writes the work tree, so with a trusted ref everything
 * that decides where wafctl connects, which variables it may read and how changes are judged comes
 * from REF (config/trust.ts); the objects come from the work tree, and what it changes in the
 * trusted parts is listed in the plan's Trust section, unused.
 *
 * Opened once per run (the environments of one run share it) and closed when the run ends. Opening it
 * registers the secrets of every environment's credential variables, whatever `--env` selects.
 */

import { type AllowList, type CredentialVariables, credentialWord, VARIABLE_PREFIX } from '../config/env.js';
import { type LoadOptions, loadDesiredState, loadEnvironment } from '../config/load.js';
import { ConfigError } from '../config/problems.js';
import {
  type EnvironmentSpec,
  PROJECT_FILE,
  type Project,
  projectRoot,
  readProject,
} from '../config/project.js';
import {
  credentialVariables,
  secretVariables,
  type TestsInForce,
  trustChanges,
  withTrustedPolicy,
} from '../config/trust.js';
import { checkoutTrustedRef, TRUSTED_REF_VARIABLE, type TrustedTree } from '../config/trusted-ref.js';
import type { LoadedConfig } from '../config/validate-sources.js';
import { usageError, type WafctlError } from '../core/errors.js';
import { CHANGES_TRUST, FAILS_TESTS, type FailOnClass, type PlanTrust } from '../core/model.js';
import { registerSecret } from '../core/secrets.js';
import { type LoadTarget, loadTarget } from '../ops/project.js';
import { loadHooks } from './interrupt.js';
import type { Io } from './io.js';
import { writeErr } from './output.js';
import { atRunEnd, oncePerRun } from './run-scope.js';

export interface TrustFlags {
  /** `--trusted-ref REF`; WAFCTL_TRUSTED_REF when absent. */
  trustedRef?: string | undefined;
}

export interface TrustedSide {
  tree: TrustedTree;
  /** wafctl.yaml at REF, when it declares environments: the connections used. */
  project: Project | undefined;
}

export interface Workspace {
  /** The configuration root, as the user would write it. */
  root: string;
  /** The work tree's wafctl.yaml, when it declares environments: their names, paths and vars. */
  project: Project | undefined;
  trusted: TrustedSide | undefined;
  /** Every environment's credential variables, of the work tree and of the trusted ref. */
  credentials: CredentialVariables;
}

/** wafctl's own secret variables: registered too, whether or not this run reads them. */
const OWN_SECRETS = ['WAF_TOKEN', 'WAF_SIGNIN_PASSWORD', 'WAF_EMULATOR_ADMIN_TOKEN'];

/** The trusted ref of a run, if any (an empty WAFCTL_TRUSTED_REF is unset). */
export function trustedRefOf(flags: TrustFlags, env: Io['env']): string | undefined {
  const ref = flags.trustedRef ?? env[TRUSTED_REF_VARIABLE];
  return ref === undefined || ref === '' ? undefined : ref;
}

/** The workspace of `paths` (default `.`), opened once per run. */
export async function openWorkspace(io: Io, paths: readonly string[], flags: TrustFlags): Promise<Workspace> {
  const given = paths.length === 0 ? ['.'] : paths;
  const ref = trustedRefOf(flags, io.env);
  const root = await projectRoot(given, io.cwd);
  const key = ['workspace', root, ref ?? '', ...given].join('\0');
  return oncePerRun(io, key, async () => {
    const project = await readProject(root, io.cwd);
    const trusted =
      ref === undefined ? undefined : await openTrusted(io, ref, root, project ? [root] : given);
    const projects = [project, trusted?.project];
    for (const name of [...OWN_SECRETS, ...secretVariables(projects)]) registerSecret(io.env[name]);
    return { root, project, trusted, credentials: credentialVariables(projects) };
  });
}

async function openTrusted(
  io: Io,
  ref: string,
  root: string,
  paths: readonly string[],
): Promise<TrustedSide> {
  const specs = [...paths, `${root}/${PROJECT_FILE}`];
  const tree = await checkoutTrustedRef(ref, { cwd: io.cwd, root, paths: specs, env: io.env });
  atRunEnd(io, tree.dispose);
  const project = await atTrustedRef(tree, () => readProject(tree.pathFor(root), tree.cwd));
  return { tree, project };
}

/** Problems found in the trusted ref's files name them as git does: `origin/main:config/x.yaml`. */
async function atTrustedRef<T>(tree: TrustedTree, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const problems = error.problems.map((problem) => ({
      ...problem,
      file: `${tree.ref}:${tree.shownAs(problem.file)}`,
    }));
    throw new ConfigError(problems, error.skipped);
  }
}

/**
 * `--fail-on changes_trust` needs a trusted ref: without one nothing is pinned, so no change of trust
 * could ever be seen, and a gate that cannot fail must not look like one.
 */
export function assertTrustGate(workspace: Workspace, failOn: readonly FailOnClass[] | undefined): void {
  if (workspace.trusted !== undefined || !failOn?.includes(CHANGES_TRUST)) return;
  throw usageError(
    `--fail-on ${CHANGES_TRUST} needs a trusted ref (--trusted-ref REF, or ${TRUSTED_REF_VARIABLE}): without one, nothing is pinned and no change of trust can be seen`,
  );
}

/**
 * `--fail-on fails_tests` judges a plan's Behaviour section, which drift reports and comparisons do
 * not have (what was changed by hand is not a change under review): the gate could never fail there,
 * and a gate that cannot fail must not look like one. Refused before anything is read.
 */
export function assertNoBehaviourGate(
  command: 'drift' | 'compare',
  failOn: readonly FailOnClass[] | undefined,
): void {
  if (!failOn?.includes(FAILS_TESTS)) return;
  throw usageError(
    `--fail-on ${FAILS_TESTS}: ${command} has no Behaviour section (rule tests run in plan and apply); use wafctl test for the tests themselves`,
  );
}

/** The project whose environments' connections a run uses: the trusted ref's, when there is one. */
export function connectionsProject(workspace: Workspace): Project | undefined {
  return workspace.trusted === undefined ? workspace.project : workspace.trusted.project;
}

/** The loaded configuration, and with a trusted ref what it trusted and what it did not use. */
export interface WorkspaceConfig {
  config: LoadedConfig;
  trust?: PlanTrust | undefined;
}

/**
 * The configuration to plan: the work tree's objects; with a trusted ref, read with the trusted
 * `variables` allow-list and judged by the trusted policy and rule tests (`tests`: the gate's, the
 * trusted ref's cases and the work tree's new ones, unless `wafctl test` asks for the work tree's),
 * the differences listed in `trust`.
 */
export async function loadWorkspaceConfig(
  io: Io,
  workspace: Workspace,
  target: LoadTarget,
  tests: TestsInForce = 'gate',
): Promise<WorkspaceConfig> {
  const base = loadOptions(io, workspace);
  const { trusted } = workspace;
  if (trusted === undefined) return { config: await loadTarget(workspace.project, target, base) };
  const policy = await trustedPolicy(io, workspace, trusted, target);
  const config = await loadTarget(workspace.project, target, { ...base, allowList: pinnedBy(policy) });
  return {
    config: withTrustedPolicy(config, policy, tests),
    trust: trustOf(workspace, trusted, policy, config),
  };
}

/** The allow-list a work tree is read with under a trusted ref: the trusted ref's `variables:`. */
const pinnedBy = (policy: LoadedConfig): AllowList => ({ trustedRef: policy.declaredVariables });

/**
 * The trusted ref's `variables:` is read from the environment as it says; a name in it that looks like
 * a credential (env.ts `credentialWord`) is worth a warning, once a run: its value may reach a plan
 * comment or the firewall. Only a warning: the trusted ref is the pipeline's own.
 */
function noteCredentialLikeVariables(io: Io, declared: ReadonlySet<string>): void {
  const named = [...declared].sort().flatMap((name) => {
    const word = credentialWord(name);
    return word === undefined ? [] : [`${name} (${word})`];
  });
  if (named.length === 0) return;
  void oncePerRun(io, 'variables-note', async () => {
    writeErr(
      io,
      `Warning: the trusted ref's variables: declares ${named.join(', ')}, named like credentials: \${NAME} prints their values in plans and may send them to the firewall; export only what the configuration needs as ${VARIABLE_PREFIX}*.`,
    );
  });
}

/** What the work tree (`work`) changes in the trusted parts (`policy`, the connections). */
function trustOf(
  workspace: Workspace,
  trusted: TrustedSide,
  policy: LoadedConfig,
  work: LoadedConfig,
): PlanTrust {
  const changes = trustChanges(
    { environments: trusted.project?.environments ?? [], config: policy },
    { environments: workspace.project?.environments ?? [], config: work },
  );
  return { ref: trusted.tree.ref, commit: trusted.tree.commit, changes };
}

/**
 * The policy a run is judged by (`variables` declared, `manage`, `settings.firewall_actions`,
 * `settings.safety` and the rule tests), read from the files alone, objects left out: the trusted
 * ref's when there is one (with what the work tree changes in it), else the work tree's. `apply
 * --plan` judges a saved plan by it, never by what the plan recorded.
 */
export async function policyInForce(
  io: Io,
  workspace: Workspace,
  target: LoadTarget,
): Promise<{ policy: LoadedConfig; trust?: PlanTrust | undefined }> {
  const { trusted } = workspace;
  const options = loadOptions(io, workspace, { policyOnly: true });
  if (trusted === undefined) return { policy: await loadTarget(workspace.project, target, options) };
  const policy = await trustedPolicy(io, workspace, trusted, target);
  const own = await loadTarget(workspace.project, target, { ...options, allowList: pinnedBy(policy) });
  return { policy, trust: trustOf(workspace, trusted, policy, own) };
}

/**
 * The trusted ref's policy for `target`: its environment of the same name, or the same PATHs, at
 * REF. A path that REF does not have holds no policy (a pull request that adds the configuration is
 * judged by the defaults).
 */
async function trustedPolicy(
  io: Io,
  workspace: Workspace,
  trusted: TrustedSide,
  target: LoadTarget,
): Promise<LoadedConfig> {
  const { tree } = trusted;
  const options = loadOptions(io, workspace, {
    cwd: tree.cwd,
    policyOnly: true,
    skipMissing: true,
    allowList: 'own',
  });
  const name = target.environment?.name;
  const at = name === undefined ? undefined : trustedEnvironment(trusted, name);
  const load =
    at === undefined
      ? () => loadDesiredState(target.paths.map(tree.pathFor), options)
      : () => loadEnvironment(at.project, at.environment, options);
  const policy = testsAtRef(tree, await atTrustedRef(tree, load));
  noteCredentialLikeVariables(io, policy.declaredVariables);
  return policy;
}

/**
 * The trusted ref's test cases placed as its problems are (`origin/main:config/tests.yaml`), not in
 * the temporary checkout, which is gone when the run ends.
 */
function testsAtRef(tree: TrustedTree, config: LoadedConfig): LoadedConfig {
  const tests = config.state.tests.map((test) => ({
    ...test,
    at: { ...test.at, file: `${tree.ref}:${tree.shownAs(test.at.file)}` },
  }));
  return { ...config, state: { ...config.state, tests } };
}

/** How the run loads configuration: its directory, variables, credentials and interrupt, and `more`. */
function loadOptions(io: Io, workspace: Workspace, more: Partial<LoadOptions> = {}): LoadOptions {
  return { cwd: io.cwd, env: io.env, credentials: workspace.credentials, ...loadHooks(io), ...more };
}

/**
 * The environment `name` of the trusted ref's wafctl.yaml: a work tree's environment the trusted ref
 * does not declare has no trusted connection, and is refused.
 */
export function trustedEnvironment(
  { project, tree }: TrustedSide,
  name: string,
): { project: Project; environment: EnvironmentSpec } {
  const environment = project?.environments.find((candidate) => candidate.name === name);
  if (project === undefined || environment === undefined) throw notAtTrustedRef(name, tree.ref);
  return { project, environment };
}

function notAtTrustedRef(name: string, ref: string): WafctlError {
  return usageError(
    `environment ${name} is not declared in ${PROJECT_FILE} at the trusted ref ${ref}: a pull request cannot add a connection; merge the environment first (its URL and credentials come from the trusted ref)`,
  );
}
