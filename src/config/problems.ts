/**
 * A configuration problem is `{file, line, col, path, message}`, printed
 * `FILE:LINE:COL path: message`. All problems of a run are collected and reported together.
 */
import { WafctlError } from '../errors.js';
import { plural, printable } from '../text.js';

export interface ConfigProblem {
  /** The path as the user gave it (relative stays relative). */
  file: string;
  /** 1-based; 0 when the problem is about the file as a whole and has no position (e.g. not found). */
  line: number;
  col: number;
  /** YAML path such as `groups[0].permissions[1].permission`; "" for problems about a whole document. */
  path: string;
  message: string;
}

/**
 * One problem, on one line: the file name, the YAML path and the message may quote data (a key, a
 * value), which is shown `printable` so that a `\n` in it can never start a line of its own.
 */
export function formatProblem(problem: ConfigProblem): string {
  const file = printable(problem.file);
  const where = problem.line > 0 ? `${file}:${problem.line}:${problem.col}` : file;
  const message = printable(problem.message);
  return problem.path === '' ? `${where}: ${message}` : `${where} ${printable(problem.path)}: ${message}`;
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** By file, line, column; ties keep the order they were found in (Array.prototype.sort is stable). */
export function sortProblems(problems: readonly ConfigProblem[]): ConfigProblem[] {
  return [...problems].sort((a, b) => compareStrings(a.file, b.file) || a.line - b.line || a.col - b.col);
}

/** `2 problems in 1 file.` */
export function problemSummary(problems: readonly ConfigProblem[]): string {
  const files = new Set(problems.map((p) => p.file)).size;
  return `${plural(problems.length, 'problem')} in ${plural(files, 'file')}.`;
}

export class ConfigError extends WafctlError {
  readonly problems: ConfigProblem[];

  constructor(problems: readonly ConfigProblem[]) {
    const sorted = sortProblems(problems);
    super('CONFIG_INVALID', [...sorted.map(formatProblem), problemSummary(sorted)].join('\n'), {
      userFault: true,
    });
    this.problems = sorted;
  }
}
