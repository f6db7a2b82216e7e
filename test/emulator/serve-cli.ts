/** `wafctl emulator ARGS` as a real process (the built CLI), for tests that signal or kill it. */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { CLI_PATH } from '../helpers/cli.js';

export interface Served {
  child: ChildProcessWithoutNullStreams;
  url: string;
  exit: Promise<number | null>;
  stderr: () => string;
}

/** This process's environment for the emulator: no admin token unless `extra` gives one. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', ...extra };
  if (extra.WAF_EMULATOR_ADMIN_TOKEN === undefined) delete env.WAF_EMULATOR_ADMIN_TOKEN;
  return env;
}

/**
 * Starts `wafctl emulator ARGS` and resolves once it has printed its URL line. `prefix`: a command
 * that runs it (`unshare --pid --fork ...`), before `node`.
 */
export function serve(
  args: string[],
  env: Record<string, string> = {},
  prefix: readonly string[] = [],
): Promise<Served> {
  const [command = process.execPath, ...rest] = [...prefix, process.execPath, CLI_PATH, 'emulator', ...args];
  const child = spawn(command, rest, {
    env: cleanEnv(env),
    stdio: 'pipe',
  });
  let stdout = '';
  let stderr = '';
  const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const newline = stdout.indexOf('\n');
      if (newline >= 0) resolve({ child, url: stdout.slice(0, newline), exit, stderr: () => stderr });
    });
    void exit.then((code) =>
      reject(new Error(`emulator exited (${code}) before printing its URL: ${stderr}`)),
    );
  });
}
