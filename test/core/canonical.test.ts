import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { canonicalJson, sameJson } from '../../src/core/canonical.js';
import { seededRandom } from '../helpers/random.js';

/** The definition canonicalJson is written out from (and saved plans' fingerprints were made with). */
const byReplacer = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );

const STRINGS = ['', 'a', 'b', 'A', 'é', '"q"', 'back\\slash', 'line\nbreak', '\u2028', '😀', 'z'.repeat(40)];
const NUMBERS = [0, -0, 1, -1, 1.5, 1e21, Number.NaN, Number.POSITIVE_INFINITY];

function value(next: () => number, depth: number): unknown {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
  const roll = next();
  if (depth > 3 || roll < 0.4) {
    return pick<unknown>([...STRINGS, ...NUMBERS, true, false, null, undefined]);
  }
  if (roll < 0.7) return Array.from({ length: Math.floor(next() * 4) }, () => value(next, depth + 1));
  const out: Record<string, unknown> = {};
  // Now and then more keys than canonicalJson sorts by insertion (16), and integer-like ones.
  const size = next() < 0.1 ? 20 : Math.floor(next() * 5);
  for (let i = size; i > 0; i--) {
    out[next() < 0.5 ? pick(STRINGS) : `k${Math.floor(next() * 40)}`] = value(next, depth + 1);
  }
  if (next() < 0.05) out[String(Math.floor(next() * 10))] = 'integer-like key';
  return out;
}

describe('canonicalJson', () => {
  it('writes what JSON.stringify with a key-sorting replacer writes, for 5,000 random values', () => {
    const next = seededRandom(19);
    for (let i = 0; i < 5000; i++) {
      const v = value(next, 0);
      expect(canonicalJson(v)).toBe(byReplacer(v));
    }
  });

  it('sorts keys at every level and leaves array order alone', () => {
    expect(canonicalJson({ b: [{ d: 1, c: 2 }, 'x'], a: null })).toBe('{"a":null,"b":[{"c":2,"d":1},"x"]}');
  });
});

describe('sameJson', () => {
  it('decides as isDeepStrictEqual does, for 5,000 random pairs and each value against a copy', () => {
    const next = seededRandom(7);
    for (let i = 0; i < 5000; i++) {
      const a = value(next, 0);
      const b = next() < 0.5 ? value(next, 0) : structuredClone(a);
      expect(sameJson(a, b)).toBe(isDeepStrictEqual(a, b));
    }
  });

  it('tells a missing field from one set to undefined, -0 from 0, and an array from an object', () => {
    expect(sameJson({ a: undefined }, {})).toBe(false);
    expect(sameJson({}, { a: undefined })).toBe(false);
    expect(sameJson(0, -0)).toBe(false);
    expect(sameJson(Number.NaN, Number.NaN)).toBe(true);
    expect(sameJson([], {})).toBe(false);
    expect(sameJson({ a: [1, { b: 'x' }] }, { a: [1, { b: 'x' }] })).toBe(true);
    expect(sameJson({ a: [1, { b: 'x' }] }, { a: [1, { b: 'y' }] })).toBe(false);
  });
});
