/**
 * The order of an apply, in one place. Pure: turns a kind's planned changes into phases of work.
 *
 * Within one kind, in this order:
 *
 *   Application rules (deletesFirst = false):
 *     1. creates: new rules and the new halves of replacements, batched into bulk POSTs —
 *        a replaced rule's successor is live before the old rule goes, so no request is ever
 *        unprotected;
 *     2. updates: grouped by identical changed fields, one bulk PUT per group;
 *     3. deletes: pruned rules, and the old halves of replacements whose successor was created
 *        (a replacement whose create failed keeps its old rule), in bulk DELETEs.
 *
 *   Groups, notifications, schedules (deletesFirst = true):
 *     1. deletes of pruned objects first — a rename is a delete plus a create under another name,
 *        and deleting first means the new name can never clash with the old one on the server;
 *     2. creates and updates, one call each (schedules delete in bulk);
 *     3. (these kinds have no immutable fields, so no replacements.)
 *
 * Kinds are independent of each other and run concurrently, under one shared request limit.
 */
import { canonicalJson } from '../plan/fingerprint.js';
import type { Attributes, Change, ReplaceChange, UpdateChange } from '../plan/model.js';

export interface CreateItem {
  change: Change;
  attributes: Attributes;
}

export interface DeleteItem {
  change: Change;
  id: string;
}

export interface KindWork {
  creates: CreateItem[];
  /** Each inner list can be one call when the kind updates in bulk: same changed fields. */
  updateGroups: UpdateChange[][];
  deletes: DeleteItem[];
  replacements: ReplaceChange[];
}

export function kindWork(changes: readonly Change[], bulkUpdate: boolean): KindWork {
  const work: KindWork = { creates: [], updateGroups: [], deletes: [], replacements: [] };
  const byAttrs = new Map<string, UpdateChange[]>();
  for (const change of changes) {
    switch (change.action) {
      case 'create':
        work.creates.push({ change, attributes: change.after });
        break;
      case 'replace':
        work.creates.push({ change, attributes: change.after });
        work.replacements.push(change);
        break;
      case 'delete':
        work.deletes.push({ change, id: change.id });
        break;
      case 'update': {
        if (!bulkUpdate) {
          work.updateGroups.push([change]);
          break;
        }
        const key = canonicalJson(change.after);
        const group = byAttrs.get(key);
        if (group) group.push(change);
        else byAttrs.set(key, [change]);
        break;
      }
    }
  }
  work.updateGroups.push(...byAttrs.values());
  return work;
}

export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
