/** `wafctl get` output: a table for people, or the whole records as JSON or YAML for scripts. */
import { Document } from 'yaml';
import type { ListKind } from '../../api/index.js';
import { ciSafeYaml } from '../ci-safe-yaml.js';
import { getKindNamed } from './kinds.js';
import { renderTable } from './table.js';

export const OUTPUT_FORMATS = ['table', 'json', 'yaml'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** Records as the API sent them, minus what the client adds (`complete` on application rules). */
function publicRecord(record: object): object {
  if (!('complete' in record)) return record;
  const { complete: _complete, ...rest } = record;
  return rest;
}

function serialise(value: unknown, format: 'json' | 'yaml'): string {
  return format === 'json'
    ? `${JSON.stringify(value, null, 2)}\n`
    : ciSafeYaml(new Document(value), { lineWidth: 0 });
}

export function renderRecords(
  kind: ListKind,
  records: readonly object[],
  format: OutputFormat,
  options: { color: boolean },
): string {
  if (format !== 'table') return serialise(records.map(publicRecord), format);
  const { columns } = getKindNamed(kind).spec;
  return renderTable(
    columns.map((c) => c.header),
    records.map((record) => columns.map((c) => c.cell(record))),
    options,
  );
}

/** One object: JSON and YAML show the object itself (not a list of one); the table, one row. */
export function renderRecord(
  kind: ListKind,
  record: object,
  format: OutputFormat,
  options: { color: boolean },
): string {
  if (format !== 'table') return serialise(publicRecord(record), format);
  return renderRecords(kind, [record], format, options);
}
