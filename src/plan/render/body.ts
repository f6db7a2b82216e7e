/**
 * The body of one change as signed lines, shared by the text and markdown renderers so both always
 * show the same thing. One recursive function (`changedValue`) turns a (before, after) pair into
 * lines at any depth, and one (`wholeValue`) shows a value that is only added or only removed:
 * creates, deletes, updates and replaces are all made of these two.
 *
 * - Objects and non-empty lists are `{ }` / `[ ]` blocks at every depth, never inline JSON; only
 *   scalars and empty `[]` / `{}` are inline.
 * - Every list in this domain is a set (the kinds sort them canonically before the planner compares
 *   them), so a changed list is shown as members removed and added, matched by deep equality: a
 *   member has no identity but its value, and pairing members by position would invent one.
 * - Every string is one JSON line, its line breaks and other control characters escaped (`\n`):
 *   a value never spreads over lines, so text in it can never stand on a line of its own (a name
 *   `x\nPlan: 0 to add, ...` shows as one line, as it does in the headers). A changed long string
 *   is its old and its new line (`-` then `+`) rather than one `~ old -> new` line.
 *
 * Every line's text is printable: values are JSON (escaped by JSON.stringify, then by `printable` for
 * what JSON leaves raw: DEL, C1 controls, U+2028/2029, bidi controls), and field names and object
 * keys go through `printable`, so data can never start a line of its own.
 */

import { canonicalJson, sameJson } from '../../core/canonical.js';
import type { Attributes, Change } from '../../core/model.js';
import { printable } from '../../core/text.js';
import { KINDS } from '../../kinds/index.js';

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
  /**
   * On the closing line of a block added or removed as a whole: its sign. Terraform leaves closing
   * brackets unsigned; a diff view colours them with the rest of the block they end.
   */
  closes?: '+' | '-';
}

/** Above this, or with a line break, a changed string is a `-`/`+` pair rather than `~ old -> new`. */
const LONG_STRING = 72;
/** A changed object with at most this many fields also shows its unchanged inline ones. */
const SMALL_OBJECT = 8;
/** A changed set with at most this many unchanged scalar members shows them (else counts them). */
const SET_CONTEXT = 10;

type Lines = BodyLine[];
type Fields = Record<string, unknown>;

/** JSON.stringify escapes C0 controls but leaves DEL, C1, U+2028/2029 and bidi controls raw. */
const json = (value: unknown): string => printable(JSON.stringify(value) ?? 'null');
const isFields = (value: unknown): value is Fields =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
const isLongString = (value: unknown): value is string =>
  typeof value === 'string' && (value.length > LONG_STRING || value.includes('\n'));
/** Shown on its label's line: scalars (every string), and empty lists and objects. */
const isInline = (value: unknown): boolean =>
  !(value !== null && typeof value === 'object' && Object.keys(value).length > 0);
const hiddenLine = (depth: number, n: number, what: 'attribute' | 'element'): BodyLine => ({
  sign: ' ',
  depth,
  text: `# (${n} unchanged ${what}${n === 1 ? '' : 's'} hidden)`,
});

/** Field names, escaped and padded to the longest so the `=` line up. */
function padLabels(fields: readonly string[]): (field: string) => string {
  const width = fields.reduce((max, f) => Math.max(max, printable(f).length), 0);
  return (field) => printable(field).padEnd(width);
}

/** A value that is only added or only removed, `sign` at every depth (`label` undefined for a list member). */
function wholeValue(out: Lines, sign: '+' | '-', depth: number, label: string | undefined, value: unknown) {
  const prefix = label === undefined ? '' : `${label} = `;
  if (isInline(value)) {
    out.push({ sign, depth, text: `${prefix}${json(value)}` });
    return;
  }
  let close: string;
  if (Array.isArray(value)) {
    out.push({ sign, depth, text: `${prefix}[` });
    for (const member of value) wholeValue(out, sign, depth + 1, undefined, member);
    close = ']';
  } else {
    const record = value as Fields;
    const pad = padLabels(Object.keys(record));
    out.push({ sign, depth, text: `${prefix}{` });
    for (const [key, field] of Object.entries(record)) wholeValue(out, sign, depth + 1, pad(key), field);
    close = '}';
  }
  out.push({ sign: ' ', depth, text: close, closes: sign });
}

/** A field present before, after, or both, under `label`: added, removed or changed. */
function fieldLines(
  out: Lines,
  depth: number,
  label: string,
  before: Fields,
  after: Fields,
  field: string,
  note?: string,
) {
  const start = out.length;
  if (!Object.hasOwn(before, field)) wholeValue(out, '+', depth, label, after[field]);
  else if (!Object.hasOwn(after, field)) wholeValue(out, '-', depth, label, before[field]);
  else return changedValue(out, depth, label, before[field], after[field], note);
  if (note !== undefined) out[start]!.note = note;
}

/** A value that differs between `before` and `after`, under `label`, at any depth. */
function changedValue(
  out: Lines,
  depth: number,
  label: string,
  before: unknown,
  after: unknown,
  note?: string,
) {
  let start = out.length;
  if (Array.isArray(before) && Array.isArray(after)) changedSet(out, depth, label, before, after);
  else if (isFields(before) && isFields(after)) changedObject(out, depth, label, before, after);
  else if (isInline(before) && isInline(after) && !isLongString(before) && !isLongString(after)) {
    out.push({
      sign: '~',
      depth,
      text: `${label} = ${json(before)} -> ${json(after)}`,
      old: `${label} = ${json(before)}`,
      new: `${label} = ${json(after)}`,
    });
  } else {
    // A long string (its old line, then its new one), or a change of shape (null to a list): shown
    // as the old value removed and the new one added.
    wholeValue(out, '-', depth, label, before);
    start = out.length;
    wholeValue(out, '+', depth, label, after);
  }
  // On the opening line (of the new value, for a `-`/`+` pair), as Terraform puts it.
  if (note !== undefined) out[start]!.note = note;
}

/**
 * Changed fields, in the order of `after` then removed ones. A small object (a notification's
 * `settings`) also shows its unchanged inline fields, which a reviewer needs to read the change
 * (the port changed: on which address?); unchanged blocks are counted, never shown.
 */
function changedObject(out: Lines, depth: number, label: string, before: Fields, after: Fields) {
  const keys = [...new Set([...Object.keys(after), ...Object.keys(before)])];
  // A missing field reads undefined, which the one equality tells from every written value.
  const changed = (key: string) => !sameJson(before[key], after[key]);
  const context = (value: unknown) => isInline(value) && !isLongString(value);
  const shown = keys.filter((key) => changed(key) || (keys.length <= SMALL_OBJECT && context(after[key])));
  const pad = padLabels(shown);
  out.push({ sign: '~', depth, text: `${label} = {` });
  for (const key of shown) {
    if (changed(key)) fieldLines(out, depth + 1, pad(key), before, after, key);
    else out.push({ sign: ' ', depth: depth + 1, text: `${pad(key)} = ${json(after[key])}` });
  }
  if (shown.length < keys.length) out.push(hiddenLine(depth + 1, keys.length - shown.length, 'attribute'));
  out.push({ sign: ' ', depth, text: '}' });
}

/**
 * A set: members removed and added, matched by deep equality (counted, so a repeated member is
 * matched once per repetition), in canonical order, so the output reads like the sorted set it is
 * and a member and its edited copy often sit side by side. Unchanged scalar members are context
 * in a small set; unchanged object members, which are blocks, are counted.
 */
function changedSet(out: Lines, depth: number, label: string, before: unknown[], after: unknown[]) {
  const left = new Map<string, number>();
  for (const member of before) {
    const key = canonicalJson(member);
    left.set(key, (left.get(key) ?? 0) + 1);
  }
  const members: { key: string; sign: '+' | '-' | ' '; value: unknown }[] = [];
  for (const value of after) {
    const key = canonicalJson(value);
    const n = left.get(key) ?? 0;
    if (n > 0) left.set(key, n - 1);
    members.push({ key, sign: n > 0 ? ' ' : '+', value });
  }
  for (const value of before) {
    const key = canonicalJson(value);
    const n = left.get(key) ?? 0;
    if (n === 0) continue;
    left.set(key, n - 1);
    members.push({ key, sign: '-', value });
  }
  members.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));

  const isScalar = isInline;
  const showContext = members.filter((m) => m.sign === ' ' && isScalar(m.value)).length <= SET_CONTEXT;
  let hidden = 0;
  out.push({ sign: '~', depth, text: `${label} = [` });
  for (const member of members) {
    if (member.sign !== ' ') wholeValue(out, member.sign, depth + 1, undefined, member.value);
    else if (showContext && isScalar(member.value)) {
      out.push({ sign: ' ', depth: depth + 1, text: json(member.value) });
    } else hidden += 1;
  }
  if (hidden > 0) out.push(hiddenLine(depth + 1, hidden, 'element'));
  out.push({ sign: ' ', depth, text: ']' });
}

/** The signed lines of one change's body, members shown by username where `usernames` names them. */
export function changeBody(shown: Change, usernames?: Readonly<Record<string, string>>): BodyLine[] {
  const change = withMemberNames(shown, usernames);
  const out: Lines = [];
  switch (change.action) {
    case 'create':
    case 'delete': {
      const attributes = change.action === 'create' ? change.after : change.before;
      const sign = change.action === 'create' ? '+' : '-';
      const fields = Object.keys(attributes);
      const pad = padLabels(change.action === 'delete' ? ['id', ...fields] : fields);
      if (change.action === 'delete') out.push({ sign, depth: 0, text: `${pad('id')} = ${json(change.id)}` });
      for (const field of fields) wholeValue(out, sign, 0, pad(field), attributes[field]);
      return out;
    }
    case 'update': {
      const pad = padLabels(['id', ...change.fields]);
      out.push({ sign: ' ', depth: 0, text: `${pad('id')} = ${json(change.id)}` });
      // The whole objects, read at the changed fields only; the others are counted.
      for (const field of change.fields) fieldLines(out, 0, pad(field), change.before, change.after, field);
      const hidden = Object.keys(change.after).length - change.fields.length;
      if (hidden > 0) out.push(hiddenLine(0, hidden, 'attribute'));
      return out;
    }
    case 'replace': {
      const fields = Object.keys(change.after);
      const changed = fields.filter((f) => !sameJson(change.before[f], change.after[f]));
      const pad = padLabels(['id', ...changed]);
      out.push({ sign: ' ', depth: 0, text: `${pad('id')} = ${json(change.id)} -> (known after apply)` });
      for (const field of changed) {
        const note = change.forced_by.includes(field) ? '# forces replacement' : undefined;
        fieldLines(out, 0, pad(field), change.before, change.after, field, note);
      }
      if (changed.length < fields.length)
        out.push(hiddenLine(0, fields.length - changed.length, 'attribute'));
      return out;
    }
  }
}

/**
 * The change as shown: the members of its kind's `userFields` (ids in the plan) written `name (id)`
 * where the plan's `usernames` names them, so a reviewer reads the file's names. Display only: what
 * is compared and sent stays the ids.
 */
function withMemberNames<C extends Change>(
  change: C,
  usernames: Readonly<Record<string, string>> | undefined,
): C {
  const fields = KINDS.find((kind) => kind.name === change.kind)?.userFields ?? [];
  if (usernames === undefined || fields.length === 0) return change;
  const named = (object: Attributes | null): Attributes | null => {
    if (object === null) return null;
    const copy: Attributes = { ...object };
    for (const field of fields) {
      const members = copy[field];
      if (!Array.isArray(members)) continue;
      copy[field] = members.map((id) =>
        typeof id === 'string' && Object.hasOwn(usernames, id) ? `${usernames[id]} (${id})` : id,
      );
    }
    return copy;
  };
  return { ...change, before: named(change.before), after: named(change.after) } as C;
}
