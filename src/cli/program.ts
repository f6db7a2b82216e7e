/** Builds the commander program: global options and one command per file in this folder. */
import { Command } from 'commander';
import { applyCommand } from './apply.js';
import { driftCommand } from './drift.js';
import { emulatorCommand } from './emulator.js';
import { exportCommand } from './export.js';
import { getCommand } from './get.js';
import { describeFamilies } from './options.js';
import { planCommand } from './plan.js';
import { pullCommand } from './pull.js';
import { validateCommand } from './validate.js';
import { packageVersion } from './version.js';

/**
 * How commander reports a usage error, on the program and every command (`addCommand` does not
 * copy settings): `Error: ...` like every other failure of wafctl, not commander's `error: ...`.
 */
function reportUsageErrorsLikeWafctl(command: Command): Command {
  return command
    .configureOutput({ outputError: (text, write) => write(text.replace(/^error: /, 'Error: ')) })
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
}

export function buildProgram(): Command {
  const program = reportUsageErrorsLikeWafctl(
    new Command('wafctl')
      .description('Configuration as code for a web application firewall.')
      .version(packageVersion(), '-V, --version', 'print the version')
      .option('--no-color', 'never colour the output (also: NO_COLOR)'),
  );
  for (const command of [
    validateCommand(),
    planCommand(),
    applyCommand(),
    driftCommand(),
    pullCommand(),
    exportCommand(),
    getCommand(),
    emulatorCommand(),
  ]) {
    program.addCommand(reportUsageErrorsLikeWafctl(command));
  }
  // `wafctl help CMD` shows CMD's help without running CMD: this one fills the families in first.
  program.helpCommand(false).addCommand(
    reportUsageErrorsLikeWafctl(
      new Command('help')
        .description('display help for command')
        .argument('[command]')
        .action(async (name?: string) => {
          const command = program.commands.find((c) => c.name() === name || c.aliases().includes(name ?? ''));
          if (command === undefined)
            return name === undefined ? program.help() : program.help({ error: true });
          await describeFamilies(command);
          command.help();
        }),
    ),
  );
  return program.hook('preSubcommand', (_program, command) => describeFamilies(command));
}
