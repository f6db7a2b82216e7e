/** Helpers that put set-like lists into one canonical order, so equal sets compare equal. */
import pLimit from 'p-limit';
import { canonicalJson } from '../core/canonical.js';

/** Sorted by canonical JSON and de-duplicated: the order and repetition of a set carry no meaning. */
export function sortedSet<T>(values: readonly T[]): T[] {
  // Most sets hold one element (one condition, one target): nothing to sort or de-duplicate, and
  // nothing to copy either (records are never changed in place).
  if (values.length < 2) return values as T[];
  const keys = values.map(canonicalJson);
  // Already in order and without repeats (a set written sorted, or read back as stored): as is.
  let ordered = true;
  for (let i = 1; i < keys.length && ordered; i++) ordered = (keys[i - 1] as string) < (keys[i] as string);
  if (ordered) return values as T[];
  // A repeated member keeps its first place and its last value, as a Map built from the list would.
  const byJson = new Map<string, T>();
  for (let i = 0; i < keys.length; i++) byJson.set(keys[i] as string, values[i] as T);
  return [...byJson.keys()].sort().map((json) => byJson.get(json) as T);
}

/** Runs `load` for each item with at most `concurrency` in flight, keeping the input order. */
export function mapLimited<T, R>(
  items: readonly T[],
  concurrency: number,
  load: (item: T) => Promise<R>,
): Promise<R[]> {
  const limit = pLimit(concurrency);
  return Promise.all(items.map((item) => limit(() => load(item))));
}
