/**
 * What proves that a create was carried out. A create's answer is a claim: a proxy or a buggy server
 * can answer `200 {"rule_ids": ["7"]}` with 7 an old rule's id, an id it made up, or one it already
 * gave, and create nothing. Taken at its word, the old half of a replacement would then be deleted
 * and its protection lost. So a create is done only once a re-read shows, for each object sent, a
 * live object with its key and its planned content, under an id no other object of the run has:
 *
 * 1. The answer's ids must be new: one per object sent, none repeated, none an id of the plan's
 *    objects of the kind (live before any create), none given by an earlier answer of this run.
 *    An answer that breaks this is ambiguous.
 * 2. Otherwise the objects are re-read by those ids (`Writer.current`), and matched to the objects
 *    sent by key and content. Those matched are proven; the others are ambiguous.
 * 3. Ambiguous objects are re-read by natural key (`Writer.idsByKey`, then `current` of the ids that
 *    are neither old nor already proven for another object): what holds the planned content is
 *    proven; what does not is sent again by the caller (recovery.ts), a bounded number of times.
 */
import { sameJson } from '../../core/canonical.js';
import type { Attributes } from '../../core/model.js';
import { plural } from '../../core/text.js';
import type { WriteContext, Writer } from '../../kinds/kind.js';
import type { CreateItem } from './order.js';

/** The ids one kind's creates have seen in one apply. */
export interface CreateLedger {
  /** The plan's remote ids of the kind: objects that were live before any create, never new ones. */
  readonly preexisting: ReadonlySet<string>;
  /** Every id an answer of this run gave, or a re-read proved: an honest server never gives one twice. */
  readonly answered: Set<string>;
  /** Ids proven to be an object this run created: never handed to another object. */
  readonly claimed: Set<string>;
}

/** A ledger for one kind's creates, knowing the ids of objects live before the apply. */
export const createLedger = (preexisting: Iterable<string>): CreateLedger => ({
  preexisting: new Set(preexisting),
  answered: new Set(),
  claimed: new Set(),
});

/**
 * A create answered without an error whose ids do not prove the objects were created: ambiguous,
 * like an unreadable answer (the objects are re-read by key, and sent again only if missing).
 */
export class UnprovenCreateError extends Error {
  override name = 'UnprovenCreateError';
}

/**
 * Whether `live` holds every one of these planned values: an update's changed fields, or a created
 * object's whole planned content (its key included; a rule's conditions, actions and `enabled` too,
 * so a rule created other than planned never stands in for the one it replaces).
 */
export const holds = (live: Attributes | undefined, planned: Attributes): boolean =>
  live !== undefined && Object.entries(planned).every(([field, value]) => sameJson(live[field], value));

/** `7`, `7, 8, 9`, `7, 8, 9 and 97 more`: ids in a message, never a hundred of them. */
export function idList(ids: readonly string[]): string {
  const shown = ids.slice(0, 3).join(', ');
  return ids.length > 3 ? `${shown} and ${ids.length - 3} more` : shown;
}

const article = (noun: string) => (/^[aeiou]/i.test(noun) ? `an ${noun}` : `a ${noun}`);

/**
 * Why the answer's `ids` cannot be new objects, one for each of `count` objects sent, or undefined
 * when they can. Records them as answered either way: a later answer giving one again is a repeat.
 */
export function notNew(
  ids: readonly string[] | undefined,
  count: number,
  ledger: CreateLedger,
  noun: string,
): string | undefined {
  if (ids === undefined || ids.length === 0)
    return `the answer gave no id for the ${plural(count, noun)} sent`;
  const old = ids.filter((id) => ledger.preexisting.has(id));
  const twice = ids.filter((id, at) => ids.indexOf(id) !== at);
  const again = ids.filter((id) => ledger.answered.has(id) && !ledger.preexisting.has(id));
  for (const id of ids) ledger.answered.add(id);
  if (old.length > 0) {
    return `the answer gave id ${idList(old)}, the id of ${article(noun)} that existed before this create`;
  }
  if (twice.length > 0) return `the answer gave id ${idList(twice)} more than once`;
  if (again.length > 0)
    return `the answer gave id ${idList(again)}, already given by an earlier answer of this apply`;
  if (ids.length !== count) return `the answer gave ${ids.length} ids for the ${plural(count, noun)} sent`;
  return undefined;
}

export interface ProofContext {
  writer: Writer;
  ctx: WriteContext;
  keyOf: (attributes: Attributes) => string;
  ledger: CreateLedger;
}

/**
 * Matches `items` to the live objects of `ids` by key and planned content; each id serves one item.
 * Returns the id proven for each item that has one, and claims them.
 */
function match(
  proof: ProofContext,
  items: readonly CreateItem[],
  live: ReadonlyMap<string, Attributes>,
  ids: readonly string[],
): Map<CreateItem, string> {
  const { keyOf, ledger } = proof;
  const byKey = new Map<string, string[]>();
  for (const id of ids) {
    const attributes = live.get(id);
    if (attributes === undefined || ledger.claimed.has(id)) continue;
    const key = keyOf(attributes);
    byKey.set(key, [...(byKey.get(key) ?? []), id]);
  }
  const proven = new Map<CreateItem, string>();
  for (const item of items) {
    const id = byKey
      .get(keyOf(item.attributes))
      ?.find((candidate) => !ledger.claimed.has(candidate) && holds(live.get(candidate), item.attributes));
    if (id === undefined) continue;
    ledger.claimed.add(id);
    ledger.answered.add(id);
    proven.set(item, id);
  }
  return proven;
}

/** Re-reads the answer's (new) `ids` and proves what it can of `items`. A failed read throws. */
export async function proveByIds(
  proof: ProofContext,
  items: readonly CreateItem[],
  ids: readonly string[],
): Promise<Map<CreateItem, string>> {
  const live = await proof.writer.current(proof.ctx, ids);
  return match(proof, items, live, ids);
}

/**
 * Re-reads `items` by natural key and proves those a live object holds, under an id neither old nor
 * proven for another object. A failed read throws.
 */
export async function proveByKey(
  proof: ProofContext,
  items: readonly CreateItem[],
): Promise<Map<CreateItem, string>> {
  const { writer, ctx, ledger } = proof;
  const byKey = await writer.idsByKey(
    ctx,
    items.map((item) => item.attributes),
  );
  const fresh = (id: string) => !ledger.preexisting.has(id) && !ledger.claimed.has(id);
  const candidates = [...new Set([...byKey.values()].flat().filter(fresh))];
  if (candidates.length === 0) return new Map();
  return match(proof, items, await writer.current(ctx, candidates), candidates);
}
