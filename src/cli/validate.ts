/** `wafctl validate [PATH...] [--format text|json]`: offline checks, exit 0 valid, 1 invalid. */
import { Command, Option } from 'commander';
import { plural } from '../core/text.js';
import { writeErr, writeOut } from './output.js';

interface ValidateFlags {
  format: 'text' | 'json';
}

export function validateCommand(): Command {
  return new Command('validate')
    .description('check configuration files offline: syntax, schema and semantic rules')
    .argument('[PATH...]', 'files or directories of YAML configuration', ['.'])
    .addOption(new Option('--format <FORMAT>', 'output format').choices(['text', 'json']).default('text'))
    .action(async (paths: string[], flags: ValidateFlags) => {
      // Heavy modules (yaml, zod) load here, not at start-up: `wafctl --version` stays fast.
      const { loadDesiredState } = await import('../config/load.js');
      const { ConfigError } = await import('../config/problems.js');
      try {
        const { state, files } = await loadDesiredState(paths);
        const counts = {
          files: files.length,
          groups: state.groups.length,
          application_rules: state.application_rules.length,
          notifications: state.notifications.length,
          schedules: state.schedules.length,
        };
        if (flags.format === 'json') {
          writeOut(JSON.stringify({ valid: true, ...counts }));
          return;
        }
        writeOut(
          `Configuration is valid: ${plural(counts.files, 'file')}, ${plural(counts.groups, 'group')}, ` +
            `${plural(counts.application_rules, 'application rule')}, ` +
            `${plural(counts.notifications, 'notification')}, ${plural(counts.schedules, 'schedule')}.`,
        );
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        if (flags.format === 'json') writeOut(JSON.stringify({ valid: false, problems: error.problems }));
        else writeErr(error.message);
        process.exitCode = 1;
      }
    });
}
