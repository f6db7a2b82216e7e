/** A plain aligned table: two spaces between columns, no trailing blanks, long or odd cells tamed. */
import { redact } from '../../core/secrets.js';
import { printable } from '../../core/text.js';

/** Wider cells are cut with an ellipsis: the table is for reading; JSON and YAML carry full values. */
export const MAX_CELL_WIDTH = 60;

/**
 * A cell as it will be printed, so that the widths are measured on that text: a registered secret
 * already as `[REDACTED]` (the output would redact it after the padding, shifting the columns; and
 * redacted before it is cut, so no cut-off piece of a secret escapes redaction), and control
 * characters (a newline in a description would break the rows apart) shown escaped.
 */
function oneLine(cell: string): string {
  const flat = printable(redact(cell));
  return flat.length > MAX_CELL_WIDTH ? `${flat.slice(0, MAX_CELL_WIDTH - 1)}…` : flat;
}

export interface TableOptions {
  /** Bold headers (only on a TTY; see colorEnabled). */
  color: boolean;
}

export function renderTable(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
  options: TableOptions,
): string {
  const cells = rows.map((row) => row.map(oneLine));
  const widths = headers.map((header, i) =>
    cells.reduce((width, row) => Math.max(width, (row[i] ?? '').length), header.length),
  );
  const line = (row: readonly string[]) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  const head = line(headers);
  return [options.color ? `\u001b[1m${head}\u001b[22m` : head, ...cells.map(line)].join('\n');
}
