/**
 * Shell completion, through `@bomb.sh/tab` and its commander adapter. Two commands:
 *
 * - `wafctl completion bash|zsh|fish` prints the script to source;
 * - `wafctl complete -- WORD...` (hidden) is what that script calls back at every TAB: the words
 *   typed after `wafctl`, the last one being completed (`''` after a space). It prints one candidate
 *   a line (`VALUE<TAB>DESCRIPTION`), then `:DIRECTIVE` (tab's protocol, cobra's directives).
 *
 * The library is imported inside the actions only, so `wafctl --version` never loads it. The
 * adapter walks a commander program and fills tab's module-level `RootCommand`, whose `setup` and
 * `parse` print with `console.log`: they are synchronous, so `captured` swaps `console.log` for the
 * call and writes what it collected to the run's `Io` (nothing else can run in between). What this
 * uses of the library neither calls `process.exit` nor reads `process.argv` (the adapter's own
 * commands, which would call `program.error`, are never run: the words come from ours).
 */
import { Argument, Command } from 'commander';
import { IMPACT_CLASSES } from '../core/model.js';
import type { Io } from './io.js';
import { describeFamilies } from './options.js';

/** The shells wafctl documents and tests (tab also writes PowerShell, left out until it is tested). */
export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/**
 * The command tab's scripts call back: its name is fixed by the library's protocol. Hidden from the
 * help, and lenient: every word after `--` is the line being completed, whatever it looks like.
 */
export const COMPLETE_COMMAND = 'complete';

const COMPLETION_DESCRIPTION = 'print the shell completion script for SHELL, to source (bash, zsh or fish)';

/** Builds a program like the real one, without the completion commands (the adapter adds its own). */
export type ProgramFactory = () => Command;

/** `wafctl completion SHELL` and the hidden `wafctl complete -- WORD...`. */
export function completionCommands(io: Io, done: (code: number) => void, program: ProgramFactory): Command[] {
  const completion = new Command('completion')
    .description(COMPLETION_DESCRIPTION)
    .addArgument(new Argument('<SHELL>', 'the shell').choices(SHELLS))
    .action(async (shell: Shell) => done(await printScript(shell, io, program)));

  const complete = new Command(COMPLETE_COMMAND)
    .description('print the completions of a command line (called by the completion script)')
    .usage('-- [WORD...]')
    .argument('[WORD...]')
    .helpOption(false)
    .allowUnknownOption()
    .allowExcessArguments()
    // Commander hands the words after `--` over as they are (a later `--` and `-h` included).
    .action(async (words: string[]) => done(await printCompletions(words, io, program)));
  return [completion, complete];
}

async function printScript(shell: Shell, io: Io, program: ProgramFactory): Promise<number> {
  const completion = await completionTree(program);
  const script = captured(() => completion.setup('wafctl', 'wafctl', shell));
  io.stdout.write(shell === 'bash' ? withoutReadonly(script) : script);
  return 0;
}

/**
 * tab's bash script starts with `readonly ShellCompDirectiveError=1` and five more: sourcing it a
 * second time in one shell (`source ~/.bashrc` after editing it) prints six `readonly variable`
 * errors, and the script of another program made with tab would collide with ours on those global
 * names. So the numbers are written where the function reads them and the globals are dropped:
 * the script then defines only `__wafctl_*` functions and runs `complete`, both fine to repeat.
 * (zsh's script declares the same names `local` in its function; fish's has none.)
 */
function withoutReadonly(script: string): string {
  const values = new Map<string, string>();
  const kept = script
    .split('\n')
    .filter((line) => {
      const constant = /^readonly (ShellCompDirective\w+)=(\d+)\s*$/.exec(line);
      if (constant === null) return line !== '# Define shell completion directives';
      values.set(constant[1] ?? '', constant[2] ?? '');
      return false;
    })
    .join('\n')
    .replace(/\n{3,}/g, '\n\n');
  // `$NAME`, `${NAME}` or, in arithmetic, `NAME`: each becomes its number.
  return kept.replace(
    /\$\{(ShellCompDirective\w+)\}|\$?\b(ShellCompDirective\w+)\b/g,
    (whole: string, braced?: string, bare?: string) => values.get(braced ?? bare ?? '') ?? whole,
  );
}

async function printCompletions(words: string[], io: Io, program: ProgramFactory): Promise<number> {
  const completion = await completionTree(program);
  const { ShellCompDirective } = await import('@bomb.sh/tab');
  // `parse` pops a trailing '' (the word being started) from the array it is given: a copy.
  const out = captured(() => completion.parse([...words]));
  // tab always answers "no file completion". With no candidate at all (a PATH operand, a --out FILE
  // value), the default directive lets zsh and fish complete file names instead of nothing.
  const nothing = `:${ShellCompDirective.ShellCompDirectiveNoFileComp}\n`;
  io.stdout.write(out === nothing ? `:${ShellCompDirective.ShellCompDirectiveDefault}\n` : out);
  return 0;
}

type RootCommand = import('@bomb.sh/tab').RootCommand;

/**
 * tab's description of wafctl: the commander adapter's walk of a fresh program (subcommands, their
 * flags, `choices` as values), then the values commander does not know: the families for `--kind`
 * and `get KIND`, the classes of `--fail-on`, the commands of `help`. Nothing that needs the network
 * or the configuration.
 */
async function completionTree(factory: ProgramFactory): Promise<RootCommand> {
  const [{ default: tab }, { KINDS }, { cliName }] = await Promise.all([
    import('@bomb.sh/tab/commander'),
    import('../kinds/index.js'),
    import('../kinds/kind.js'),
  ]);
  const program = factory();
  // The help texts of `--kind` and `get` name the families: fill them in, as a command's run does.
  await Promise.all(program.commands.map((command) => describeFamilies(command)));
  const completion = tab(program, { completionCommandName: 'completion' });

  const families = KINDS.map(cliName);
  const values =
    (list: readonly string[]) =>
    (complete: (value: string, description: string) => void): void => {
      for (const value of list) complete(value, '');
    };
  for (const [name, command] of completion.commands) {
    const kind = command.options.get('kind');
    if (kind !== undefined) kind.handler = values(families);
    const failOn = command.options.get('fail-on');
    if (failOn !== undefined) failOn.handler = values(IMPACT_CLASSES);
    if (name === 'get') {
      const argument = command.arguments.get('KIND');
      if (argument !== undefined) argument.handler = values(['rules', ...families]);
    }
    if (name === 'help') {
      const argument = command.arguments.get('command');
      if (argument !== undefined) argument.handler = values(visibleNames(program));
    }
    if (name === 'completion') {
      // The adapter's own `completion` stands for ours: our text, our shells.
      command.description = COMPLETION_DESCRIPTION;
      const argument = command.arguments.get('shell');
      if (argument !== undefined) argument.handler = values(SHELLS);
    }
  }
  return completion;
}

function visibleNames(program: Command): string[] {
  const help = program.createHelp();
  return help.visibleCommands(program).map((command) => command.name());
}

/**
 * What `run` printed with `console.log`, one line each. tab prints its scripts and completions
 * that way; the swap lasts for the synchronous call only.
 */
function captured(run: () => void): string {
  const lines: string[] = [];
  const log = console.log;
  console.log = (...parts: unknown[]) => {
    lines.push(parts.map(String).join(' '));
  };
  try {
    run();
  } finally {
    console.log = log;
  }
  return lines.map((line) => `${line}\n`).join('');
}
