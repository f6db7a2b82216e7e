/**
 * What the stored state must satisfy, or a later write corrupts it without a word:
 *
 * - keys are unique in every collection (ids; a notification's name), since a Map keeps only the
 *   last of two records with one key;
 * - group and schedule names are unique, as the API's writes keep them (a notification's name is
 *   its key);
 * - every id the store hands out from a counter (groups, application rules and their conditions,
 *   schedules) is below that counter in `next_ids`: else the next POST gets an existing id and
 *   replaces that record. A journal's counters never go back.
 *
 * The state file is checked whole when it loads (persistence.ts); each journal record is checked as
 * it is replayed (replay.ts), against the state it applies to, so replay stays linear.
 */
import type { NextIds, StoreState } from './records.js';

export interface StateIssue {
  path: (string | number)[];
  message: string;
}

/** Collections whose ids come from a counter, and the counter. */
export const COUNTED_IDS = {
  groups: 'group',
  application_rules: 'application_rule',
  schedules: 'schedule',
} as const satisfies Partial<Record<keyof StoreState, keyof NextIds>>;

/** The number an id stands for when the store could have handed it out (`String(n)`), else undefined. */
export function counterValue(id: string): number | undefined {
  if (!/^(?:0|[1-9][0-9]*)$/.test(id)) return undefined;
  const n = Number(id);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** The problem with `id` under counter `kind` at `next`, or undefined. */
export function idBeyondCounter(id: string, kind: keyof NextIds, next: number): string | undefined {
  const n = counterValue(id);
  if (n === undefined || n < next) return undefined;
  return `id '${id}' is not below next_ids.${kind} (${next}): the next one created would get it and replace this one`;
}

/** Issues for the second and later records sharing a value of `field`. */
function duplicates(list: string, field: string, values: readonly string[], issues: StateIssue[]): void {
  const first = new Map<string, number>();
  values.forEach((value, index) => {
    const earlier = first.get(value);
    if (earlier === undefined) first.set(value, index);
    else
      issues.push({
        path: [list, index, field],
        message: `duplicate ${field} '${value}' (also ${list}.${earlier})`,
      });
  });
}

/**
 * The fields unique within each collection: the key of every collection (an id; a notification's
 * name), and the names the API's writes keep unique.
 */
const UNIQUE_FIELDS: readonly (readonly [keyof StoreState, string])[] = [
  ['users', 'id'],
  ['rules', 'id'],
  ['notifications', 'name'],
  ['groups', 'id'],
  ['groups', 'name'],
  ['application_rules', 'id'],
  ['schedules', 'id'],
  ['schedules', 'name'],
];

/** Everything wrong with a whole state (a state file), each at its path. */
export function stateIssues(state: StoreState): StateIssue[] {
  const issues: StateIssue[] = [];
  for (const [list, field] of UNIQUE_FIELDS) {
    const records = state[list] as readonly Record<string, unknown>[];
    duplicates(
      list,
      field,
      records.map((r) => String(r[field])),
      issues,
    );
  }
  for (const [list, kind] of Object.entries(COUNTED_IDS) as [keyof typeof COUNTED_IDS, keyof NextIds][]) {
    state[list].forEach((record, index) => {
      const problem = idBeyondCounter(record.id, kind, state.next_ids[kind]);
      if (problem !== undefined) issues.push({ path: [list, index, 'id'], message: problem });
    });
  }
  state.application_rules.forEach((rule, index) => {
    rule.conditions.forEach((condition, at) => {
      const problem = idBeyondCounter(condition.id, 'condition', state.next_ids.condition);
      if (problem !== undefined) {
        issues.push({ path: ['application_rules', index, 'conditions', at, 'id'], message: problem });
      }
    });
  });
  return issues;
}
