/**
 * What the stored state must satisfy, or a later write corrupts it without a word, read from the
 * collection table (collections.ts):
 *
 * - the key is unique in every collection (an id; a notification's name), since a Map keeps only
 *   the last of two records with one key;
 * - so are a collection's `unique` fields, as the API's writes keep them (group and schedule names);
 * - every id the store hands out from a counter (a collection's `counter`, and its `innerIds`:
 *   groups, application rules and their conditions, schedules) is below that counter in `next_ids`:
 *   else the next POST gets an existing id and replaces that record. A journal's counters never go
 *   back.
 *
 * The state file is checked whole when it loads (persistence/snapshot.ts, through the table's
 * format); each journal record is checked as it is replayed (Store.replay), against the state it
 * applies to, for what it touches only, so replay stays linear in the journal.
 */
import type { CollectionSpec, StoreRecord, StoreState } from './collections.js';
import type { StateIssue } from './persistence/format.js';

type Fields = Readonly<Record<string, unknown>>;
/** The id counters, by name (a test's collections may add counters the built-in type does not name). */
type Counters = Readonly<Record<string, number>>;

/** The number an id stands for when the store could have handed it out (`String(n)`), else undefined. */
export function counterValue(id: string): number | undefined {
  if (!/^(?:0|[1-9][0-9]*)$/.test(id)) return undefined;
  const n = Number(id);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** The problem with `id` under counter `kind` at `next`, or undefined. */
function idBeyondCounter(id: string, kind: string, next: number): string | undefined {
  const n = counterValue(id);
  if (n === undefined || n < next) return undefined;
  return `id '${id}' is not below next_ids.${kind} (${next}): the next one created would get it and replace this one`;
}

/** The fields unique within a collection: its key, then its `unique` fields. */
function uniqueFields(spec: CollectionSpec): readonly string[] {
  return [spec.key, ...(spec.unique ?? [])];
}

/** The records of a collection in a whole state (the state's type names the built-ins only). */
function recordsIn(state: StoreState, spec: CollectionSpec): readonly Fields[] {
  return (state as unknown as Record<string, readonly Fields[]>)[spec.name] ?? [];
}

/**
 * An issue for each id in `records` (at `path`) that a counter of `spec` would hand out again at
 * `nextIds`: the records' own ids, and the ids inside them (`innerIds`).
 */
function countedIdIssues(
  spec: CollectionSpec,
  records: readonly Fields[],
  nextIds: Counters,
  path: readonly (string | number)[],
  issues: StateIssue[],
): void {
  const { counter, innerIds } = spec;
  if (counter === undefined && innerIds === undefined) return;
  records.forEach((record, index) => {
    if (counter !== undefined) {
      const problem = idBeyondCounter(String(record[spec.key]), counter, nextIds[counter] ?? 1);
      if (problem !== undefined) issues.push({ path: [...path, index, spec.key], message: problem });
    }
    if (innerIds === undefined) return;
    const inner = (record[innerIds.field] ?? []) as readonly Fields[];
    inner.forEach((item, at) => {
      const problem = idBeyondCounter(String(item.id), innerIds.counter, nextIds[innerIds.counter] ?? 1);
      if (problem !== undefined) {
        issues.push({ path: [...path, index, innerIds.field, at, 'id'], message: problem });
      }
    });
  });
}

/** Issues for the second and later records sharing a value of `field`. */
function duplicates(list: string, field: string, records: readonly Fields[], issues: StateIssue[]): void {
  const first = new Map<string, number>();
  records.forEach((record, index) => {
    const value = String(record[field]);
    const earlier = first.get(value);
    if (earlier === undefined) first.set(value, index);
    else
      issues.push({
        path: [list, index, field],
        message: `duplicate ${field} '${value}' (also ${list}.${earlier})`,
      });
  });
}

/** Everything wrong with a whole state (a state file) of these collections, each at its path. */
export function stateIssues(specs: readonly CollectionSpec[], state: StoreState): StateIssue[] {
  const issues: StateIssue[] = [];
  for (const spec of specs) {
    const records = recordsIn(state, spec);
    for (const field of uniqueFields(spec)) duplicates(spec.name, field, records, issues);
  }
  for (const spec of specs) {
    countedIdIssues(spec, recordsIn(state, spec), state.next_ids, [spec.name], issues);
  }
  return issues;
}

/** The upserts of one collection in a journal record. */
function upserts(record: StoreRecord, spec: CollectionSpec): readonly Fields[] {
  const changes = record.changes as Readonly<Record<string, { upsert: readonly Fields[] } | undefined>>;
  return changes[spec.name]?.upsert ?? [];
}

/**
 * Before applying a journal record to a store of these collections whose counters are `before`:
 * counters never go back, and no key is upserted twice in one record.
 */
export function issueBeforeReplay(
  specs: readonly CollectionSpec[],
  record: StoreRecord,
  before: Counters,
): StateIssue | undefined {
  const after: Counters = record.next_ids;
  for (const kind of Object.keys(before)) {
    const was = before[kind] ?? 1;
    const now = after[kind] ?? 1;
    if (now < was) {
      return {
        path: ['next_ids', kind],
        message: `${now} is below ${was}, the counter before this line (counters never go back)`,
      };
    }
  }
  for (const spec of specs) {
    const seen = new Set<string>();
    for (const [index, upserted] of upserts(record, spec).entries()) {
      const key = String(upserted[spec.key]);
      if (seen.has(key)) {
        return {
          path: ['changes', spec.name, 'upsert', index, spec.key],
          message: `${spec.key} '${key}' is upserted twice`,
        };
      }
      seen.add(key);
    }
  }
  return undefined;
}

/**
 * After applying a journal record: every counted id it upserts below its counter, and its values of
 * the unique fields unique in the collections as they now stand (`recordsOf`).
 */
export function issueAfterReplay(
  specs: readonly CollectionSpec[],
  record: StoreRecord,
  recordsOf: (spec: CollectionSpec) => Iterable<object>,
): StateIssue | undefined {
  const issues: StateIssue[] = [];
  for (const spec of specs) {
    countedIdIssues(spec, upserts(record, spec), record.next_ids, ['changes', spec.name, 'upsert'], issues);
  }
  if (issues[0] !== undefined) return issues[0];
  for (const spec of specs) {
    const changed = upserts(record, spec);
    if (changed.length === 0) continue;
    for (const field of spec.unique ?? []) {
      // Values after the record: one scan of the collection per record that touches it.
      const keysByValue = new Map<string, string[]>();
      for (const stored of recordsOf(spec) as Iterable<Fields>) {
        const value = String(stored[field]);
        const key = String(stored[spec.key]);
        const keys = keysByValue.get(value);
        if (keys === undefined) keysByValue.set(value, [key]);
        else keys.push(key);
      }
      for (const [index, upserted] of changed.entries()) {
        const value = String(upserted[field]);
        const other = keysByValue.get(value)?.find((key) => key !== String(upserted[spec.key]));
        if (other !== undefined) {
          const named = field === 'name' ? `named '${value}'` : `with ${field} '${value}'`;
          return {
            path: ['changes', spec.name, 'upsert', index, field],
            message: `a ${spec.noun} ${named} exists already (${spec.key} '${other}')`,
          };
        }
      }
    }
  }
  return undefined;
}
