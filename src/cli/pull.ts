/**
 * `wafctl pull [PATH...] [--adopt] [--kind KIND...] [--dry-run]`: write live changes back into the
 * files where the objects are declared, comments and layout kept. Exit 0 written or nothing to do,
 * 1 an error or a conflict (the rest is still written, unless --dry-run). Live objects in a pruned
 * scope that no file declares and that were not adopted are named on stderr: the next apply deletes them.
 */
import { Command } from 'commander';
import { WafctlError } from '../core/errors.js';
import { plural, printable } from '../core/text.js';
import type { Io } from './io.js';
import { addConnectionOptions, type ConnectionFlags, FAMILIES, HYDRATION_CONCURRENCY } from './options.js';
import { writeErr, writeOut, writeTextFile } from './output.js';

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

interface PullFlags extends ConnectionFlags {
  adopt?: boolean;
  kind?: string[];
  dryRun?: boolean;
}

export function pullCommand(io: Io, done: (code: number) => void): Command {
  return addConnectionOptions(
    new Command('pull')
      .description('write live changes back into the YAML files that declare the objects (comments kept)')
      .argument('[PATH...]', 'files or directories of YAML configuration', ['.'])
      .option('--adopt', 'also append in-scope live objects that no file declares')
      .option('--kind <KIND...>', `only these kinds: ${FAMILIES}`)
      .option('--dry-run', 'print a unified diff of every file that would change, and write nothing'),
  ).action(async (paths: string[], _flags: PullFlags, command: Command) =>
    done(await pull(paths, command.optsWithGlobals<PullFlags>(), io)),
  );
}

async function pull(paths: string[], flags: PullFlags, io: Io): Promise<number> {
  const { resolveKinds } = await import('../ops/export/kind-names.js');
  const { loadDesiredState } = await import('../config/load.js');
  const { preparePull, assertUnchanged } = await import('../ops/pull/pull.js');
  const { withApiClient } = await import('./connection.js');
  const { createTwoFilesPatch } = await import('diff');
  const { address } = await import('../plan/render/summary.js');

  // A bad --kind and configuration problems are reported before any network call.
  const kinds = resolveKinds(flags.kind);
  const { refuseEnvironments } = await import('./planning.js');
  await refuseEnvironments(io, paths, 'pull');
  const config = await loadDesiredState(paths, { cwd: io.cwd, env: io.env });
  const result = await withApiClient(io, flags, (api) =>
    preparePull(config, api, {
      paths,
      kinds,
      adopt: flags.adopt === true,
      concurrency: HYDRATION_CONCURRENCY,
      warn: (line) => writeErr(io, `Note: ${line}.`),
      env: io.env,
      cwd: io.cwd,
    }),
  );
  const { decision, files, leftOut, unadopted } = result;
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
