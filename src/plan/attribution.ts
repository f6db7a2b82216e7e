/**
 * Who changed what, and when, for drift reports (issue 44): the operator's first question about a
 * drift. Every drift entry that has a live record (an update, a replace, a delete, a read-only object
 * that differs) carries the record's `changed_by` and `changed_at`, where the record gives them; a
 * create has none (the declared object is gone from the firewall: no record says who removed it).
 * Nothing is guessed: a value the record does not give is left out. Pure.
 */
import type { Plan } from '../core/model.js';
import type { KindPlanInput, RemoteObject } from './planner.js';

/** The fields a drift entry carries (plan-document.ts `attribution`). */
export interface Attribution {
  changed_by?: string;
  changed_at?: string;
}

/** UNIX milliseconds as ISO 8601 UTC (`2026-11-27T08:02:13.000Z`); undefined when no date can hold them. */
function isoOf(ms: number | undefined): string | undefined {
  if (ms === undefined) return undefined;
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** What a live record says of its last change: each field only when it says it. */
export function attributionOf(remote: Pick<RemoteObject, 'changedBy' | 'changedAt'>): Attribution {
  const at = isoOf(remote.changedAt);
  return {
    ...(remote.changedBy === undefined ? {} : { changed_by: remote.changedBy }),
    ...(at === undefined ? {} : { changed_at: at }),
  };
}

const recordKey = (kind: string, id: string): string => `${kind}\u0000${id}`;

/**
 * The plan with each entry's attribution, from the live records `inputs` hold (matched by kind and
 * id). An entry whose record says nothing is the same object as before.
 */
export function withAttribution(plan: Plan, inputs: readonly KindPlanInput[]): Plan {
  const records = new Map<string, RemoteObject>();
  for (const input of inputs) {
    for (const remote of input.remote) {
      if (remote.changedBy !== undefined || remote.changedAt !== undefined) {
        records.set(recordKey(input.kind, remote.id), remote);
      }
    }
  }
  if (records.size === 0) return plan;
  const attributed = <T extends { kind: string; id?: string }>(entry: T): T => {
    const remote = entry.id === undefined ? undefined : records.get(recordKey(entry.kind, entry.id));
    return remote === undefined ? entry : { ...entry, ...attributionOf(remote) };
  };
  const changes = plan.changes.map((change) => (change.action === 'create' ? change : attributed(change)));
  const readOnly = plan.read_only?.map(attributed);
  return { ...plan, changes, ...(readOnly === undefined ? {} : { read_only: readOnly }) };
}
