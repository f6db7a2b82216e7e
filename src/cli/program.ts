/**
 * The commander program: global options and one command per file in this folder. `runWafctl` runs
 * one command line against an `Io` and returns its exit code; main.ts gives it the real process.
 */
import { Command } from 'commander';
import { neutralizeWorkflowCommands } from '../core/text.js';
import { applyCommand } from './apply.js';
import { compareCommand } from './compare.js';
import { COMPLETE_COMMAND, completionCommands } from './completion.js';
import { driftCommand } from './drift.js';
import { emulatorCommand } from './emulator.js';
import { exportCommand } from './export.js';
import { getCommand } from './get.js';
import { layeredSignals } from './interrupt.js';
import type { Io } from './io.js';
import { describeFamilies } from './options.js';
import { colorEnabled } from './output.js';
import { planCommand } from './plan.js';
import { pullCommand } from './pull.js';
import { reportError } from './report-error.js';
import { endRun } from './run-scope.js';
import { testCommand } from './test.js';
import { validateCommand } from './validate.js';
import { packageVersion } from './version.js';

/**
 * Where commander writes help, versions and usage errors, on the program and every command
 * (`addCommand` does not copy settings): the run's streams, and `Error: ...` like every other failure
 * of wafctl, not commander's `error: ...`. `exitOverride`: commander throws instead of exiting.
 * Its usage errors quote the arguments, so they too go through the CI-log guard (cli/output.ts).
 */
function configure(command: Command, io: Io): Command {
  const width = (stream: Io['stdout']) => (stream.isTTY ? (stream.columns ?? 80) : 80);
  return command
    .configureOutput({
      writeOut: (text) => io.stdout.write(neutralizeWorkflowCommands(text)),
      writeErr: (text) => io.stderr.write(neutralizeWorkflowCommands(text)),
      outputError: (text, write) => write(text.replace(/^error: /, 'Error: ')),
      getOutHelpWidth: () => width(io.stdout),
      getErrHelpWidth: () => width(io.stderr),
      getOutHasColors: () => colorEnabled(io, undefined),
      getErrHasColors: () => false,
    })
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
}

/** Runs one command line (`args` without node and the script) and returns its exit code. */
export async function runWafctl(args: readonly string[], processIo: Io): Promise<number> {
  const signals = layeredSignals(processIo);
  const { io } = signals;
  let code = 0;
  try {
    await buildProgram(io, (exitCode) => {
      code = exitCode;
    }).parseAsync([...args], { from: 'user' });
    return code;
  } catch (error) {
    return reportError(io, error);
  } finally {
    await endRun(io);
    signals.dispose();
  }
}

/**
 * The program. `completion: false` leaves out `completion` and the hidden `complete`: the program
 * the completion commands hand to tab's commander adapter, which adds its own two (completion.ts).
 */
export function buildProgram(
  io: Io,
  done: (code: number) => void,
  { completion = true }: { completion?: boolean } = {},
): Command {
  const program = configure(
    new Command('wafctl')
      .description('Configuration as code for a web application firewall.')
      .version(packageVersion(), '-V, --version', 'print the version')
      .option('--no-color', 'never colour the output (also: NO_COLOR)'),
    io,
  );
  for (const command of [
    validateCommand,
    testCommand,
    planCommand,
    applyCommand,
    driftCommand,
    pullCommand,
    compareCommand,
    exportCommand,
    getCommand,
    emulatorCommand,
  ]) {
    program.addCommand(configure(command(io, done), io));
  }
  if (completion) {
    const factory = () => buildProgram(io, () => undefined, { completion: false });
    for (const command of completionCommands(io, done, factory)) {
      program.addCommand(configure(command, io), { hidden: command.name() === COMPLETE_COMMAND });
    }
  }
  // `wafctl help CMD` shows CMD's help without running CMD: this one fills the families in first.
  program.helpCommand(false).addCommand(
    configure(
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
      io,
    ),
  );
  return program.hook('preSubcommand', (_program, command) => describeFamilies(command));
}
