/**
 * Replays the journal over the store the state file built, checking each record against the state
 * it applies to (the invariants of invariants.ts): a record that would bring in a second group of a
 * name, or an id its counters would hand out again, stops the start naming its file and line. Each
 * record is checked for what it touches only, so replay stays linear in the journal.
 */
import { WafctlError } from '../core/errors.js';
import { COUNTED_IDS, idBeyondCounter, type StateIssue } from './invariants.js';
import type { JournalEntry } from './journal.js';
import type { NextIds } from './records.js';
import type { Store, StoreChanges } from './store.js';

type Upserted = { id?: string; name?: string };

/** The upserts of one collection in a record. */
function upserts(changes: StoreChanges, list: keyof StoreChanges): readonly Upserted[] {
  return (changes[list]?.upsert ?? []) as readonly Upserted[];
}

/** Before applying: counters never go back, and no key is upserted twice in one record. */
function issueBefore(entry: JournalEntry, counters: NextIds): StateIssue | undefined {
  for (const kind of Object.keys(counters) as (keyof NextIds)[]) {
    if (entry.next_ids[kind] < counters[kind]) {
      return {
        path: ['next_ids', kind],
        message: `${entry.next_ids[kind]} is below ${counters[kind]}, the counter before this line (counters never go back)`,
      };
    }
  }
  for (const list of Object.keys(entry.changes) as (keyof StoreChanges)[]) {
    const seen = new Set<string>();
    const field = list === 'notifications' ? 'name' : 'id';
    for (const [index, record] of upserts(entry.changes, list).entries()) {
      const key = record[field] ?? '';
      if (seen.has(key)) {
        return {
          path: ['changes', list, 'upsert', index, field],
          message: `${field} '${key}' is upserted twice`,
        };
      }
      seen.add(key);
    }
  }
  return undefined;
}

/** After applying: every counted id below its counter, group and schedule names unique. */
function issueAfter(entry: JournalEntry, store: Store): StateIssue | undefined {
  for (const [list, kind] of Object.entries(COUNTED_IDS) as [keyof typeof COUNTED_IDS, keyof NextIds][]) {
    for (const [index, record] of upserts(entry.changes, list).entries()) {
      const problem = idBeyondCounter(record.id ?? '', kind, entry.next_ids[kind]);
      if (problem !== undefined) return { path: ['changes', list, 'upsert', index, 'id'], message: problem };
    }
  }
  for (const [index, rule] of (entry.changes.application_rules?.upsert ?? []).entries()) {
    for (const [at, condition] of rule.conditions.entries()) {
      const problem = idBeyondCounter(condition.id, 'condition', entry.next_ids.condition);
      if (problem !== undefined) {
        return {
          path: ['changes', 'application_rules', 'upsert', index, 'conditions', at, 'id'],
          message: problem,
        };
      }
    }
  }
  const named = [
    ['groups', 'group', store.groups],
    ['schedules', 'schedule', store.schedules],
  ] as const;
  for (const [list, noun, collection] of named) {
    const changed = upserts(entry.changes, list);
    if (changed.length === 0) continue;
    // Names after the record: one scan of the collection per record that touches it.
    const idsByName = new Map<string, string[]>();
    for (const record of collection.values()) {
      const ids = idsByName.get(record.name);
      if (ids === undefined) idsByName.set(record.name, [record.id]);
      else ids.push(record.id);
    }
    for (const [index, record] of changed.entries()) {
      const other = idsByName.get(record.name ?? '')?.find((id) => id !== record.id);
      if (other !== undefined) {
        return {
          path: ['changes', list, 'upsert', index, 'name'],
          message: `a ${noun} named '${record.name}' exists already (id '${other}')`,
        };
      }
    }
  }
  return undefined;
}

export function replayJournal(store: Store, entries: readonly JournalEntry[], journalPath: string): void {
  for (const entry of entries) {
    const before = issueBefore(entry, store.counters());
    if (before !== undefined) throw cannotReplay(journalPath, entry.line, before);
    store.applyChanges(entry.changes, entry.next_ids);
    const after = issueAfter(entry, store);
    if (after !== undefined) throw cannotReplay(journalPath, entry.line, after);
  }
}

function cannotReplay(path: string, line: number, issue: StateIssue): WafctlError {
  return new WafctlError(
    'EMULATOR_STATE',
    `emulator state journal ${path} line ${line} cannot be replayed: ${issue.path.join('.')}: ${issue.message} ` +
      '(the journal does not fit the state file: restore both from the same backup)',
    { userFault: true },
  );
}
