/** `wafctl export [--dir DIR] [--kind KIND...]`: the live state as configuration that plans to no changes. */
import { Command } from 'commander';
import { usageError } from '../core/errors.js';
import { redact } from '../core/secrets.js';
import { plural, printable } from '../core/text.js';
import { HYDRATION_CONCURRENCY } from '../ops/defaults.js';
import type { EnvironmentConnection } from '../ops/project.js';
import { ENV_PLACEHOLDER, environmentFlags } from './environments.js';
import type { Io } from './io.js';
import {
  addConnectionOptions,
  addFleetOptions,
  type ConnectionFlags,
  FAMILIES,
  type FleetFlags,
} from './options.js';
import { writeErr, writeOut } from './output.js';
import type { TrustFlags } from './workspace.js';

interface ExportFlags extends FleetFlags, ConnectionFlags, TrustFlags {
  env: string[];
  dir?: string;
  kind?: string[];
  redactSecrets?: boolean;
  force?: boolean;
}

/** `wafctl export`'s options and help; `done` is given the exit code. */
export function exportCommand(io: Io, done: (code: number) => void): Command {
  return addConnectionOptions(
    addFleetOptions(
      new Command('export'),
      "export this environment's firewall (wafctl.yaml in the current directory); with several, --dir holds {env}",
    )
      .description('write the live state as YAML configuration that plans to no changes')
      .option(
        '--dir <DIR>',
        `write one file per kind into DIR instead of stdout (${ENV_PLACEHOLDER} in DIR: each environment's name)`,
      )
      .option('--kind <KIND...>', `only these kinds: ${FAMILIES}`)
      .option(
        '--force',
        'with --dir: also replace files there that export did not write (never symbolic links or directories)',
      )
      .option(
        '--redact-secrets',
        'write [REDACTED] where the live state holds the API token (without it, such an export is refused)',
      ),
  ).action(async (_flags: ExportFlags, command: Command) =>
    done(await exportLive(command.optsWithGlobals<ExportFlags>(), io)),
  );
}

/**
 * With `--env NAME`, that environment of the current directory's wafctl.yaml is exported (its URL and
 * credentials); with several, each in turn into `--dir` with `{env}` replaced by its name, an
 * environment that fails reported after the others are written. Without `--env`, a directory whose
 * wafctl.yaml declares environments is refused, as by every command that reads a firewall.
 */
async function exportLive(flags: ExportFlags, io: Io): Promise<number> {
  const { resolveKinds } = await import('../ops/export/kind-names.js');
  const { selectEnvironment, severalEnvironments } = await import('./environments.js');
  // A bad --kind is reported before any network call.
  resolveKinds(flags.kind);
  const several = await severalEnvironments(io, ['.'], flags, 'export');
  if (several !== undefined) {
    const dir = flags.dir;
    if (dir === undefined || !dir.includes(ENV_PLACEHOLDER)) {
      throw usageError(
        `export writes one environment's firewall, and ${several.length} are selected (${several.join(', ')}): give --dir with ${ENV_PLACEHOLDER} in it (e.g. --dir 'live/${ENV_PLACEHOLDER}') to write each into its own directory`,
      );
    }
    const { reportEnvironmentError } = await import('./multi-environment.js');
    const { worse } = await import('../ops/environments.js');
    let code = 0;
    for (const name of several) {
      try {
        code = worse(
          code,
          await exportLive(
            { ...environmentFlags(flags, name), dir: dir.replaceAll(ENV_PLACEHOLDER, name) },
            io,
          ),
        );
      } catch (error) {
        code = worse(code, reportEnvironmentError(io, error, name));
      }
    }
    return code;
  }
  const selected = await selectEnvironment(io, ['.'], flags, 'export');
  return exportOne(flags, selected?.connection, io);
}

async function exportOne(
  flags: ExportFlags,
  environment: EnvironmentConnection | undefined,
  io: Io,
): Promise<number> {
  const { namesAKind, resolveKinds } = await import('../ops/export/kind-names.js');
  const { readLiveExport, exportToDirectory, exportToStream, assertLoadable, assertNoToken } = await import(
    '../ops/export/export.js'
  );
  const { schemaReference } = await import('../ops/export/schema-reference.js');
  const { countOf } = await import('../ops/export/document.js');
  const { writeExportDirectory } = await import('../ops/export/write-directory.js');
  const { withApiClient } = await import('./connection.js');
  const { noteWriter } = await import('./planning.js');

  const kinds = resolveKinds(flags.kind);
  const named = namesAKind(flags.kind);
  const live = await withApiClient(
    io,
    flags,
    (api) =>
      readLiveExport(api, kinds, {
        concurrency: HYDRATION_CONCURRENCY,
        warn: noteWriter(io, { environment }),
        asked: () => named,
      }),
    { environment },
  );
  for (const { kind, id, key, reason } of live.leftOut) {
    writeErr(io, `Warning: ${kind} ${printable(id)} (${printable(key)}) left out: ${printable(reason)}.`);
  }

  const warnOversized = (files: readonly { name: string }[]) => {
    for (const file of files) {
      const where = file.name === '-' ? 'the export' : file.name;
      writeErr(
        io,
        `Warning: ${where} is larger than the 5 MiB a configuration file may hold, so wafctl cannot load it: split it into several files.`,
      );
    }
    return files.length;
  };
  let warnings = live.leftOut.length;
  const redacted = <F extends { text: string }>(file: F): F =>
    flags.redactSecrets ? { ...file, text: redact(file.text) } : file;
  if (flags.dir === undefined) {
    const file = redacted(exportToStream(live, schemaReference('.', { cwd: io.cwd })));
    assertNoToken([file], undefined, '--redact-secrets');
    warnings += warnOversized(assertLoadable([file]));
    writeOut(io, file.text);
  } else {
    const files = exportToDirectory(live, schemaReference(flags.dir, { cwd: io.cwd })).map(redacted);
    assertNoToken(files, flags.dir, '--redact-secrets');
    warnings += warnOversized(assertLoadable(files));
    await writeExportDirectory(flags.dir, files, { force: flags.force === true, cwd: io.cwd });
    const counts = live.sections.map((s) =>
      s.singleton ? s.section.replaceAll('_', ' ') : countOf(s.section, s.objects.length),
    );
    writeOut(io, `Exported ${counts.join(', ')} to ${plural(files.length, 'file')} in ${flags.dir}.`);
  }
  if (warnings > 0) writeErr(io, `Export finished with ${plural(warnings, 'warning')}.`);
  return 0;
}
