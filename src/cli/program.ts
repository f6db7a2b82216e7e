/** Builds the commander program: global options and one command per file in this folder. */
import { Command } from 'commander';
import { applyCommand } from './apply.js';
import { driftCommand } from './drift.js';
import { emulatorCommand } from './emulator.js';
import { exportCommand } from './export.js';
import { getCommand } from './get.js';
import { planCommand } from './plan.js';
import { validateCommand } from './validate.js';
import { packageVersion } from './version.js';

export function buildProgram(): Command {
  const program = new Command('wafctl')
    .description('Configuration as code for a web application firewall.')
    .version(packageVersion(), '-V, --version', 'print the version')
    .option('--no-color', 'never colour the output (also: NO_COLOR)')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();

  program.addCommand(validateCommand().exitOverride());
  program.addCommand(planCommand().exitOverride());
  program.addCommand(applyCommand().exitOverride());
  program.addCommand(driftCommand().exitOverride());
  program.addCommand(exportCommand().exitOverride());
  program.addCommand(getCommand().exitOverride());
  program.addCommand(emulatorCommand().exitOverride());
  return program;
}
