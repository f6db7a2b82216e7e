/**
 * Pages of a store collection without copying it (issue 17). The store's Maps iterate in insertion
 * order, which is id order, and that order is the listing order. An unfiltered page is read by
 * position from an index of the collection's keys, so its cost is the page's, whatever the store
 * holds; a filtered listing scans once (total_count must be exact) and keeps only the page's rows.
 * Nothing here sorts.
 *
 * The index mirrors the Map's iteration order. store.ts is not ours to edit, and a Map exposes no
 * version (`size` alone cannot tell "one deleted, one created" from "nothing changed"), so the first
 * listing of a collection wraps that Map instance's `set`: a new key is appended to the index (a Map
 * appends it too); an existing key keeps its place (so does the Map), so updates cost nothing.
 * Removals need no hook: the index then holds every key it was built with plus every key appended
 * since, so its length equals the Map's size exactly when nothing was removed (a delete, a clear,
 * an undo that rebuilds the Map). Otherwise it is rebuilt from the keys (no values, no sort) on the
 * next listing: once per burst of deletes, not per page. Only a key added behind the wrapper's back
 * (`Map.prototype.set.call(map, ...)`) together with a removal could go unseen; nothing does that.
 */
import { describePage, type PageRequest, type Pagination, pageWindow } from './pagination.js';

/** What a listing needs of a filter (ListFilter implements it). */
export interface RowFilter<T> {
  /** False when no filter parameter was given: every row matches. */
  readonly active: boolean;
  matches(row: T): boolean;
}

export interface Page<T> {
  rows: T[];
  pagination: Pagination;
}

/** One page of `collection` in its iteration (= id) order, with exact pagination figures. */
export function listPage<K, T>(collection: Map<K, T>, filter: RowFilter<T>, request: PageRequest): Page<T> {
  return filter.active ? scannedPage(collection, filter, request) : directPage(collection, request);
}

function directPage<K, T>(collection: Map<K, T>, request: PageRequest): Page<T> {
  const total = collection.size;
  if (!request.paginate)
    return { rows: [...collection.values()], pagination: describePage(request, total, total) };
  const { start, end } = pageWindow(request);
  const rows: T[] = [];
  if (start < total) {
    const keys = orderedKeys(collection);
    for (let i = start; i < Math.min(end, total); i++) {
      const row = collection.get(keys[i] as K);
      if (row !== undefined) rows.push(row);
    }
  }
  return { rows, pagination: describePage(request, total, rows.length) };
}

/** Linear by necessity (total_count counts every match), but holds only the page's rows. */
function scannedPage<K, T>(collection: Map<K, T>, filter: RowFilter<T>, request: PageRequest): Page<T> {
  const { start, end } = pageWindow(request);
  const rows: T[] = [];
  let total = 0;
  for (const row of collection.values()) {
    if (!filter.matches(row)) continue;
    if (total >= start && total < end) rows.push(row);
    total++;
  }
  return { rows, pagination: describePage(request, total, rows.length) };
}

interface OrderIndex<K> {
  /** The Map's keys in iteration order; undefined when stale (rebuilt on the next read). */
  keys: K[] | undefined;
}

/** Keyed by the Map itself: a new Store (a state file loaded, a restart) gets fresh indexes. */
const indexes = new WeakMap<Map<unknown, unknown>, OrderIndex<unknown>>();

/** The collection's keys in iteration order, for reading a page by position. Exported for tests. */
export function orderedKeys<K, V>(collection: Map<K, V>): readonly K[] {
  let index = indexes.get(collection as Map<unknown, unknown>) as OrderIndex<K> | undefined;
  if (index === undefined) {
    index = watchAppends(collection);
    indexes.set(collection as Map<unknown, unknown>, index as OrderIndex<unknown>);
  }
  // Appends are in the index; a length above the Map's size means keys were removed since it was built.
  if (index.keys === undefined || index.keys.length !== collection.size) index.keys = [...collection.keys()];
  return index.keys;
}

/**
 * Wraps the instance's `set` (an own, non-enumerable property, so the Map still compares and
 * serialises as before). The original is taken from the instance, so a subclass's `set` or a wrapper
 * someone else installed keeps working underneath this one.
 */
function watchAppends<K, V>(collection: Map<K, V>): OrderIndex<K> {
  const index: OrderIndex<K> = { keys: undefined };
  const set = collection.set;
  const appendingSet = (key: K, value: V) => {
    const added = !collection.has(key);
    set.call(collection, key, value);
    if (added) index.keys?.push(key);
    return collection;
  };
  Object.defineProperty(collection, 'set', {
    value: appendingSet,
    writable: true,
    configurable: true,
    enumerable: false,
  });
  return index;
}
