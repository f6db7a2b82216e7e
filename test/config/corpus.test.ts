import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadDesiredState } from '../../src/config/load.js';
import { ConfigError, formatProblem } from '../../src/config/problems.js';
import { runCli } from '../helpers/cli.js';
import { CORPUS_CASES } from './corpus-cases.js';

const CORPUS = fileURLToPath(new URL('./corpus/', import.meta.url));

async function problemLines(path: string, env: Record<string, string> = {}): Promise<string[]> {
  try {
    await loadDesiredState([path], { cwd: CORPUS, env });
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.map(formatProblem);
    throw error;
  }
  throw new Error(`${path} loaded without problems`);
}

describe('the broken-configuration corpus', () => {
  it('has at least 60 cases', () => {
    expect(CORPUS_CASES.length).toBeGreaterThanOrEqual(60);
  });

  it.each(CORPUS_CASES)('$path', async ({ path, env, expected }) => {
    expect(await problemLines(path, env)).toEqual(expected);
  });
});

// One process per case costs ~100 ms, so the CLI runs a sample: single files, several problems,
// multi-file directories, and the directory with no YAML at all.
const CLI_SAMPLE = [
  'syntax-unclosed-flow.yaml',
  'unknown-field-typo.yaml',
  'unset-variable.yaml',
  'variable-not-allowed.yaml',
  'alias-bomb.yaml',
  'several-problems.yaml',
  'multi-document.yaml',
  'cross-file-duplicate-group',
  'outside-manage-scope',
  'rq-host-slash.yaml',
  'settings-conflict',
  'nested-directories',
  'no-yaml-files',
];

describe('wafctl validate on the corpus', () => {
  it.each(CLI_SAMPLE)('%s: exit 1, the problems on stderr, a count line', async (path) => {
    const found = CORPUS_CASES.find((c) => c.path === path);
    expect(found).toBeDefined();
    const expected = found?.expected ?? [];
    const result = await runCli(['validate', path], { cwd: CORPUS });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    const files = new Set(expected.map((line) => line.split(':')[0])).size;
    const summary = `${expected.length} problem${expected.length === 1 ? '' : 's'} in ${files} file${files === 1 ? '' : 's'}.`;
    const notChecked = found?.notChecked === undefined ? [] : [found.notChecked];
    expect(result.stderr).toBe(`${[...expected, summary, ...notChecked].join('\n')}\n`);
  });

  it('--format json prints every problem as data on stdout', async () => {
    const result = await runCli(['validate', 'several-problems.yaml', '--format', 'json'], { cwd: CORPUS });
    expect(result.code).toBe(1);
    const body = JSON.parse(result.stdout) as { valid: boolean; problems: unknown[] };
    expect(body.valid).toBe(false);
    expect(body.problems).toHaveLength(6);
    expect(body.problems[1]).toEqual({
      file: 'several-problems.yaml',
      line: 5,
      col: 21,
      path: 'groups[0].permissions[0].permission',
      message: 'unknown permission "Handle rule" (did you mean "Handle rules"?)',
    });
  });
});
