/**
 * Runs wafctl for a test. `runCli` runs a command line in the test's own process (`runWafctl` with a
 * string `Io`), as most tests do; `spawnCli` and `startCli` run the built binary (`dist/wafctl.mjs`,
 * the bundle that ships, built by `npm test` before vitest starts) as a child process, for what only a real process shows:
 * signals, a terminal, exit codes of a dying process, start-up.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { runWafctl } from '../../src/cli/program.js';
import { forgetSecrets } from '../../src/core/secrets.js';
import { type TestIoOptions, testIo } from './io.js';

export const CLI_PATH = fileURLToPath(new URL('../../dist/wafctl.mjs', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: Record<string, string | undefined>;
  input?: string;
  cwd?: string;
  /** `startCli`/`spawnCli`: a command that runs the binary (`unshare --pid --fork ...`), before `node`. */
  prefix?: readonly string[];
}

/**
 * Runs one command line in process, as a fresh process would: the secrets an earlier run registered
 * are forgotten first. `env` is the whole environment the command sees.
 */
export async function runCli(args: string[], options: CliOptions & TestIoOptions = {}): Promise<CliResult> {
  forgetSecrets();
  const run = testIo(options);
  const code = await runWafctl(args, run.io);
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}

/** Runs the built binary to its end (see `startCli`). */
export function spawnCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  return startCli(args, options).result;
}

export interface RunningCli {
  child: ChildProcess;
  result: Promise<CliResult>;
  /** Resolves once stderr (everything so far) matches `pattern`; rejects if the process ends first. */
  stderrMatches(pattern: RegExp): Promise<void>;
}

/** Starts the CLI and hands back the process, for tests that signal it while it runs. */
export function startCli(args: string[], options: CliOptions = {}): RunningCli {
  // Start from a clean slate for the variables wafctl reads, so the developer's shell cannot leak in.
  const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1' };
  for (const name of [
    'WAF_URL',
    'WAF_TOKEN',
    'WAF_USERNAME',
    'WAF_TIMEOUT',
    'WAFCTL_DEBUG',
    'WAF_EMULATOR_ADMIN_TOKEN',
  ]) {
    delete env[name];
  }
  Object.assign(env, options.env);
  const [command = process.execPath, ...rest] = [
    ...(options.prefix ?? []),
    process.execPath,
    CLI_PATH,
    ...args,
  ];
  const child = spawn(command, rest, { env, cwd: options.cwd, stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  const waiting = new Set<() => void>();
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    for (const check of waiting) check();
  });
  const result = new Promise<CliResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  child.stdin.end(options.input ?? '');
  return {
    child,
    result,
    stderrMatches: (pattern) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (!pattern.test(stderr)) return;
          waiting.delete(check);
          resolve();
        };
        waiting.add(check);
        check();
        void result.then(() => {
          if (!waiting.delete(check)) return;
          reject(new Error(`the CLI ended before stderr matched ${pattern}:\n${stderr}`));
        });
      }),
  };
}

/**
 * Runs the CLI on a pseudo-terminal (util-linux `script`, part of every Debian base system), so that
 * stdin is a TTY, and types `keys` once `prompt` has been shown. stdout and stderr arrive merged,
 * with `\r\n` line ends, as a terminal shows them.
 */
export function runCliOnTerminal(
  args: string[],
  options: { env: Record<string, string>; prompt: string; keys: string },
): Promise<{ code: number | null; output: string }> {
  const quote = (arg: string) => `'${arg.replaceAll("'", `'\\''`)}'`;
  const command = [process.execPath, CLI_PATH, ...args].map(quote).join(' ');
  const child = spawn('script', ['--quiet', '--return', '--flush', '--command', command, '/dev/null'], {
    env: { ...process.env, NO_COLOR: '1', ...options.env },
    stdio: 'pipe',
  });
  let output = '';
  let typed = false;
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
    if (!typed && output.includes(options.prompt)) {
      typed = true;
      child.stdin.write(options.keys);
    }
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}
