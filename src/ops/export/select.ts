/**
 * Which remote objects of a kind can be written as configuration, in which order, and which must be
 * left out (with the reason). An object is left out when it cannot be keyed (an empty natural-key
 * field, or a key it shares with another object: the planner would refuse to touch either) or when
 * the server holds a value the configuration format refuses (the file would not load: a `match`
 * expression RE2 cannot compile is one, see catalog-extensions.ts). An object the server refuses to
 * change (`readOnly`: the built-in `admins` group) is no configuration at all: it is written as a
 * comment, and does not count as left out (the planner never prunes it).
 */
import type * as z from 'zod';
import { valueProblem } from '../../config/text-checks.js';
import type { Attributes, KindName } from '../../core/model.js';
import type { Kind, RemoteRecord } from '../../kinds/index.js';
import type { ValueComment } from '../../kinds/kind.js';
import { catalogProblem, RULES_SECTION } from './catalog-extensions.js';
import { omitDefaults } from './defaults.js';

export interface LeftOut {
  kind: KindName;
  id: string;
  key: string;
  reason: string;
}

/**
 * A read-only object as the configuration's expectation of it (kinds/kind.ts `expectation`): the
 * section (`admins`) and the live values of the fields its defaults check (`users`, by username).
 */
export interface Expectation {
  section: string;
  object: Attributes;
}

/** A read-only object, written as a comment: `admins: built in, read-only (members: admin)`. */
export interface ReadOnlyNote {
  key: string;
  note: string;
}

/** A trailing comment on a value of `objects[index]`. */
export interface ObjectComment extends ValueComment {
  index: number;
}

export interface SelectedObjects {
  /** Ordered by natural key, default values omitted: exactly what the file declares. */
  objects: Attributes[];
  leftOut: LeftOut[];
  /** Ordered by key. */
  readOnly: ReadOnlyNote[];
  comments: ObjectComment[];
  /** The kind's read-only object, as its expectation section (`admins:`). */
  expectation?: Expectation;
}

function compareKeys(a: RemoteRecord, b: RemoteRecord): number {
  // Code-unit order, not locale order: the same bytes on every machine.
  return a.key < b.key ? -1 : a.key > b.key ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function emptyKeyField(kind: Kind, record: RemoteRecord): string | undefined {
  return kind.keyFields.find((field) => {
    const value = record.attributes[field];
    return value === undefined || value === null || value === '';
  });
}

function describeKey(kind: Kind, record: RemoteRecord): string {
  return kind.keyFields
    .map((field) => `${field} ${JSON.stringify(record.attributes[field] ?? '')}`)
    .join(' and ');
}

function invalidValues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length > 0 ? `${issue.path.join('.')}: ` : ''}${issue.message}`)
    .join('; ');
}

/** The first string (a key or a value, at any depth) a configuration file cannot hold, and why. */
function unstorableValue(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') {
    const problem = valueProblem(value);
    return problem === undefined ? undefined : `${path === '' ? '' : `${path}: `}${problem}`;
  }
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, field] of Object.entries(value)) {
    const at = path === '' ? key : `${path}.${key}`;
    const found =
      valueProblem(key) === undefined ? unstorableValue(field, at) : `${at}: a key ${valueProblem(key)}`;
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Why the configuration cannot hold `object` (defaults omitted), or undefined: a value its schema
 * refuses, a string no YAML file can hold (a NUL, a lone surrogate), or a rule that no setting makes
 * validate accept (a `match` expression RE2 cannot compile: catalog-extensions.ts).
 */
function refusedValue(kind: Kind, object: Attributes): string | undefined {
  const checked = kind.schema.safeParse(object);
  if (!checked.success) {
    return `the server holds values the configuration format refuses: ${invalidValues(checked.error)}`;
  }
  const unstorable = unstorableValue(object);
  if (unstorable !== undefined) {
    return `the server holds a value the configuration format cannot hold: ${unstorable}`;
  }
  return kind.section === RULES_SECTION ? catalogProblem(object) : undefined;
}

export function selectExportable(kind: Kind, records: readonly RemoteRecord[]): SelectedObjects {
  const leftOut: LeftOut[] = [];
  const leave = (record: RemoteRecord, reason: string) =>
    leftOut.push({ kind: kind.name, id: record.id, key: record.key, reason });
  const keyFields = kind.keyFields.join(' and ');

  const byKey = new Map<string, RemoteRecord[]>();
  for (const record of records) {
    const same = byKey.get(record.key);
    if (same) same.push(record);
    else byKey.set(record.key, [record]);
  }

  const objects: Attributes[] = [];
  const readOnly: ReadOnlyNote[] = [];
  const comments: ObjectComment[] = [];
  let expectation: Expectation | undefined;
  for (const record of [...records].sort(compareKeys)) {
    if (record.readOnly !== undefined) {
      // What the configuration expects of it (`admins:`): its live values of the checked fields.
      const expected = kind.expectation;
      if (expected !== undefined && record.key === expected.key) {
        const fields = Object.keys(expected.defaults);
        expectation = {
          section: expected.section,
          object: Object.fromEntries(fields.map((field) => [field, record.attributes[field]])),
        };
      } else readOnly.push({ key: record.key, note: record.readOnly });
      continue;
    }
    const empty = emptyKeyField(kind, record);
    if (empty !== undefined) {
      leave(record, `it has no ${empty}, and ${kind.section.replaceAll('_', ' ')} are keyed by ${keyFields}`);
      continue;
    }
    const twins = (byKey.get(record.key) ?? []).filter((other) => other.id !== record.id);
    if (twins.length > 0) {
      const ids = twins.map((other) => other.id).join(', ');
      leave(
        record,
        `it has the same ${describeKey(kind, record)} as ${ids}: objects sharing a key cannot be told apart`,
      );
      continue;
    }
    const object = omitDefaults(record.attributes, kind.schema) as Attributes;
    const refused = refusedValue(kind, object);
    if (refused !== undefined) {
      leave(record, refused);
      continue;
    }
    for (const comment of record.comments ?? []) comments.push({ ...comment, index: objects.length });
    objects.push(object);
  }
  return { objects, leftOut, readOnly, comments, ...(expectation === undefined ? {} : { expectation }) };
}
