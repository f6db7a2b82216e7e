/**
 * Who made the hand changes a pull turns into code (issue 44), so that the pull request credits them:
 * each pulled object whose live record says who changed it last, or when (an application rule's
 * `username` and `timestamp_update`, a group's `updated_at`), as a drift report says it
 * (src/plan/attribution.ts). The objects pulled from a live record: those updated or replaced in the
 * files (not those in conflict, of which nothing is written) and those adopted. An object removed
 * from the files (deleted live) has no record; what a record does not give is not said.
 */
import type { KindName, Plan } from '../../core/model.js';
import { attributionOf } from '../../plan/attribution.js';
import type { KindPlanInput, RemoteObject } from '../../plan/planner.js';
import { newestFirst } from '../../plan/render/attribution.js';
import { address } from '../../plan/render/summary.js';
import { declaredKey } from './decide.js';

/** One pulled object and who changed it last, when: each field only when the record gives it. */
export interface PullCredit {
  /** `kind.key`, as plans print it. */
  address: string;
  changed_by?: string;
  changed_at?: string;
}

/** What a pull wrote from the live records, besides the plan's changes. */
export interface PulledObjects {
  /** Objects nothing was pulled for (decide.ts). */
  conflicts: readonly { kind: KindName; key: string }[];
  /** Live objects `--adopt` wrote into the files. */
  adopted: readonly { kind: KindName; key: string }[];
}

/** The credits of a pull, newest first (those without a time last). */
export function pullCredits(
  plan: Plan,
  inputs: readonly KindPlanInput[],
  { conflicts, adopted }: PulledObjects,
): PullCredit[] {
  const byId = new Map<string, RemoteObject>();
  const byKey = new Map<string, RemoteObject>();
  for (const input of inputs) {
    for (const remote of input.remote) {
      byId.set(declaredKey(input.kind, remote.id), remote);
      const key = declaredKey(input.kind, remote.key);
      if (!byKey.has(key)) byKey.set(key, remote);
    }
  }
  const conflicting = new Set(conflicts.map((c) => declaredKey(c.kind, c.key)));
  const pulled: { kind: KindName; key: string; remote: RemoteObject | undefined }[] = [];
  for (const change of plan.changes) {
    if (change.action !== 'update' && change.action !== 'replace') continue;
    if (conflicting.has(declaredKey(change.kind, change.key))) continue;
    pulled.push({
      kind: change.kind,
      key: change.key,
      remote: byId.get(declaredKey(change.kind, change.id)),
    });
  }
  for (const object of adopted)
    pulled.push({ ...object, remote: byKey.get(declaredKey(object.kind, object.key)) });
  const credits = pulled.flatMap(({ kind, key, remote }) => {
    const said = remote === undefined ? {} : attributionOf(remote);
    return Object.keys(said).length === 0 ? [] : [{ address: address({ kind, key }), ...said }];
  });
  return newestFirst(credits);
}
