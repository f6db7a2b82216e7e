/**
 * A configuration problem is `{file, line, col, path, message}`, printed
 * `FILE:LINE:COL path: message`. All problems of a run are collected and reported together.
 */
import { WafctlError } from '../core/errors.js';
import { plural, printable } from '../core/text.js';

export interface ConfigProblem {
  /** The path as the user gave it (relative stays relative). */
  file: string;
  /** 1-based; 0 when the problem is about the file as a whole and has no position (e.g. not found). */
  line: number;
  col: number;
  /** YAML path such as `groups[0].permissions[1].permission`; "" for problems about a whole document. */
  path: string;
  message: string;
  /**
   * Set on the one entry that stands for problems not listed (`N more problems in this file not
   * shown`): how many. Absent on every real problem.
   */
  hidden?: number;
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
export function problemSummary(problems: readonly ConfigProblem[], total = problems.length): string {
  const files = new Set(problems.map((p) => p.file)).size;
  return `${plural(total, 'problem')} in ${plural(files, 'file')}.`;
}

/** Problems shown per file: 100,000 broken items must not print 100,000 lines. */
export const MAX_PROBLEMS_PER_FILE = 100;

/** The entry that stands for `count` problems of `file` that are not listed. */
export function hiddenProblems(file: string, count: number): ConfigProblem {
  const message = `${plural(count, 'more problem')} in this file not shown`;
  return { file, line: 0, col: 0, path: '', message, hidden: count };
}

/** How many problems `problems` stands for: each real one, and what each `hidden` entry counts. */
export function problemCount(problems: readonly ConfigProblem[]): number {
  return problems.reduce((sum, problem) => sum + (problem.hidden ?? 1), 0);
}

/**
 * The first MAX_PROBLEMS_PER_FILE problems of each file (sorted), then one entry for the rest,
 * including any `hidden` entry found (a document whose problems were never all placed):
 * `f.yaml: 99900 more problems in this file not shown`.
 */
export function capProblems(sorted: readonly ConfigProblem[]): ConfigProblem[] {
  const shown: ConfigProblem[] = [];
  let index = 0;
  while (index < sorted.length) {
    const file = sorted[index]?.file ?? '';
    let kept = 0;
    let hidden = 0;
    for (; index < sorted.length && sorted[index]?.file === file; index++) {
      const problem = sorted[index] as ConfigProblem;
      if (problem.hidden !== undefined) hidden += problem.hidden;
      else if (kept < MAX_PROBLEMS_PER_FILE) {
        shown.push(problem);
        kept++;
      } else hidden++;
    }
    if (hidden > 0) shown.push(hiddenProblems(file, hidden));
  }
  return shown;
}

/** Every problem of a run, thrown as one error: its message lists them, capped per file. */
export class ConfigError extends WafctlError {
  /** What is shown: at most MAX_PROBLEMS_PER_FILE per file, and a line for each file's rest. */
  readonly problems: ConfigProblem[];
  /** Every problem found, shown or not. */
  readonly total: number;

  /** The checks the problems kept from running, each with why (`Not checked ...`). */
  readonly skipped: string[];

  constructor(problems: readonly ConfigProblem[], skipped: readonly string[] = []) {
    const sorted = sortProblems(problems);
    const shown = capProblems(sorted);
    const total = problemCount(sorted);
    const notChecked =
      skipped.length === 0 ? [] : [`Not checked because of the problems above: ${skipped.join('; ')}.`];
    super(
      'CONFIG_INVALID',
      [...shown.map(formatProblem), problemSummary(shown, total), ...notChecked].join('\n'),
      {
        userFault: true,
      },
    );
    this.problems = shown;
    this.total = total;
    this.skipped = [...skipped];
  }
}
