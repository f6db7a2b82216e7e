/**
 * The text of runs over environments of wafctl.yaml: the heading of one environment's plan, drift
 * report or apply, the sections of several environments' outputs, one after the other, and the
 * summary table that opens them (one row per environment: core/fleet-summary.ts).
 */
import { type EnvironmentSummary, errorLine } from '../../core/fleet-summary.js';
import { plural, printable } from '../../core/text.js';
import { cutToFit, markdownText } from './markdown-text.js';

/** The first line of a text plan, drift report or apply made for an environment; none without one. */
export function environmentHeading(environment: string | undefined): string | undefined {
  return environment === undefined ? undefined : `Environment: ${environment}`;
}

/**
 * Text output of several environments: each one's under `== Environment: NAME ==`, in the order
 * given; `missing` starts the line of one that failed (its error is printed at the end).
 */
export function textSections(
  names: readonly string[],
  outputs: readonly (string | undefined)[],
  missing: string,
): string {
  return names.map((name, i) => textSection(name, outputs[i], missing, i)).join('');
}

/** One environment's section of `textSections`, the `index`-th (all but the first open with a blank line). */
export function textSection(
  name: string,
  output: string | undefined,
  missing: string,
  index: number,
): string {
  const shown = output ?? `${missing}: this environment failed (the error is shown at the end).\n`;
  return `${index === 0 ? '' : '\n'}== Environment: ${name} ==\n${shown}`;
}

/** What a command's row says of an environment that ran: `3 changes`, `no drift`, `invalid: 2 problems`. */
export function resultOf(command: 'plan' | 'drift' | 'validate', count: number): string {
  if (command === 'plan') return count === 0 ? 'no changes' : plural(count, 'change');
  if (command === 'drift') return count === 0 ? 'no drift' : `drift: ${plural(count, 'object')}`;
  return count === 0 ? 'valid' : `invalid: ${plural(count, 'problem')}`;
}

/** The summary of an environment that failed: its error, and nothing it did not get to. */
export function failedSummary(error: unknown): EnvironmentSummary {
  return { result: 'failed', count: null, impact: null, error: errorLine(error) };
}

const HEADINGS = ['Environment', 'Result', 'Impact', 'Error'] as const;

const cells = ({ name, summary }: SummaryRow): string[] => [
  printable(name),
  summary.result,
  summary.impact ?? '',
  summary.error ?? '',
];

/** One environment's summary under its name. */
export interface SummaryRow {
  name: string;
  summary: EnvironmentSummary;
}

/**
 * The table that opens the text output of several environments: one aligned row each, in the order
 * given, then a blank line.
 */
export function textSummaryTable(rows: readonly SummaryRow[]): string {
  const table = [[...HEADINGS], ...rows.map(cells)];
  const widths = HEADINGS.map((_, column) =>
    table.reduce((widest, row) => Math.max(widest, row[column]?.length ?? 0), 0),
  );
  const lines = table.map((row) =>
    row
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd(),
  );
  return `${lines.join('\n')}\n\n`;
}

/** Data in a markdown table cell: escaped as markdown text, and `|` cannot end the cell. */
const markdownCell = (text: string): string => markdownText(text).replaceAll('|', '\\|');

/**
 * The characters of one markdown row, the name's aside: what `--max-chars` reserves for each
 * environment's row. A longer error is cut to fit (the whole error is on stderr).
 */
export const MARKDOWN_ROW_CHARS = 120;

const MARKDOWN_TABLE_HEAD = `| ${HEADINGS.join(' | ')} |\n| --- | --- | --- | --- |\n`;

/** The markdown table's most characters for these names: what `--max-chars` reserves for it. */
export function markdownSummaryBudget(names: readonly string[]): number {
  return (
    MARKDOWN_TABLE_HEAD.length +
    names.reduce((n, name) => n + markdownCell(name).length + MARKDOWN_ROW_CHARS, 0) +
    1
  );
}

function markdownRow({ name, summary }: SummaryRow): string {
  const start = `| ${markdownCell(name)} | ${markdownCell(summary.result)} | ${markdownCell(summary.impact ?? '')} | `;
  const room = MARKDOWN_ROW_CHARS - (start.length - markdownCell(name).length) - '|\n'.length;
  const error = cutToFit(summary.error ?? '', markdownCell, room - 1);
  return `${start}${markdownCell(error)} |\n`;
}

/** The table that opens the markdown of several environments. */
export function markdownSummaryTable(rows: readonly SummaryRow[]): string {
  return `${MARKDOWN_TABLE_HEAD}${rows.map(markdownRow).join('')}`;
}
