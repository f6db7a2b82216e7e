/** `wafctl export [--dir DIR] [--kind KIND...]`: the live state as configuration that plans to no changes. */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Command } from 'commander';
import { usageError } from '../errors.js';
import { plural, printable } from '../text.js';
import { addConnectionOptions, type ConnectionFlags, HYDRATION_CONCURRENCY } from './options.js';
import { writeErr, writeOut, writeTextFile } from './output.js';

interface ExportFlags extends ConnectionFlags {
  dir?: string;
  kind?: string[];
}

async function writeFiles(dir: string, files: readonly { name: string; text: string }[]): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
  } catch (error) {
    throw usageError(
      `cannot create ${dir}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
      error,
    );
  }
  for (const file of files) await writeTextFile(join(dir, file.name), file.text);
}

export function exportCommand(): Command {
  return addConnectionOptions(
    new Command('export')
      .description('write the live state as YAML configuration that plans to no changes')
      .option('--dir <DIR>', 'write one file per kind into DIR instead of stdout')
      .option('--kind <KIND...>', 'only these kinds: groups, application-rules, notifications, schedules'),
  ).action(async (_flags: ExportFlags, command: Command) => {
    const flags = command.optsWithGlobals<ExportFlags>();
    const { resolveKinds } = await import('../export/kind-names.js');
    const { readLiveExport, exportToDirectory, exportToStream, assertLoadable } = await import(
      '../export/export.js'
    );
    const { schemaReference } = await import('../export/schema-reference.js');
    const { countOf } = await import('../export/document.js');
    const { withApiClient } = await import('./connection.js');

    // A bad --kind is reported before any network call.
    const kinds = resolveKinds(flags.kind);
    const live = await withApiClient(flags, (api) =>
      readLiveExport(api, kinds, { concurrency: HYDRATION_CONCURRENCY }),
    );
    for (const { kind, id, key, reason } of live.leftOut) {
      writeErr(`Warning: ${kind} ${printable(id)} (${printable(key)}) left out: ${printable(reason)}.`);
    }

    const warnOversized = (files: readonly { name: string }[]) => {
      for (const file of files) {
        const where = file.name === '-' ? 'the export' : file.name;
        writeErr(
          `Warning: ${where} is larger than the 5 MiB a configuration file may hold, so wafctl cannot load it: split it into several files.`,
        );
      }
      return files.length;
    };
    let warnings = live.leftOut.length;
    if (flags.dir === undefined) {
      const file = exportToStream(live, schemaReference('.'));
      warnings += warnOversized(assertLoadable([file]));
      writeOut(file.text);
    } else {
      const files = exportToDirectory(live, schemaReference(flags.dir));
      warnings += warnOversized(assertLoadable(files));
      await writeFiles(flags.dir, files);
      const counts = live.sections.map((s) => countOf(s.section, s.objects.length));
      writeOut(`Exported ${counts.join(', ')} to ${plural(files.length, 'file')} in ${flags.dir}.`);
    }
    if (warnings > 0) writeErr(`Export finished with ${plural(warnings, 'warning')}.`);
  });
}
