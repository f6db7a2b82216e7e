/**
 * Shell completion (src/cli/completion.ts): the scripts `wafctl completion SHELL` prints, the answers
 * of the hidden `wafctl complete -- WORD...` the scripts call back (in process), and one real round
 * trip: bash sources the script and runs its completion function, which calls the built binary.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KINDS } from '../../src/kinds/index.js';
import { cliName } from '../../src/kinds/kind.js';
import { CLI_PATH, runCli } from '../helpers/cli.js';

/** The candidates (values only) and the directive of one `complete` answer. */
async function complete(...words: string[]): Promise<{ values: string[]; directive: string }> {
  const result = await runCli(['complete', '--', ...words]);
  expect([result.code, result.stderr]).toEqual([0, '']);
  const lines = result.stdout.trimEnd().split('\n');
  const directive = lines.pop() ?? '';
  return { values: lines.map((line) => line.split('\t')[0] ?? ''), directive };
}

describe('wafctl completion SHELL', () => {
  it.each([
    ['bash', /complete -F __wafctl_complete wafctl/],
    ['zsh', /^#compdef wafctl/],
    ['fish', /complete -c wafctl /],
  ])('prints a %s script that calls wafctl back', async (shell, registers) => {
    const result = await runCli(['completion', shell]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(registers);
    expect(result.stdout).toContain('wafctl complete --');
  });

  it('refuses another shell with a usage error', async () => {
    const result = await runCli(['completion', 'ksh']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^Error: command-argument value 'ksh' is invalid for argument 'SHELL'/);
  });

  it('is listed in the help; the callback is not', async () => {
    const result = await runCli(['--help']);
    expect(result.stdout).toMatch(/^ {2}completion <SHELL> /m);
    expect(result.stdout).not.toMatch(/^ {2}complete /m);
  });
});

describe('wafctl complete -- WORD... (what the scripts call)', () => {
  it('completes a command name: `pl` is plan only (pull starts with pu)', async () => {
    expect(await complete('pl')).toEqual({ values: ['plan'], directive: ':4' });
  });

  it('offers every visible command, completion included, and not the hidden callback', async () => {
    const { values } = await complete('');
    expect(values).toEqual([
      'validate',
      'test',
      'plan',
      'apply',
      'drift',
      'pull',
      'compare',
      'export',
      'get',
      'emulator',
      'help',
      'completion',
    ]);
  });

  it("completes a command's flags: `plan --fo` is --format only (plan has no --force)", async () => {
    expect((await complete('plan', '--fo')).values).toEqual(['--format']);
    expect((await complete('apply', '--auto')).values).toEqual(['--auto-approve']);
  });

  it('completes the values commander knows (choices), after a space or an =', async () => {
    expect((await complete('plan', '--format', '')).values).toEqual(['text', 'markdown', 'json']);
    expect((await complete('plan', '--format=m')).values).toEqual(['markdown']);
    expect((await complete('get', 'rules', '--output', '')).values).toEqual(['table', 'json', 'yaml']);
    expect((await complete('completion', '')).values).toEqual(['bash', 'zsh', 'fish']);
  });

  it('completes the families from the registry, and the --fail-on classes', async () => {
    const families = KINDS.map(cliName);
    expect((await complete('plan', '--kind', '')).values).toEqual(families);
    expect((await complete('drift', '--kind', 'app')).values).toEqual(['application-rules']);
    expect((await complete('get', '')).values).toEqual(['rules', ...families]);
    expect((await complete('plan', '--fail-on', '')).values).toEqual([
      'weakens_protection',
      'broadens_access',
      'reduces_audit',
    ]);
  });

  it('has the families in the descriptions, not the placeholder', async () => {
    const result = await runCli(['complete', '--', 'plan', '--ki']);
    expect(result.stdout).toMatch(/^--kind\t.*groups, application-rules/m);
    expect(result.stdout).not.toContain('{families}');
  });

  it('leaves file names to the shell where it has no candidate (a PATH, --out FILE)', async () => {
    expect(await complete('plan', '')).toEqual({ values: [], directive: ':0' });
    expect(await complete('plan', '--out', '')).toEqual({ values: [], directive: ':0' });
  });

  it('takes the words as typed, options of the program included', async () => {
    expect((await complete('--no-color', 'dr')).values).toEqual(['drift']);
    // One dash: the short flags; two: the long ones (tab's rule).
    expect((await complete('-')).values).toEqual(['-V', '-h']);
    expect((await complete('--')).values).toEqual(['--version', '--no-color', '--help']);
  });
});

/** Runs `script` in a bare bash (no rc files) with `dir` first on PATH; what it printed. */
function bash(script: string, dir: string): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--norc', '--noprofile', '-c', script], {
      env: { PATH: `${dir}:${process.env.PATH ?? ''}`, HOME: dir, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve({ stdout, stderr }) : reject(new Error(`bash exited ${code}:\n${stderr}`)),
    );
  });
}

const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/**
 * The script calls `_get_comp_words_by_ref`, from the bash-completion package that distributions
 * load in interactive shells. A bare bash has no such function: the real one is sourced when the
 * machine has it, else a stand-in that does what it does for these words (no `=` or `:` in them).
 */
const BASH_COMPLETION = '/usr/share/bash-completion/bash_completion';
const WORDS_BY_REF = existsSync(BASH_COMPLETION)
  ? `source ${BASH_COMPLETION}`
  : '_get_comp_words_by_ref() { cur=$' +
    '{COMP_WORDS[COMP_CWORD]}; prev=$' +
    '{COMP_WORDS[COMP_CWORD-1]}; words=("$' +
    '{COMP_WORDS[@]}"); cword=$COMP_CWORD; }';

describe('the bash script, sourced in bash', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wafctl-completion-'));
    // `wafctl` on PATH: the built binary, as an installed package puts it there.
    const wrapper = join(dir, 'wafctl');
    await writeFile(wrapper, `#!/bin/sh\nexec ${quote(process.execPath)} ${quote(CLI_PATH)} "$@"\n`);
    await chmod(wrapper, 0o755);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  /**
   * COMPREPLY after TAB on `line` (the cursor at its end; a trailing space starts a new word), the
   * script sourced `times` times first (after `before`), and what the shell printed on stderr
   * outside the completion function.
   */
  async function completeIn(
    line: string,
    { times = 1, before = '' }: { times?: number; before?: string } = {},
  ): Promise<{ reply: string[]; stderr: string }> {
    const words = line.split(' ');
    const script = [
      WORDS_BY_REF,
      before,
      ...Array.from({ length: times }, () => 'source <(wafctl completion bash)'),
      `COMP_WORDS=(${words.map(quote).join(' ')})`,
      `COMP_CWORD=${words.length - 1}`,
      `COMP_LINE=${quote(line)}`,
      `COMP_POINT=${line.length}`,
      // compopt only works under readline's completion; outside it complains, harmlessly.
      '__wafctl_complete 2>/dev/null',
      `printf '%s\\n' "\${COMPREPLY[@]}"`,
    ].join('\n');
    const { stdout, stderr } = await bash(script, dir);
    return { reply: stdout.split('\n').filter((reply) => reply !== ''), stderr };
  }

  /** COMPREPLY after TAB on `line`, the script sourced once, silently. */
  async function compreply(line: string): Promise<string[]> {
    const { reply, stderr } = await completeIn(line);
    expect(stderr).toBe('');
    return reply;
  }

  it('completes `wafctl pl` to plan', async () => {
    expect(await compreply('wafctl pl')).toEqual(['plan']);
  });

  it('completes `wafctl plan --fo` to --format, and its values after a space', async () => {
    expect(await compreply('wafctl plan --fo')).toEqual(['--format']);
    expect(await compreply('wafctl plan --format ')).toEqual(['text', 'markdown', 'json']);
  });

  it('can be sourced twice in one shell (a re-read ~/.bashrc): no error, and it still completes', async () => {
    expect(await completeIn('wafctl plan --fo', { times: 2 })).toEqual({ reply: ['--format'], stderr: '' });
  });

  it("sets no global a script made by another program could hold: that script's readonly names are no error", async () => {
    // tab's own bash script declares these six readonly; wafctl's must neither assign nor need them.
    const other = ['Error=1', 'NoSpace=2', 'NoFileComp=4', 'FilterFileExt=8', 'FilterDirs=16', 'KeepOrder=32']
      .map((name) => `readonly ShellCompDirective${name}`)
      .join('\n');
    expect(await completeIn('wafctl pl', { before: other })).toEqual({ reply: ['plan'], stderr: '' });
    const { stdout } = await runCli(['completion', 'bash']);
    expect(stdout).not.toMatch(/readonly|ShellCompDirective/);
    expect(stdout).toContain('$((directive & 4))'); // NoFileComp, written where it is read
  });
});
