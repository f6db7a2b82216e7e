/** A plain aligned table: two spaces between columns, no trailing blanks, long or odd cells tamed. */
import { printable } from '../../core/text.js';

/** Wider cells are cut with an ellipsis: the table is for reading; JSON and YAML carry full values. */
export const MAX_CELL_WIDTH = 60;

/** Control characters (a newline in a description) would break the rows apart: shown escaped. */
function oneLine(cell: string): string {
  const flat = printable(cell);
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
