/**
 * One server, one owner per object. Two environments of a project whose connections reach the same
 * server would each plan the other's objects: both create what both declare (duplicates when they
 * run at once, as `apply --env all` does), and one's prune deletes what the other declares. So on
 * one server, environments must own disjoint parts: for each family both claim (declare an object
 * of it, or prune it), their `manage` scopes must match no common object, which core/scope.ts
 * decides exactly from the globs. A singleton family (network_rule_settings) is one object: two
 * environments declaring it both own it.
 *
 * The same server: the same `url` (scheme, host and port, path without a trailing slash, as URL
 * parsing normalises them), or the same value of their `url_env` variables, or, with a variable
 * unset, the same variable. `embedded` is a server of each run's own.
 */

import type { Environment as Variables } from '../config/env.js';
import { ConfigError } from '../config/problems.js';
import type { EnvironmentSpec, Project } from '../config/project.js';
import { declaredObjects, scopeOf } from '../config/schema.js';
import type { LoadedConfig } from '../config/validate-sources.js';
import { scopesOverlap } from '../core/scope.js';
import { KINDS, type Kind } from '../kinds/index.js';

/** A server as `sameServer` compares them; undefined for `embedded`. */
export function serverOf(spec: EnvironmentSpec, env: Variables): string | undefined {
  const url = spec.url ?? (spec.url_env === undefined ? undefined : env[spec.url_env]);
  if (url === 'embedded') return undefined;
  if (url === undefined || url === '') return spec.url_env === undefined ? undefined : `$${spec.url_env}`;
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname.replace(/\/+$/, '')}`;
  } catch {
    return url;
  }
}

/** Whether the configuration claims the family: declares an object of it, or prunes it. */
function claims(config: LoadedConfig, kind: Kind): boolean {
  if (declaredObjects(config.state, kind).length > 0) return true;
  return !kind.singleton && scopeOf(config.state, kind).prune;
}

/** The families both configurations claim with overlapping scopes. */
export function sharedFamilies(a: LoadedConfig, b: LoadedConfig, kinds: readonly Kind[] = KINDS): Kind[] {
  return kinds.filter((kind) => {
    if (!claims(a, kind) || !claims(b, kind)) return false;
    return kind.singleton === true || scopesOverlap(scopeOf(a.state, kind), scopeOf(b.state, kind));
  });
}

/** An environment as the check takes it: its name, its server, its loaded configuration. */
export interface Owner {
  name: string;
  server: string;
  config: LoadedConfig;
}

/** The problem of `project` naming `other` (wafctl.yaml holds no positions of its environments here). */
function ownershipProblem(project: Project, other: string, message: string): ConfigError {
  return new ConfigError([{ file: project.file, line: 0, col: 0, path: `environments.${other}`, message }]);
}

/** Refuses `owner` when it shares a family of its server with `other` (see the module comment). */
export function assertOneOwner(project: Project, owner: Owner, other: Owner): void {
  const shared = sharedFamilies(owner.config, other.config);
  if (shared.length === 0) return;
  const sections = shared.map((kind) => kind.section);
  const fix = shared.some((kind) => kind.singleton)
    ? 'declare it in one environment only'
    : `give them disjoint scopes (manage.${sections[0]}.match) or servers of their own`;
  throw ownershipProblem(
    project,
    other.name,
    `environments ${owner.name} and ${other.name} both reach ${other.server} and both manage its ${sections.join(', ')} with overlapping scopes: each would plan the other's objects (creating them twice, pruning them); ${fix}`,
  );
}

/**
 * Checks `config`, environment `spec`'s, against each other environment of `project` on the same
 * server, loaded by `load` (see the module comment). One that does not load is a problem too: who
 * owns what on the server cannot be known.
 */
export async function checkOneOwner(
  project: Project,
  spec: EnvironmentSpec,
  config: LoadedConfig,
  env: Variables,
  load: (other: EnvironmentSpec) => Promise<LoadedConfig>,
): Promise<void> {
  const server = serverOf(spec, env);
  if (server === undefined) return;
  for (const other of project.environments) {
    if (other.name === spec.name || serverOf(other, env) !== server) continue;
    let theirs: LoadedConfig;
    try {
      theirs = await load(other);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      throw ownershipProblem(
        project,
        other.name,
        `environment ${other.name} reaches the same server as ${spec.name} (${server}) and its configuration does not load (wafctl validate --env ${other.name}): who owns which objects there cannot be checked`,
      );
    }
    assertOneOwner(
      project,
      { name: spec.name, server, config },
      { name: other.name, server, config: theirs },
    );
  }
}
