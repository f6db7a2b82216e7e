/**
 * `--env NAME` on plan, drift, apply, pull and export: which environment of the root's wafctl.yaml a
 * run works on, and where its firewall is. Commands that take several (`--env all`, a glob, `--env`
 * repeated, narrowed by `--exclude-env` and `--shard K/N` or WAFCTL_SHARD: `fleetSelection`) ask
 * `severalEnvironments` first and run each as if it alone were selected
 * (multi-environment.ts, ops/apply/workflow.ts); `selectEnvironment` gives one. What is not the
 * CLI's own (the checks of a selection, the environment's URL and configuration) is ops/project.ts,
 * which the library selects with too; this file adds the trusted ref, several environments and the
 * flags. The environment's token or sign-in is read when the connection opens (connection.ts,
 * ops/connection.ts), from the variables it names, and registered for redaction there.
 */
import type { EnvironmentSpec, Project } from '../config/project.js';
import { usageError } from '../core/errors.js';
import type { EnvironmentConnection, SelectedNames, SelectionWording } from '../ops/project.js';
import type { Shard } from '../ops/shard.js';
import type { Io } from './io.js';
import { type ConnectionFlags, type FleetFlags, SHARD_VARIABLE } from './options.js';
import { writeErr } from './output.js';
// Types only: this module is loaded with the commands' definitions (`{env}`); the workspace and the
// project's environments (zod, yaml, git) only when a command runs.
import type { TrustFlags, Workspace } from './workspace.js';

export interface SelectedEnvironment {
  workspace: Workspace;
  /** The work tree's project: the environment's paths and vars. */
  project: Project;
  environment: EnvironmentSpec;
  /** Its connection: with a trusted ref, the trusted ref's declaration of it. */
  connection: EnvironmentConnection;
}

/** The flags that select environments and say where their configuration and connections are read. */
export type EnvironmentFlags = ConnectionFlags & TrustFlags & FleetFlags & { env?: string[] | undefined };

export type EnvironmentCommand = 'plan' | 'drift' | 'apply' | 'pull' | 'export' | 'get';

const VERB: Record<EnvironmentCommand, string> = {
  plan: 'plan',
  drift: 'check for drift',
  apply: 'apply',
  pull: 'pull',
  export: 'export',
  get: 'read from',
};

/** In a file or directory name (`plan --out`, `export --dir`), each selected environment's name. */
export const ENV_PLACEHOLDER = '{env}';

/** The flags that say where and as whom to connect, which an environment says instead. */
const CONFLICTING: [keyof ConnectionFlags, string][] = [
  ['url', '--url'],
  ['tokenFile', '--token-file'],
  ['passwordFile', '--password-file'],
];

/**
 * The environment `--env` selects, or undefined when the root declares none and no `--env` is given
 * (today's behaviour). Refuses, before any request: a root with environments and no `--env`; `--env`
 * on a root without; several environments or `--env all` (plan and drift run each one through this
 * function: `severalEnvironments`); an unknown name; PATHs other than the root; `--url`,
 * `--token-file` or `--password-file` with `--env`; an unset `url_env` variable.
 */
export async function selectEnvironment(
  io: Io,
  paths: readonly string[],
  flags: EnvironmentFlags,
  command: EnvironmentCommand,
): Promise<SelectedEnvironment | undefined> {
  const selection = await resolveSelection(io, paths, flags, command);
  if (selection === undefined) return undefined;
  const { workspace, project, names, several } = selection;
  if (several) throw severalRefused(names, command);
  const name = names[0] ?? '';
  const connection = await environmentConnection(workspace, name, io);
  const { environmentNamed } = await import('../ops/project.js');
  return { workspace, project, environment: environmentNamed(project, name), connection };
}

/**
 * The environment `--env NAME` selects (undefined without one), and the run's workspace: the
 * selection's, else the one of the PATHs.
 */
export async function selectWorkspace(
  io: Io,
  paths: readonly string[],
  flags: EnvironmentFlags,
  command: EnvironmentCommand,
): Promise<{ selected: SelectedEnvironment | undefined; workspace: Workspace }> {
  const selected = await selectEnvironment(io, paths, flags, command);
  if (selected !== undefined) return { selected, workspace: selected.workspace };
  const { openWorkspace } = await import('./workspace.js');
  return { selected, workspace: await openWorkspace(io, paths, flags) };
}

/**
 * The environments `--env all` or several `--env` select, in the order wafctl.yaml declares them,
 * after the checks every run makes (PATHs, conflicting flags), before any request; undefined when
 * one environment (or none) is selected. Each is then run as if it alone were given (`--env NAME`).
 */
export async function severalEnvironments(
  io: Io,
  paths: readonly string[],
  flags: EnvironmentFlags,
  command: 'plan' | 'drift' | 'apply' | 'export',
): Promise<string[] | undefined> {
  const selection = await resolveSelection(io, paths, flags, command);
  return selection?.several ? selection.names : undefined;
}

const severalRefused = (names: readonly string[], command: EnvironmentCommand) =>
  usageError(
    names.length > 1
      ? `${command} takes one --env NAME here, not several (${names.join(', ')})`
      : `${command} takes one --env NAME here: all, a glob, --exclude-env and --shard select a fleet`,
  );

/**
 * The shard of a run: `--shard K/N`, else WAFCTL_SHARD (empty: unset), checked (a usage error
 * naming the variable and the expected form).
 */
export async function shardOf(flags: FleetFlags, env: Io['env']): Promise<Shard | undefined> {
  if (flags.shard !== undefined) return flags.shard;
  const value = env[SHARD_VARIABLE];
  if (value === undefined || value === '') return undefined;
  const { readShard } = await import('../ops/shard.js');
  const read = readShard(SHARD_VARIABLE, value);
  if ('problem' in read) throw usageError(read.problem);
  return read;
}

/**
 * The flags of environment `name`'s own run inside a fleet run: that environment alone, the fleet's
 * globs, exclusions and shard already applied (and WAFCTL_SHARD not read again).
 */
export function environmentFlags<F extends EnvironmentFlags>(flags: F, name: string): F {
  return { ...flags, env: [name], excludeEnv: undefined, shard: undefined, withinFleet: true };
}

/** How a command selects (`fleetSelection`). */
export interface FleetSelectionOptions {
  /** What `--env` gives when the command has a default of its own (validate: `all`). */
  given?: readonly string[] | undefined;
  /** A command of one environment (get, pull): WAFCTL_SHARD, set for a fleet's jobs, is not its. */
  one?: boolean | undefined;
}

/**
 * The environments `given` (default: `--env`), less `--exclude-env`, then the shard (`--shard` or
 * WAFCTL_SHARD) select of the workspace's project (ops/project.ts `selectedNames`). A shard that
 * holds none of them is said on stderr: the run then has nothing to do and exits 0, so a CI matrix
 * job or an Indexed Job whose part is empty succeeds.
 */
export async function fleetSelection(
  io: Io,
  workspace: Workspace,
  paths: readonly string[],
  flags: EnvironmentFlags,
  wording: SelectionWording,
  { given = flags.env ?? [], one = false }: FleetSelectionOptions = {},
): Promise<SelectedNames | undefined> {
  const { selectedNames } = await import('../ops/project.js');
  const shard = one || flags.withinFleet ? flags.shard : await shardOf(flags, io.env);
  const selection = selectedNames(workspace, paths, given, wording, { exclude: flags.excludeEnv, shard });
  if (selection?.sharded !== undefined && selection.names.length === 0) {
    const {
      shard: { k, n },
      of,
    } = selection.sharded;
    writeErr(
      io,
      `Note: shard ${k}/${n} holds none of the ${of} selected environment${of === 1 ? '' : 's'}: nothing to do.`,
    );
  }
  return selection;
}

async function resolveSelection(
  io: Io,
  paths: readonly string[],
  flags: EnvironmentFlags,
  command: EnvironmentCommand,
): Promise<({ workspace: Workspace } & SelectedNames) | undefined> {
  const { openWorkspace } = await import('./workspace.js');
  const workspace = await openWorkspace(io, paths, flags);
  const { project, trusted } = workspace;
  if (project === undefined && trusted?.project !== undefined) {
    throw usageError(
      `${trusted.project.file} at the trusted ref ${trusted.tree.ref} declares environments and the work tree's does not: removing the environments cannot be planned with --trusted-ref`,
    );
  }
  const wording = {
    option: '--env',
    needed: `pass --env NAME to choose the one to ${VERB[command]}; nothing was read from the firewall. \`wafctl validate\` checks every environment.`,
  };
  const one = command === 'get' || command === 'pull';
  const selection = await fleetSelection(io, workspace, paths, flags, wording, { one });
  if (selection === undefined) return undefined;
  const conflicting = CONFLICTING.filter(([key]) => flags[key] !== undefined).map(([, flag]) => flag);
  if (conflicting.length > 0) {
    const { names, several } = selection;
    const whose = several
      ? `environments ${names.join(', ')} take their URLs`
      : `environment ${names[0]} takes its URL`;
    throw usageError(
      `${conflicting.join(' and ')} cannot be combined with --env: ${whose} and credentials from ${selection.project.file}`,
    );
  }
  return { workspace, ...selection };
}

/**
 * The connection of the environment `name`, as `--env NAME` builds it (its URL read and checked here,
 * its credentials when the connection opens): from the work tree's wafctl.yaml, or with a trusted ref
 * from the trusted ref's, which must declare it. Also for commands that talk to several environments'
 * firewalls in one run (`compare A B`). An unknown name is a usage error.
 */
export async function environmentConnection(
  workspace: Workspace,
  name: string,
  io: Io,
): Promise<EnvironmentConnection> {
  const { connectionsProject, trustedEnvironment } = await import('./workspace.js');
  const { connectionOf, environmentNamed } = await import('../ops/project.js');
  const project = connectionsProject(workspace);
  const { trusted } = workspace;
  if (trusted !== undefined) trustedEnvironment(trusted, name); // refuses one the trusted ref lacks
  if (project === undefined)
    throw usageError(`unknown environment ${JSON.stringify(name)}: no environments are declared`);
  const file = trusted === undefined ? project.file : `${trusted.tree.ref}:${project.file}`;
  return connectionOf(environmentNamed(project, name), file, io.env);
}
