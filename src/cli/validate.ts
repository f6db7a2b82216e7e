/** `wafctl validate [PATH...] [--format text|json]`: offline checks, exit 0 valid, 1 invalid. */
import { Command, Option } from 'commander';
import { plural } from '../core/text.js';
import type { Io } from './io.js';
import { writeErr, writeOut } from './output.js';

interface ValidateFlags {
  format: 'text' | 'json';
}

export function validateCommand(io: Io, done: (code: number) => void): Command {
  return new Command('validate')
    .description('check configuration files offline: syntax, schema and semantic rules')
    .argument('[PATH...]', 'files or directories of YAML configuration', ['.'])
    .addOption(new Option('--format <FORMAT>', 'output format').choices(['text', 'json']).default('text'))
    .action(async (paths: string[], flags: ValidateFlags) => done(await validate(paths, flags, io)));
}

async function validate(paths: string[], flags: ValidateFlags, io: Io): Promise<number> {
  // Heavy modules (yaml, zod) load here, not at start-up: `wafctl --version` stays fast.
  const { loadDesiredState } = await import('../config/load.js');
  const { ConfigError } = await import('../config/problems.js');
  try {
    const { state, files } = await loadDesiredState(paths, { cwd: io.cwd, env: io.env });
    const { declaredObjects } = await import('../config/schema.js');
    const { KINDS } = await import('../kinds/index.js');
    const families = KINDS.map((kind) => ({ kind, count: declaredObjects(state, kind).length }));
    if (flags.format === 'json') {
      const counts = families.map(({ kind, count }) => [kind.section, count]);
      writeOut(io, JSON.stringify({ valid: true, files: files.length, ...Object.fromEntries(counts) }));
      return 0;
    }
    const { countOf } = await import('../ops/export/document.js');
    // A singleton section (settings) is named when declared, not counted.
    const counts = families
      .filter(({ kind, count }) => !kind.singleton || count > 0)
      .map(({ kind, count }) =>
        kind.singleton ? kind.section.replaceAll('_', ' ') : countOf(kind.section, count),
      );
    writeOut(io, `Configuration is valid: ${[plural(files.length, 'file'), ...counts].join(', ')}.`);
    return 0;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    if (flags.format === 'json') {
      const skipped = error.skipped.length === 0 ? {} : { skipped: error.skipped };
      writeOut(io, JSON.stringify({ valid: false, problems: error.problems, ...skipped }));
    } else writeErr(io, error.message);
    return 1;
  }
}
