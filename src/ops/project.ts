/**
 * The environments of a project (wafctl.yaml at the configuration root declaring `environments:`), as
 * a run selects and uses them: which are selected, what is refused before any request, where an
 * environment's firewall is (its `url`, or the variable its `url_env` names) and its configuration
 * (its paths, overlays and vars). The CLI selects with `--env` (names, `all`, globs), less
 * `--exclude-env`, then one shard of them (`--shard K/N`, shard.ts); cli/environments.ts adds the
 * trusted ref, WAFCTL_SHARD and several environments per run. The library selects with its
 * `environment` option. Nothing here reads the process: the caller gives the variables
 * (`Variables`) and the load options.
 */
import { policyPinned } from '../config/env.js';
import { type LoadOptions, loadDesiredState, loadEnvironment } from '../config/load.js';
import { ALL_ENVIRONMENTS, type EnvironmentSpec, PROJECT_FILE, type Project } from '../config/project.js';
import type { LoadedConfig } from '../config/validate-sources.js';
import { usageError, type WafctlError } from '../core/errors.js';
import { globMatcher, isGlob } from '../core/glob.js';
import { checkOneOwner } from './one-owner.js';
import { inShard, type Shard } from './shard.js';

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
  /** Empty only when a shard holds none of the selected environments (not an error: `sharded`). */
  names: string[];
  /**
   * Run as a fleet, each environment as if it alone were selected: more than one selected, or
   * selected by `all`, a glob, an exclusion or a shard, whatever their number (so the output's
   * shape, and whether a one-environment command refuses it, never depends on how many match).
   */
  several: boolean;
  /** With a shard: which one, and how many environments were selected before it was taken. */
  sharded?: { shard: Shard; of: number } | undefined;
}

/** What narrows a selection after `--env`: `--exclude-env` patterns, then `--shard K/N`. */
export interface SelectionFilters {
  exclude?: readonly string[] | undefined;
  shard?: Shard | undefined;
}

/** The option that excludes (only the CLI's runs exclude). */
const EXCLUDE_OPTION = '--exclude-env';

/** Whether an `--env` value is a glob (`*` any run, `?` one character): environment names have neither. */
export const isEnvironmentGlob = (value: string): boolean => isGlob(value);

/**
 * The environments `given` selects (`all`: every one; a glob: those it matches) of the project at
 * `root`, less those `filters.exclude` matches, then shard `filters.shard` of them; undefined when
 * the root declares none and none is given. Refused, before any request: a name with no project,
 * none with one, an unknown name, a glob or exclusion matching no environment, a selection that
 * excludes every environment, PATHs other than the root (each environment reads its own). An empty
 * shard is no error: a CI job whose part of the fleet is empty has nothing to do.
 */
export function selectedNames(
  { root, project }: { root: string; project: Project | undefined },
  paths: readonly string[],
  given: readonly string[],
  wording: SelectionWording,
  filters: SelectionFilters = {},
): SelectedNames | undefined {
  if (project === undefined) {
    if (given.length === 0) return undefined;
    throw noEnvironments(root, wording.option);
  }
  const declared = project.environments.map((environment) => environment.name);
  if (given.length === 0) {
    throw usageError(`${project.file} declares environments (${declared.join(', ')}): ${wording.needed}`);
  }
  const exclude = filters.exclude ?? [];
  const matched = matching(project, given, wording.option);
  const excluded = matching(project, exclude, EXCLUDE_OPTION);
  const kept = matched.filter((name) => !excluded.includes(name));
  if (kept.length === 0) {
    throw usageError(
      `${[...given.map((value) => `${wording.option} ${value}`), ...exclude.map((value) => `${EXCLUDE_OPTION} ${value}`)].join(' ')} leaves no environment: ${project.file} declares ${declared.join(', ')}`,
    );
  }
  assertRootPaths(project, root, paths);
  const { shard } = filters;
  const names = shard === undefined ? kept : inShard(kept, shard);
  const fleet = given.some((value) => value === ALL_ENVIRONMENTS || isEnvironmentGlob(value));
  const several = fleet || exclude.length > 0 || shard !== undefined || names.length > 1;
  return { project, names, several, sharded: shard === undefined ? undefined : { shard, of: kept.length } };
}

/**
 * The declared environments the `values` of `option` select (names, globs, `all`), in declared
 * order; an unknown name, or a glob matching none, is a usage error naming the declared ones.
 */
function matching(project: Project, values: readonly string[], option: string): string[] {
  const declared = project.environments.map((environment) => environment.name);
  const globs = values.filter(isEnvironmentGlob).map((glob) => ({ glob, matches: globMatcher(glob) }));
  const unmatched = globs.filter(({ matches }) => !declared.some(matches));
  if (unmatched.length > 0) {
    throw usageError(
      `${unmatched.map(({ glob }) => `${option} ${JSON.stringify(glob)}`).join(', ')} ${unmatched.length === 1 ? 'matches' : 'match'} no environment: ${project.file} declares ${declared.join(', ')}`,
    );
  }
  const every = values.includes(ALL_ENVIRONMENTS);
  const names = values.filter((value) => value !== ALL_ENVIRONMENTS && !isEnvironmentGlob(value));
  // The CLI's --env also takes `all`: said, as the names are.
  assertDeclared(project, names, option === '--env' ? ` (or --env ${ALL_ENVIRONMENTS})` : '');
  return declared.filter(
    (name) => every || names.includes(name) || globs.some(({ matches }) => matches(name)),
  );
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

/** Refuses, in one usage error, the names `project` does not declare; `alternatives`: what else the option takes. */
export function assertDeclared(project: Project, names: readonly string[], alternatives = ''): void {
  const declared = project.environments.map((environment) => environment.name);
  const unknown = [...new Set(names.filter((name) => !declared.includes(name)))];
  if (unknown.length === 0) return;
  throw usageError(
    `unknown environment ${unknown.map((name) => JSON.stringify(name)).join(', ')}: ${project.file} declares ${declared.join(', ')}${alternatives}`,
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
  return loadOwnedEnvironment(project, target.environment, options);
}

/**
 * An environment's configuration, refused when another environment on its server manages the same
 * objects (one-owner.ts). A policy-only load declares nothing, and under a trusted ref the work
 * tree's scopes are not the ones in force: the check is made by the loads that own the objects.
 */
async function loadOwnedEnvironment(
  project: Project,
  spec: EnvironmentSpec,
  options: LoadOptions,
): Promise<LoadedConfig> {
  const config = await loadEnvironment(project, spec, options);
  if (options.policyOnly === true || policyPinned(options)) return config;
  await checkOneOwner(project, spec, config, options.env, (other) =>
    loadEnvironment(project, other, options),
  );
  return config;
}
