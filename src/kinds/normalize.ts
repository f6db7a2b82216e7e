/** Helpers that put set-like lists into one canonical order, so equal sets compare equal. */
import pLimit from 'p-limit';
import { canonicalJson } from '../plan/fingerprint.js';

/** Sorted by canonical JSON and de-duplicated: the order and repetition of a set carry no meaning. */
export function sortedSet<T>(values: readonly T[]): T[] {
  // Most sets hold one element (one condition, one target): nothing to sort or de-duplicate.
  if (values.length < 2) return [...values];
  const byJson = new Map(values.map((value) => [canonicalJson(value), value]));
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
