/**
 * The environments of a project (wafctl.yaml at the configuration root declaring `environments:`), as
 * a run selects and uses them: which are selected, what is refused before any request, where an
 * environment's firewall is (its `url`, or the variable its `url_env` names) and its configuration
 * (its paths, overlays and vars). The CLI selects with `--env` (cli/environments.ts adds the trusted
 * ref and several environments per run), the library with its `environment` option. Nothing here
 * reads the process: the caller gives the variables (`Variables`) and the load options.
 */
import { type LoadOptions, loadDesiredState, loadEnvironment } from '../config/load.js';
import { ALL_ENVIRONMENTS, type EnvironmentSpec, PROJECT_FILE, type Project } from '../config/project.js';
import type { LoadedConfig } from '../config/validate-sources.js';
import { usageError, type WafctlError } from '../core/errors.js';

/** The variables a run reads: the CLI's environment, the library's `env`. */
export type Variables = Readonly<Record<string, string | undefined>>;

/** Where an environment's firewall is; its credentials are read when the connection opens (connection.ts). */
export interface EnvironmentConnection {
  name: string;
  /** The project file, as messages name it. */
  file: string;
  /** Its `url`, or the value of its `url_env`. */
  url: string;
  spec: EnvironmentSpec;
}

/** How a caller names environments, in its refusals. */
export interface SelectionWording {
  /** The option that selects them: `--env`, `environment`. */
  option: string;
  /** What to do when the project declares environments and none is selected. */
  needed: string;
}

/** The environments a run selects, in the order the project declares them. */
export interface SelectedNames {
  project: Project;
  names: string[];
  /** Several, or every one (`all`): each is then run as if it alone were selected. */
  several: boolean;
}

/**
 * The environments `given` selects (`all`: every one) of the project at `root`, or undefined when it
 * declares none and none is given. Refused, before any request: a name with no project, none with
 * one, an unknown name, PATHs other than the root (each environment reads its own).
 */
export function selectedNames(
  { root, project }: { root: string; project: Project | undefined },
  paths: readonly string[],
  given: readonly string[],
  wording: SelectionWording,
): SelectedNames | undefined {
  if (project === undefined) {
    if (given.length === 0) return undefined;
    throw noEnvironments(root, wording.option);
  }
  const declared = project.environments.map((environment) => environment.name);
  if (given.length === 0) {
    throw usageError(`${project.file} declares environments (${declared.join(', ')}): ${wording.needed}`);
  }
  assertDeclared(
    project,
    given.filter((name) => name !== ALL_ENVIRONMENTS),
  );
  const every = given.includes(ALL_ENVIRONMENTS);
  // In the order the project declares them, whatever the order given.
  const names = declared.filter((name) => every || given.includes(name));
  assertRootPaths(project, root, paths);
  return { project, names, several: every || names.length > 1 };
}

/** An environment selected (`option`) where the root's wafctl.yaml declares none. */
export function noEnvironments(root: string, option: string): WafctlError {
  return usageError(
    `${option} selects environments of ${PROJECT_FILE} at the configuration root (${root}), which declares none`,
  );
}

/** Environments read their own paths: the PATHs given (none: `.`) must be the root alone. */
export function assertRootPaths(project: Project, root: string, paths: readonly string[]): void {
  const given = paths.length === 0 ? ['.'] : paths;
  if (given.length === 1 && given[0] === root) return;
  const names = project.environments.map((environment) => environment.name);
  throw usageError(
    `${project.file} declares environments (${names.join(', ')}), which read their own paths: give the configuration root as PATH (or none), not ${given.join(' ')}`,
  );
}

/** Refuses, in one usage error, the names `project` does not declare. */
export function assertDeclared(project: Project, names: readonly string[]): void {
  const declared = project.environments.map((environment) => environment.name);
  const unknown = [...new Set(names.filter((name) => !declared.includes(name)))];
  if (unknown.length === 0) return;
  throw usageError(
    `unknown environment ${unknown.map((name) => JSON.stringify(name)).join(', ')}: ${project.file} declares ${declared.join(', ')}`,
  );
}

/** The environment `name` of `project` (an unknown name is a usage error). */
export function environmentNamed(project: Project, name: string): EnvironmentSpec {
  assertDeclared(project, [name]);
  return project.environments.find((environment) => environment.name === name) as EnvironmentSpec;
}

/**
 * Where `spec`'s firewall is, declared in `file` (as messages name it): its `url`, or the value of
 * the variable its `url_env` names, checked here, before any request.
 */
export function connectionOf(spec: EnvironmentSpec, file: string, env: Variables): EnvironmentConnection {
  return { name: spec.name, file, url: environmentUrl(spec, file, env), spec };
}

/** Its `url`, or the value of the variable `url_env` names; messages name the variable, never a value. */
function environmentUrl(spec: EnvironmentSpec, file: string, env: Variables): string {
  if (spec.url !== undefined) return spec.url;
  const name = spec.url_env ?? '';
  const value = env[name];
  if (value === undefined || value === '') {
    throw usageError(
      `environment ${spec.name}: ${name} is not set (url_env in ${file}): set it to the firewall's URL`,
    );
  }
  if (!/^https?:\/\/\S+$/.test(value)) {
    throw usageError(
      `environment ${spec.name}: ${name} (url_env in ${file}) is not an http:// or https:// URL`,
    );
  }
  return value;
}

/** What a run loads: one environment of the project, or the PATHs. */
export interface LoadTarget {
  paths: readonly string[];
  environment?: EnvironmentSpec | undefined;
}

/** The configuration of `target`: the environment's (its paths, overlays and vars), or the PATHs'. */
export function loadTarget(
  project: Project | undefined,
  target: LoadTarget,
  options: LoadOptions,
): Promise<LoadedConfig> {
  if (project === undefined || target.environment === undefined)
    return loadDesiredState(target.paths, options);
  return loadEnvironment(project, target.environment, options);
}
