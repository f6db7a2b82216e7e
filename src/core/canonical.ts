import { createHash } from 'node:crypto';

/**
 * JSON with object keys sorted at every level, so equal records always serialise identically. The
 * same text as `JSON.stringify` with a key-sorting replacer (saved plans' fingerprints depend on it;
 * test/core/canonical.test.ts compares the two), written out because it runs for every member of
 * every set of every record, and the replacer copies each object into sorted entries first.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      // As JSON.stringify: a member that has no JSON (undefined, a function) is written null.
      const json = item === undefined || typeof item === 'function' ? 'null' : canonicalJson(item);
      out += i === 0 ? json : `,${json}`;
    }
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  let out = '{';
  for (const key of sortedKeys(record)) {
    const field = record[key];
    // As JSON.stringify: a field that has no JSON is left out.
    if (field === undefined || typeof field === 'function') continue;
    out += `${out === '{' ? '' : ','}${keyJson(key)}:${canonicalJson(field)}`;
  }
  return `${out}}`;
}

/**
 * The record's keys in the order the replacer's sorted copy is written in: integer-like keys
 * first, ascending (a JS object lists them so whatever the insertion order), then the others in
 * code-unit order. `Object.keys` already gives the former in that order, so only the rest is sorted,
 * in place by insertion: records have a handful of keys, and `sort()` allocates a work array on every
 * call of something that runs for every member of every set of every record.
 */
export function sortedKeys(record: object): string[] {
  const keys = Object.keys(record);
  let start = 0;
  while (start < keys.length && isArrayIndex(keys[start] as string)) start++;
  if (keys.length - start > 16) return keys.slice(0, start).concat(keys.slice(start).sort());
  for (let i = start + 1; i < keys.length; i++) {
    const key = keys[i] as string;
    let j = i - 1;
    for (; j >= start && (keys[j] as string) > key; j--) keys[j + 1] = keys[j] as string;
    keys[j + 1] = key;
  }
  return keys;
}

const ARRAY_INDEX = /^(?:0|[1-9][0-9]*)$/;

/** A key JS orders before all others: the decimal form of an integer below 2^32 - 1. */
const isArrayIndex = (key: string): boolean => ARRAY_INDEX.test(key) && Number(key) < 4294967295;

/** Field names recur in every record: their JSON is made once (up to a bound, for odd data). */
const keyJsonCache = new Map<string, string>();

export function keyJson(key: string): string {
  let json = keyJsonCache.get(key);
  if (json === undefined) {
    json = JSON.stringify(key);
    if (keyJsonCache.size < 1024) keyJsonCache.set(key, json);
  }
  return json;
}

/**
 * Deep equality of JSON data (records as the kinds normalise them: objects, arrays, strings,
 * numbers, booleans, null), as `isDeepStrictEqual` decides it for such data (`Object.is` for
 * scalars, own keys for objects) at a fraction of its cost: the planner asks it for every field of
 * every declared object.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    if (a.length !== other.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], other[i])) return false;
    return true;
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  for (const key of keys) {
    if (!Object.hasOwn(right, key) || !sameJson(left[key], right[key])) return false;
  }
  return true;
}

/** A short digest of a remote record as the planner saw it (saved plans compare it before applying). */
export function fingerprint(id: string, attributes: unknown): string {
  return createHash('sha256')
    .update(id)
    .update('\0')
    .update(canonicalJson(attributes))
    .digest('hex')
    .slice(0, 32);
}
