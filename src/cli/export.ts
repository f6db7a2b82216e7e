/** `wafctl export [--dir DIR] [--kind KIND...]`: the live state as configuration that plans to no changes. */
import { join } from 'node:path';
import { Command } from 'commander';
import { usageError } from '../core/errors.js';
import { containsSecret, REDACTED, redact } from '../core/secrets.js';
import { plural, printable } from '../core/text.js';
import { ENV_PLACEHOLDER } from './environments.js';
import type { Io } from './io.js';
import {
  addConnectionOptions,
  addEnvironmentOption,
  type ConnectionFlags,
  FAMILIES,
  HYDRATION_CONCURRENCY,
} from './options.js';
import { writeErr, writeOut } from './output.js';
import type { TrustFlags } from './workspace.js';

interface ExportFlags extends ConnectionFlags, TrustFlags {
  env: string[];
  dir?: string;
  kind?: string[];
  redactSecrets?: boolean;
  force?: boolean;
}

/**
 * The export is configuration: printed with the token replaced by [REDACTED] (as writeOut would),
 * it would silently plan to a change, and written to a file it would put the token in git. Either is
 * refused, naming the line, unless the user asked for it redacted.
 */
function assertNoToken(files: readonly { name: string; text: string }[], dir?: string): void {
  for (const { name, text } of files) {
    if (!containsSecret(text)) continue;
    const line = text.split('\n').findIndex(containsSecret) + 1;
    const action = dir === undefined ? 'print the export' : `write ${join(dir, name)}`;
    throw usageError(
      `refusing to ${action}: the live state holds the API token${line > 0 ? ` (line ${line})` : ''}, which an export must neither show as ${REDACTED} nor write out. Pass --redact-secrets to export it redacted on purpose (it will then not plan to no changes).`,
    );
  }
}

export function exportCommand(io: Io, done: (code: number) => void): Command {
  return addConnectionOptions(
    addEnvironmentOption(
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
    const { reportEnvironmentError, worse } = await import('./multi-environment.js');
    let code = 0;
    for (const name of several) {
      try {
        code = worse(
          code,
          await exportLive({ ...flags, env: [name], dir: dir.replaceAll(ENV_PLACEHOLDER, name) }, io),
        );
      } catch (error) {
        code = worse(code, reportEnvironmentError(io, error, name));
      }
    }
    return code;
  }
  const selected = await selectEnvironment(io, ['.'], flags, 'export');
  return exportOne(selected === undefined ? flags : { ...flags, environment: selected.connection }, io);
}

async function exportOne(flags: ExportFlags, io: Io): Promise<number> {
  const { resolveKinds } = await import('../ops/export/kind-names.js');
  const { readLiveExport, exportToDirectory, exportToStream, assertLoadable } = await import(
    '../ops/export/export.js'
  );
  const { schemaReference } = await import('../ops/export/schema-reference.js');
  const { countOf } = await import('../ops/export/document.js');
  const { writeExportDirectory } = await import('../ops/export/write-directory.js');
  const { withApiClient } = await import('./connection.js');
  const { noteWriter } = await import('./planning.js');

  const kinds = resolveKinds(flags.kind);
  // A family named with --kind was asked for: one the server lacks or hides is an error, as in `get`.
  const named = (flags.kind ?? []).some((names) => names.split(',').some((name) => name.trim() !== ''));
  const live = await withApiClient(io, flags, (api) =>
    readLiveExport(api, kinds, {
      concurrency: HYDRATION_CONCURRENCY,
      warn: noteWriter(io, flags),
      asked: () => named,
    }),
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
    assertNoToken([file]);
    warnings += warnOversized(assertLoadable([file]));
    writeOut(io, file.text);
  } else {
    const files = exportToDirectory(live, schemaReference(flags.dir, { cwd: io.cwd })).map(redacted);
    assertNoToken(files, flags.dir);
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
