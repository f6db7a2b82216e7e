import { createHash } from 'node:crypto';

/**
 * THE canonical form of JSON data (plain objects, arrays, strings, finite numbers, booleans, null,
 * and fields set to undefined, which it leaves out; functions, symbols, dates and the like are not
 * JSON data): JSON with object keys sorted at every level, so equal records always serialise
 * identically, and array order kept. The same text as `JSON.stringify` with a key-sorting replacer
 * (saved plans' fingerprints depend on it; test/core/canonical.test.ts compares the two), written
 * out because it runs for every member of every set of every record, and the replacer copies each
 * object into sorted entries first.
 */
export function canonicalJson(value: unknown): string {
  return writeCanonical(value, false) as string;
}

/** The one writer of the canonical form; `setArrays` sorts array members (`canonicalKey`). */
function writeCanonical(value: unknown, setArrays: boolean): string | undefined {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) {
    if (setArrays) {
      const members = value.map((item: unknown) => memberJson(item, true));
      return `[${(members.length < 2 ? members : members.sort()).join(',')}]`;
    }
    let out = '[';
    for (let i = 0; i < value.length; i++)
      out += i === 0 ? memberJson(value[i], false) : `,${memberJson(value[i], false)}`;
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  let out = '{';
  for (const key of sortedKeys(record)) {
    const field = record[key];
    // As JSON.stringify: a field that has no JSON is left out.
    if (field === undefined || typeof field === 'function') continue;
    out += `${out === '{' ? '' : ','}${keyJson(key)}:${writeCanonical(field, setArrays)}`;
  }
  return `${out}}`;
}

/** As JSON.stringify: an array member that has no JSON (undefined, a function) is written null. */
const memberJson = (item: unknown, setArrays: boolean): string =>
  item === undefined || typeof item === 'function' ? 'null' : (writeCanonical(item, setArrays) as string);

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
 * THE equality of JSON data: two values are equal iff their canonical JSON (`canonicalJson`) is
 * equal. Everything that compares records (the planner, recovery, impact, pull, export's defaults,
 * the renderers) asks this. Consequences, each decided by that definition:
 * - key order does not matter, array order does; an array never equals an object;
 * - `-0` equals `0` (both are written `0`);
 * - a field set to `undefined` equals a missing field (JSON leaves it out), but not `null`; an
 *   `undefined` array member equals `null` (JSON writes it so);
 * - beyond JSON data, `NaN` and the infinities equal `null` and each other, as JSON writes them.
 *
 * This is the fast implementation of that definition, with no string built: the planner asks it
 * for every field of every declared object. test/core/canonical.test.ts checks it against the
 * definition on random values.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true; // 0 === -0, as the canonical form has it
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return sameScalarJson(a, b);
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    if (a.length !== other.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i] ?? null, other[i] ?? null)) return false;
    return true;
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const rightKeys = Object.keys(right);
  let defined = 0; // left's fields that are written, each found in right
  for (const key of Object.keys(left)) {
    const field = left[key];
    if (field === undefined) continue;
    defined++;
    if (!Object.hasOwn(right, key) || !sameJson(field, right[key])) return false;
  }
  if (rightKeys.length === defined) return true; // the usual case: right has those fields and no other
  let written = 0;
  for (const key of rightKeys) if (right[key] !== undefined) written++;
  return written === defined;
}

/**
 * Two scalars (or a scalar and an object) that are not `===`: equal only if both are written
 * `null` (null, NaN, the infinities).
 */
function sameScalarJson(a: unknown, b: unknown): boolean {
  return writtenNull(a) && writtenNull(b);
}

const writtenNull = (value: unknown): boolean =>
  value === null || (typeof value === 'number' && !Number.isFinite(value));

/**
 * The canonical form's one variant, for set identity (a duplicate in a set-like list): the
 * canonical JSON of the value with the members of every nested array sorted by their own canonical
 * form, since every list nested inside a set element is itself a set in this format (expressions,
 * targets). Two values have the same key iff they are equal (`sameJson`) once every array is read
 * as a set. A string, so it serves as a Map key.
 */
export function canonicalKey(value: unknown): string {
  return writeCanonical(value, true) ?? 'undefined';
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
