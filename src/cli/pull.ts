/**
 * `wafctl pull [PATH...] [--adopt] [--kind KIND...] [--dry-run] [--env NAME]`: write live changes back
 * into the files where the objects are declared, comments and layout kept. Exit 0 written or nothing
 * to do, 1 an error or a conflict (the rest is still written, unless --dry-run). Live objects in a
 * pruned scope that no file declares and that were not adopted are named on stderr: the next apply
 * deletes them.
 *
 * `--env NAME` pulls one environment of wafctl.yaml (its paths, vars and firewall): each changed value
 * goes into the path that set it (ops/pull/environment.ts), and a change to a file other environments
 * read too is said on stderr. One environment per run: two environments' firewalls may disagree on a
 * value their shared base sets, and pulling both would write it twice, the second over the first.
 */
import { Command } from 'commander';
import { usageError, WafctlError } from '../core/errors.js';
import { plural, printable } from '../core/text.js';
import type { Io } from './io.js';
import {
  addConnectionOptions,
  addEnvironmentOption,
  type ConnectionFlags,
  FAMILIES,
  HYDRATION_CONCURRENCY,
} from './options.js';
import { writeErr, writeOut, writeTextFile } from './output.js';
import type { TrustFlags } from './workspace.js';

/** How many of the objects the next apply would delete the warning names. */
const SHOWN_UNADOPTED = 10;

/**
 * The warning that the next apply deletes live objects no file declares (in a pruned scope), which
 * this pull did not adopt; undefined when there are none. `names` are their addresses, one per object.
 */
export function unadoptedWarning(names: readonly string[], adopt: boolean): string | undefined {
  const n = names.length;
  if (n === 0) return undefined;
  const unique = [...new Set(names)];
  const shown = unique.slice(0, SHOWN_UNADOPTED).join(', ');
  const more = unique.length > SHOWN_UNADOPTED ? ` and ${unique.length - SHOWN_UNADOPTED} more` : '';
  const one = n === 1;
  const why = adopt
    ? `could not be adopted (see above)`
    : `${one ? 'was' : 'were'} not adopted (use --adopt)`;
  return `Warning: ${plural(n, 'live object')} ${one ? 'is' : 'are'} not in the files and ${why}; apply would delete ${one ? 'it' : 'them'}: ${shown}${more}.`;
}

interface PullFlags extends ConnectionFlags, TrustFlags {
  adopt?: boolean;
  kind?: string[];
  dryRun?: boolean;
  env?: string[];
}

export function pullCommand(io: Io, done: (code: number) => void): Command {
  return addConnectionOptions(
    addEnvironmentOption(
      new Command('pull')
        .description('write live changes back into the YAML files that declare the objects (comments kept)')
        .argument('[PATH...]', 'files or directories of YAML configuration', ['.'])
        .option('--adopt', 'also append in-scope live objects that no file declares')
        .option('--kind <KIND...>', `only these kinds: ${FAMILIES}`)
        .option('--dry-run', 'print a unified diff of every file that would change, and write nothing'),
      'pull this environment of wafctl.yaml: its paths, vars and firewall; each value goes into the path that set it',
    ),
  ).action(async (paths: string[], _flags: PullFlags, command: Command) =>
    done(await pull(paths, command.optsWithGlobals<PullFlags>(), io)),
  );
}

async function pull(paths: string[], flags: PullFlags, io: Io): Promise<number> {
  const { resolveKinds } = await import('../ops/export/kind-names.js');
  const { preparePull, assertUnchanged } = await import('../ops/pull/pull.js');
  const { withApiClient } = await import('./connection.js');
  const { createTwoFilesPatch } = await import('diff');
  const { address } = await import('../plan/render/summary.js');

  // A bad --kind, the choice of environment and configuration problems are reported before any
  // network call.
  const kinds = resolveKinds(flags.kind);
  const { config, connection, env, environment } = await loadForPull(io, paths, flags);
  const result = await withApiClient(io, connection, (api) =>
    preparePull(config, api, {
      paths,
      kinds,
      adopt: flags.adopt === true,
      concurrency: HYDRATION_CONCURRENCY,
      warn: (line) => writeErr(io, `Note: ${line}.`),
      env,
      cwd: io.cwd,
      ...(environment === undefined ? {} : { environment }),
    }),
  );
  const { decision, files, leftOut, unadopted, shared } = result;
  for (const { kind, id, key, reason } of leftOut) {
    writeErr(io, `Warning: ${kind} ${printable(id)} (${printable(key)}) not adopted: ${printable(reason)}.`);
  }
  const deleted = unadoptedWarning(unadopted.map(address), flags.adopt === true);
  if (deleted !== undefined) writeErr(io, deleted);
  for (const c of decision.conflicts) {
    writeErr(
      io,
      `Error: ${printable(c.file)}:${c.line}:${c.col}: ${c.kind}.${printable(c.key)}: ${printable(c.reason)}; nothing was pulled for it.`,
    );
  }

  for (const { file, environments } of shared) {
    const whom = `${environments.length === 1 ? 'environment' : 'environments'} ${environments.join(', ')}`;
    writeErr(
      io,
      `Note: ${printable(file)} is shared with ${whom}: this change applies to ${environments.length === 1 ? 'it' : 'them'} too.`,
    );
  }

  if (flags.dryRun) {
    for (const file of files) {
      const from = file.created ? '/dev/null' : `a/${file.file}`;
      writeOut(
        io,
        createTwoFilesPatch(from, `b/${file.file}`, file.before, file.after, '', '', { context: 3 }),
      );
    }
  } else {
    await assertUnchanged(files, io.cwd);
    for (const file of files) await writeTextFile(io, file.file, file.after, { atomic: true });
  }

  const counts = [
    decision.updated > 0 ? `${decision.updated} updated` : '',
    decision.removed > 0 ? `${decision.removed} removed` : '',
    decision.adopted > 0 ? `${decision.adopted} adopted` : '',
  ].filter((part) => part !== '');
  const n = decision.conflicts.length;
  if (files.length === 0 && n === 0) writeOut(io, 'Nothing to pull: the files match the firewall.');
  else if (files.length > 0) {
    const verb = flags.dryRun ? 'Would pull' : 'Pulled';
    writeOut(
      io,
      `${verb} ${plural(decision.updated + decision.removed + decision.adopted, 'object')} (${counts.join(', ')}) into ${plural(files.length, 'file')}.`,
    );
  }
  if (n > 0) {
    throw new WafctlError(
      'PLAN_REFUSED',
      `${plural(n, 'object')} could not be pulled (see above)${files.length > 0 && !flags.dryRun ? '; the rest was written' : ''}.`,
      { userFault: true },
    );
  }
  return 0;
}

/**
 * The configuration to pull and where to connect: without `--env`, the PATHs' (refused on a root
 * that declares environments, asking for --env NAME: `selectEnvironment`); with `--env NAME`, that
 * environment's paths and vars, and its connection. Several environments are refused here, saying
 * why (see the module comment).
 */
async function loadForPull(io: Io, paths: readonly string[], flags: PullFlags) {
  const { withEnvironmentVars } = await import('../config/env.js');
  const { ALL_ENVIRONMENTS } = await import('../config/project.js');
  const { selectEnvironment } = await import('./environments.js');
  const { openWorkspace, loadWorkspaceConfig } = await import('./workspace.js');
  const { pullEnvironment } = await import('../ops/pull/environment.js');
  const given = [...new Set(flags.env ?? [])];
  if (given.length > 1 || given.includes(ALL_ENVIRONMENTS)) {
    const { project } = await openWorkspace(io, paths, flags);
    if (project !== undefined) {
      const names = given.includes(ALL_ENVIRONMENTS)
        ? project.environments.map((environment) => environment.name)
        : given;
      throw usageError(
        `pull takes one environment per run, not ${names.join(', ')}: environments that share a path could each write a different value into the same file; pull them one at a time (--env NAME), reviewing each. Nothing was read from the firewall.`,
      );
    }
  }
  const selected = await selectEnvironment(io, paths, flags, 'pull');
  const workspace = selected?.workspace ?? (await openWorkspace(io, paths, flags));
  // With a trusted ref, its allow-list and `manage` (what --adopt may take) apply (workspace.ts).
  const { config } = await loadWorkspaceConfig(io, workspace, { paths, environment: selected?.environment });
  if (selected === undefined) {
    return { config, connection: flags as ConnectionFlags, env: io.env, environment: undefined };
  }
  const { project, environment: spec } = selected;
  const environment = await pullEnvironment(project, spec, io.cwd);
  return {
    config,
    connection: { ...flags, environment: selected.connection } as ConnectionFlags,
    env: withEnvironmentVars(io.env, { name: spec.name, vars: spec.vars }),
    environment,
  };
}
