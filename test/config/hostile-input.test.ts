/**
 * Configuration inputs meant to kill or leak: deep nesting, huge numbers of problems, text that is
 * not text. Each must end in short, positioned problems, from both readers.
 */
import { describe, expect, it } from 'vitest';
import { readFast } from '../../src/config/fast-read.js';
import { parseYamlFile } from '../../src/config/parse-yaml.js';
import { ConfigError, formatProblem, problemCount } from '../../src/config/problems.js';
import { MAX_NESTING } from '../../src/config/text-checks.js';
import { validateSources } from '../../src/config/validate-sources.js';

function problemsOf(text: string, file = 'f.yaml'): string[] {
  const result = validateSources([{ file, text }], { env: {} });
  if (result.ok) throw new Error('loaded without problems');
  return result.problems.map(formatProblem);
}

const TOO_DEEP = `nested deeper than ${MAX_NESTING} lists and mappings: refusing to read further`;

describe('nesting depth, checked before anything is built', () => {
  it('flow: megabytes of [ are one problem at the first level too many', () => {
    expect(problemsOf(`groups: ${'['.repeat(1024 * 1024)}`)).toEqual([`f.yaml:1:72: ${TOO_DEEP}`]);
    expect(problemsOf(`a: ${'{b: '.repeat(100_000)}`)).toEqual([`f.yaml:1:${4 + 4 * 63}: ${TOO_DEEP}`]);
  });

  it('block: compact `- - -` and indentation count too', () => {
    expect(problemsOf(`groups:\n${'- '.repeat(1024 * 1024)}x\n`)).toEqual([
      `f.yaml:2:${2 * 63 + 1}: ${TOO_DEEP}`,
    ]);
    const indented = Array.from({ length: 100 }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n');
    expect(problemsOf(indented)).toEqual([`f.yaml:65:65: ${TOO_DEEP}`]);
    // A list at its key's column is one more level: `top`, then a list and a mapping per line.
    const alternating = Array.from({ length: 40 }, (_, i) => `${'  '.repeat(i)}- k:`).join('\n');
    expect(problemsOf(`top:\n${alternating}`)).toEqual([`f.yaml:33:65: ${TOO_DEEP}`]);
  });

  it('nesting up to the limit is read (and then meets the schema), by both readers alike', () => {
    const text = `a: ${'['.repeat(MAX_NESTING - 1)}${']'.repeat(MAX_NESTING - 1)}\n`;
    expect(problemsOf(text)).toEqual(['f.yaml:1:1: unknown field "a"']);
    expect(readFast('f.yaml', text)).toBeDefined();
    const deeper = `a: ${'['.repeat(MAX_NESTING)}${']'.repeat(MAX_NESTING)}\n`;
    expect(readFast('f.yaml', deeper)).toBeUndefined();
    expect(problemsOf(deeper)).toEqual([`f.yaml:1:${3 + MAX_NESTING}: ${TOO_DEEP}`]);
  });

  it('brackets inside scalars, quotes, comments and block scalars are text, not nesting', () => {
    const brackets = '['.repeat(200);
    const text = [
      'groups:',
      `  - name: a${brackets}`,
      `    description: "${brackets}"`,
      `    # ${brackets}`,
      '    users:',
      '      - |',
      `        ${brackets}`,
    ].join('\n');
    expect(validateSources([{ file: 'f.yaml', text }], { env: {} }).ok).toBe(true);
  });
});

describe('a huge number of problems', () => {
  it('a list of 150,000 invalid items inside an object: no stack overflow, 100 problems shown', () => {
    const text = `groups:\n  - name: a\n    users:\n${'      - 1\n'.repeat(150_000)}`;
    const result = validateSources([{ file: 'f.yaml', text }], { env: {} });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(problemCount(result.problems)).toBe(150_000);
    const lines = new ConfigError(result.problems).message.split('\n');
    expect(lines).toHaveLength(102);
    expect(lines[0]).toBe('f.yaml:4:9 groups[0].users[0]: expected string, got number 1');
    expect(lines[100]).toBe('f.yaml: 149900 more problems in this file not shown');
    expect(lines[101]).toBe('150000 problems in 1 file.');
  }, 120_000); // zod takes ~10 µs per issue, and validates such a list three times over (see bounded-parse.ts)

  it('caps each file at 100 problems, then one line for the rest; the count line says them all', () => {
    const a = `groups:\n${'  - {name: 1}\n'.repeat(150)}`;
    const b = 'groups:\n  - {name: 2}\n';
    const result = validateSources(
      [
        { file: 'a.yaml', text: a },
        { file: 'b.yaml', text: b },
      ],
      { env: {} },
    );
    if (result.ok) throw new Error('loaded without problems');
    const error = new ConfigError(result.problems);
    expect(error.problems).toHaveLength(102);
    expect(error.total).toBe(151);
    const lines = error.message.split('\n');
    expect(lines.slice(99)).toEqual([
      'a.yaml:101:12 groups[99].name: expected string, got number 1',
      'a.yaml: 50 more problems in this file not shown',
      'b.yaml:2:12 groups[0].name: expected string, got number 2',
      '151 problems in 2 files.',
    ]);
  });
});

describe('text that is not text', () => {
  it('a raw NUL, control character or lone surrogate is refused at its place, before parsing', () => {
    expect(problemsOf('groups:\n  - name: a\u0000b\n')).toEqual([
      'f.yaml:2:12: NUL character (U+0000) is not allowed: the API cannot store it',
    ]);
    expect(problemsOf('groups:\n  - name: a\u001bb\n')).toEqual([
      'f.yaml:2:12: control character U+001B is not allowed (only tab, line feed and carriage return are)',
    ]);
    expect(problemsOf('groups:\n  - name: a\ud800b\n')).toEqual([
      'f.yaml:2:12: lone surrogate U+D800 (half of a UTF-16 pair): not text, the API cannot store it',
    ]);
  });

  it('escapes that make the same characters in a double-quoted value are refused at the value', () => {
    const expected = (col: number, what: string) => [
      `f.yaml:2:${col} groups[0].name: invalid string value: ${what}`,
    ];
    expect(problemsOf('groups:\n  - name: "a\\uD800"\n')).toEqual(
      expected(11, 'lone surrogate U+D800 (half of a UTF-16 pair): not text, the API cannot store it'),
    );
    expect(problemsOf('groups:\n  - name: "a\\0"\n')).toEqual(
      expected(11, 'NUL character (U+0000) is not allowed: the API cannot store it'),
    );
    expect(readFast('f.yaml', 'groups:\n  - name: "a\\x00"\n')).toBeUndefined();
    // A pair written as two escapes is one character, and fine; so are tab and line feed escapes.
    const fine = validateSources([{ file: 'f.yaml', text: 'groups:\n  - name: "a\\uD83D\\uDE00\\t\\n"\n' }], {
      env: {},
    });
    expect(fine.ok && fine.config.state.groups[0]?.name).toBe('a\u{1F600}\t\n');
  });

  it('a yaml message quoting the source is cut to its first line and 120 characters', () => {
    const long = 'x'.repeat(5000);
    const problems = parseYamlFile('f.yaml', `a: |${long}\n  b\n`, {}).problems.map(formatProblem);
    expect(problems.length).toBeGreaterThan(0);
    for (const line of problems) expect(line.length).toBeLessThan(200);
  });
});
