/**
 * Runs the GitHub Action (dist/action.mjs, as `npm run build` bundles it) the way the runner does: a
 * Node.js process with the inputs as INPUT_* variables (dashes kept: INPUT_FAIL-ON), and the
 * runner's files (outputs, summary, temp) in a directory of the test's own.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

export const ROOT = join(import.meta.dirname, '..', '..');
export const ACTION = join(ROOT, 'dist', 'action.mjs');

export interface ActionRun {
  code: number;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
  summary: string;
  /** The runner's directory: RUNNER_TEMP, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY. */
  dir: string;
}

/** The variable GitHub sets for an input: `fail-on` -> `INPUT_FAIL-ON`. */
export const inputEnv = (inputs: Record<string, string>) =>
  Object.fromEntries(Object.entries(inputs).map(([name, value]) => [`INPUT_${name.toUpperCase()}`, value]));

/** Reads $GITHUB_OUTPUT: `name=value` lines, and the `name<<EOF` form. */
export function parseOutputs(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const end = lines.indexOf(heredoc[2] ?? '', i + 1);
      outputs[heredoc[1] ?? ''] = lines.slice(i + 1, end).join('\n');
      i = end;
    } else if (line.includes('=')) {
      const [name, value] = line.split(/=(.*)/s);
      outputs[name ?? ''] = value ?? '';
    }
  }
  return outputs;
}

export async function runAction(
  inputs: Record<string, string>,
  options: { cwd?: string; env?: Record<string, string>; dir?: string } = {},
): Promise<ActionRun> {
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), 'wafctl-action-')));
  const env = {
    HOME: dir,
    PATH: process.env.PATH,
    GITHUB_OUTPUT: join(dir, 'output'),
    GITHUB_STEP_SUMMARY: join(dir, 'summary'),
    RUNNER_TEMP: dir,
    NO_COLOR: '1',
    ...inputEnv(inputs),
    ...options.env,
  };
  const result = await promisify(execFile)(process.execPath, [ACTION], {
    env,
    cwd: options.cwd ?? ROOT,
  }).then(
    (r) => ({ code: 0, ...r }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
  const read = (file: string) => readFile(join(dir, file), 'utf8').catch(() => '');
  return { ...result, outputs: parseOutputs(await read('output')), summary: await read('summary'), dir };
}

export interface RecordedRun {
  cwd: string;
  args: string[];
}

/**
 * A stub wafctl (a script the action runs with Node.js through WAFCTL_ACTION_CLI, the variable the
 * action's tests use instead of the bundled CLI) that records each run's arguments and directory,
 * writes what wafctl would (--out plan, --report, the markdown plan), and exits 2 for changes, as
 * plan --detailed-exitcode and drift do. `exit` overrides the exit code of every run.
 */
export async function stubCli(exit?: number) {
  const dir = await mkdtemp(join(tmpdir(), 'wafctl-stub-'));
  await mkdir(join(dir, 'config'));
  const main = `const fs = require('node:fs');
const args = process.argv.slice(2);
fs.appendFileSync(${JSON.stringify(join(dir, 'runs'))}, JSON.stringify({ cwd: process.cwd(), args }) + '\\n');
// The names of the variables holding a token that the run was given.
const tokens = Object.keys(process.env).filter((name) => /TOKEN/i.test(name)).sort();
fs.appendFileSync(${JSON.stringify(join(dir, 'tokens'))}, JSON.stringify(tokens) + '\\n');
const value = (flag) => args[args.indexOf(flag) + 1];
const exit = ${exit === undefined ? 'undefined' : exit};
if (args.includes('--out')) fs.writeFileSync(value('--out'), JSON.stringify({ summary: { create: 1, update: 0, replace: 0, delete: 0 } }));
if (args.includes('--report') && exit !== 1) fs.writeFileSync(value('--report'), '<!-- wafctl-drift -->\\ndrift\\n');
if (args[0] === 'plan' && args.includes('--format')) process.stdout.write('<!-- wafctl-plan -->\\nplan\\n');
if (args[0] === 'apply' || args[0] === 'pull') process.stdout.write(args[0] + ' done\\n');
process.exit(exit ?? (args[0] === 'apply' || args[0] === 'pull' || args.includes('--out') ? 0 : 2));
`;
  const cli = join(dir, 'wafctl.cjs');
  await writeFile(cli, main);
  const runs = async (): Promise<RecordedRun[]> =>
    readFile(join(dir, 'runs'), 'utf8').then(
      (log) =>
        log
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as RecordedRun),
      () => [],
    );
  /** Per run, the names of the variables holding a token wafctl was given. */
  const tokens = async (): Promise<string[][]> =>
    readFile(join(dir, 'tokens'), 'utf8').then(
      (log) =>
        log
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as string[]),
      () => [],
    );
  return { dir, cli, runs, tokens };
}
