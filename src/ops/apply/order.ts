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
 *     3. deletes, in bulk DELETEs: pruned rules (unless a create failed: it may have been a
 *        rename), the old halves of replacements whose successor was created, and duplicates whose
 *        surviving copy now matches the configuration (see below).
 *
 *   Groups, notifications, schedules (deletesFirst = true):
 *     1. deletes of pruned objects first — a rename without `renamed_from` is a delete plus a create
 *        under another name, and deleting first means the new name can never clash with the old one
 *        on the server (a rename with it is an update: its new key is free, the planner checked);
 *     2. creates and updates, one call each (schedules delete in bulk);
 *     3. deletes of duplicates (these kinds have no immutable fields, so no replacements).
 *
 *   Duplicates (several remote objects with one key; the planner picked the survivor) are deleted
 *   last, and only once the survivor's own update or replacement has succeeded (or it needed
 *   none): until then a duplicate may be the only copy that protects what the configuration says.
 *
 * Kinds are independent of each other and run concurrently, under one shared request limit.
 *
 * Interruption (the applier's `signal`): no call starts after it, retries included, except the
 * deletes that complete a replacement whose new half exists: stopping never, by itself, leaves a
 * key doubled (a delete that fails does; the next plan heals it).
 */
import { canonicalJson } from '../../core/canonical.js';
import type { Attributes, Change, ChangeOf } from '../../core/model.js';
import { changedView } from '../../core/plan-document.js';

export interface CreateItem {
  change: Change;
  attributes: Attributes;
}

export interface DeleteItem {
  change: Change;
  id: string;
}

export interface UpdateItem {
  change: ChangeOf<'update'>;
}

/** A delete that must wait until another operation is done. */
export interface DependentDelete extends DeleteItem {
  /** The change whose operation must succeed first (the old half of a replacement: its create). */
  after?: Change;
}

export interface KindWork {
  creates: CreateItem[];
  /** Each inner list can be one call when the kind updates in bulk: same changed fields. */
  updateGroups: UpdateItem[][];
  /** Pruned objects. */
  deletes: DeleteItem[];
  /** The old halves of replacements, each after its own create. */
  replacements: DependentDelete[];
  /** Duplicates of a surviving object, each after the survivor's update or replacement if it has one. */
  duplicates: DependentDelete[];
}

/**
 * One kind's changes as the phases of its apply (see above); with `bulkUpdate`, the updates that
 * change the same fields to the same values are grouped, one call each.
 */
export function kindWork(changes: readonly Change[], bulkUpdate: boolean): KindWork {
  const work: KindWork = { creates: [], updateGroups: [], deletes: [], replacements: [], duplicates: [] };
  const byAttrs = new Map<string, UpdateItem[]>();
  const survivors = new Map<string, Change>();
  for (const change of changes) {
    switch (change.action) {
      case 'create':
        work.creates.push({ change, attributes: change.after });
        break;
      case 'replace':
        work.creates.push({ change, attributes: change.after });
        work.replacements.push({ change, id: change.id, after: change });
        survivors.set(change.key, change);
        // A renamed survivor's duplicates still have the old key.
        if (change.renamed_from !== undefined) survivors.set(change.renamed_from, change);
        break;
      case 'delete':
        (change.duplicate_of === undefined ? work.deletes : work.duplicates).push({ change, id: change.id });
        break;
      case 'update': {
        survivors.set(change.key, change);
        if (change.renamed_from !== undefined) survivors.set(change.renamed_from, change);
        if (!bulkUpdate) {
          work.updateGroups.push([{ change }]);
          break;
        }
        // One body serves a bulk call: the changed fields' new values must be the same.
        const key = canonicalJson(changedView(change).after);
        const group = byAttrs.get(key);
        if (group) group.push({ change });
        else byAttrs.set(key, [{ change }]);
        break;
      }
    }
  }
  for (const group of byAttrs.values()) work.updateGroups.push(group);
  for (const duplicate of work.duplicates) {
    const survivor = survivors.get(duplicate.change.key);
    if (survivor !== undefined) duplicate.after = survivor;
  }
  return work;
}

/** `items` in consecutive lists of at most `size` (one per call). */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
