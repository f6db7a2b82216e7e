/**
 * The body of one change as signed lines, shared by the text and markdown renderers so both always
 * show the same thing. Lists, objects and long or multi-line strings are shown as a line diff (the
 * `diff` package); scalars as `field = old -> new`.
 *
 * Every line's text is printable: values are JSON (escaped by JSON.stringify, then by `printable` for
 * what JSON leaves raw: DEL, C1 controls, U+2028/2029, bidi controls), and field names, object keys
 * and the lines of long strings go through `printable`, so data can never start a line of its own.
 */

import { createRequire } from 'node:module';
import { isDeepStrictEqual } from 'node:util';
import { printable } from '../../text.js';
import type { Attributes, Change } from '../model.js';

type DiffLibrary = typeof import('diff');
let diffLibrary: DiffLibrary | undefined;
/**
 * `diff`, loaded on first use (synchronously, as renderers return strings): a plan with no update,
 * such as a nightly drift run that finds none, never needs it, and loading it costs ~12 ms.
 */
function diff(): DiffLibrary {
  diffLibrary ??= createRequire(import.meta.url)('diff') as DiffLibrary;
  return diffLibrary;
}

export type Sign = '+' | '-' | '~' | ' ';

export interface BodyLine {
  sign: Sign;
  /** Nesting below the object's own attributes (0 for an attribute line). */
  depth: number;
  text: string;
  /** For `~ a = x -> y` lines: the same as a `-`/`+` pair, for renderers that cannot show `~`. */
  old?: string;
  new?: string;
  /** `# forces replacement`, shown after the line. */
  note?: string;
}

export interface ChangeBody {
  lines: BodyLine[];
  hidden: number;
}

const LONG_STRING = 72;

/** JSON.stringify escapes C0 controls but leaves DEL, C1, U+2028/2029 and bidi controls raw. */
const json = (value: unknown): string => printable(JSON.stringify(value) ?? 'null');
const isBlock = (value: unknown): boolean =>
  (value !== null && typeof value === 'object' && Object.keys(value).length > 0) ||
  (typeof value === 'string' && (value.length > LONG_STRING || value.includes('\n')));

/** One line per element or entry, or per line of a long string: the units a diff works on. */
function units(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(json);
  if (typeof value === 'string') return value.split('\n').map(printable);
  if (value !== null && typeof value === 'object')
    return Object.entries(value).map(([k, v]) => `${printable(k)} = ${json(v)}`);
  return [json(value)];
}

function brackets(value: unknown): [string, string] {
  if (Array.isArray(value)) return ['[', ']'];
  if (typeof value === 'string') return ['<<-EOT', 'EOT'];
  return ['{', '}'];
}

/** A whole value, every line carrying `sign` (creates and deletes). */
function valueLines(sign: Sign, label: string, value: unknown, note?: string): BodyLine[] {
  if (!isBlock(value)) return [{ sign, depth: 0, text: `${label} = ${json(value)}`, note }];
  const [open, close] = brackets(value);
  return [
    { sign, depth: 0, text: `${label} = ${open}`, note },
    ...units(value).map((text) => ({ sign, depth: 1, text })),
    { sign: ' ', depth: 0, text: close },
  ];
}

/** A changed value: a scalar as `old -> new`, anything else as a line diff. */
function diffValueLines(label: string, before: unknown, after: unknown, note?: string): BodyLine[] {
  if (!isBlock(before) && !isBlock(after)) {
    return [
      {
        sign: '~',
        depth: 0,
        text: `${label} = ${json(before)} -> ${json(after)}`,
        old: `${label} = ${json(before)}`,
        new: `${label} = ${json(after)}`,
        note,
      },
    ];
  }
  if (before === null || after === null || typeof before !== typeof after) {
    return [...valueLines('-', label, before), ...valueLines('+', label, after, note)];
  }
  const [open, close] = brackets(after);
  const inner: BodyLine[] = [];
  if (typeof after === 'string' && typeof before === 'string') {
    for (const part of diff().diffLines(before, after)) {
      const sign: Sign = part.added ? '+' : part.removed ? '-' : ' ';
      for (const text of part.value.replace(/\n$/, '').split('\n'))
        inner.push({ sign, depth: 1, text: printable(text) });
    }
  } else {
    for (const part of diff().diffArrays(units(before), units(after))) {
      const sign: Sign = part.added ? '+' : part.removed ? '-' : ' ';
      for (const text of part.value) inner.push({ sign, depth: 1, text });
    }
  }
  return [
    { sign: '~', depth: 0, text: `${label} = ${open}`, note },
    ...inner,
    { sign: ' ', depth: 0, text: close },
  ];
}

/** Field names, escaped and padded to the longest so the `=` line up. */
function padLabels(fields: readonly string[]): (field: string) => string {
  const width = fields.reduce((max, f) => Math.max(max, printable(f).length), 0);
  return (field) => printable(field).padEnd(width);
}

export function changeBody(change: Change): ChangeBody {
  switch (change.action) {
    case 'create':
    case 'delete': {
      const attributes = (change.action === 'create' ? change.after : change.before) as Attributes;
      const sign: Sign = change.action === 'create' ? '+' : '-';
      const label = padLabels(Object.keys(attributes));
      const idLine: BodyLine[] =
        change.action === 'delete'
          ? [{ sign: '-', depth: 0, text: `${label('id')} = ${json(change.id)}` }]
          : [];
      return {
        lines: [
          ...idLine,
          ...Object.entries(attributes).flatMap(([field, value]) => valueLines(sign, label(field), value)),
        ],
        hidden: 0,
      };
    }
    case 'update': {
      const label = padLabels(['id', ...change.fields]);
      return {
        lines: [
          { sign: ' ', depth: 0, text: `${label('id')} = ${json(change.id)}` },
          ...change.fields.flatMap((field) =>
            diffValueLines(label(field), change.before[field], change.after[field]),
          ),
        ],
        hidden: Object.keys(change.target).length - change.fields.length,
      };
    }
    case 'replace': {
      const fields = Object.keys(change.after);
      const changed = fields.filter((f) => !isDeepStrictEqual(change.before[f], change.after[f]));
      const label = padLabels(['id', ...changed]);
      return {
        lines: [
          { sign: ' ', depth: 0, text: `${label('id')} = ${json(change.id)} -> (known after apply)` },
          ...changed.flatMap((field) =>
            diffValueLines(
              label(field),
              change.before[field],
              change.after[field],
              change.forcedBy.includes(field) ? '# forces replacement' : undefined,
            ),
          ),
        ],
        hidden: fields.length - changed.length,
      };
    }
  }
}
