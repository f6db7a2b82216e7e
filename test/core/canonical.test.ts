import { describe, expect, it } from 'vitest';
import { canonicalJson, canonicalKey, sameJson } from '../../src/core/canonical.js';
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

/** The same value with every object's keys inserted in another order (and -0 for 0 now and then). */
function reordered(next: () => number, v: unknown): unknown {
  if (v === 0 && next() < 0.5) return Object.is(v, -0) ? 0 : -0;
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map((item) => reordered(next, item));
  const entries = Object.entries(v as Record<string, unknown>).map(
    ([k, item]) => [k, reordered(next, item)] as const,
  );
  for (let i = entries.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [entries[i], entries[j]] = [
      entries[j] as (typeof entries)[number],
      entries[i] as (typeof entries)[number],
    ];
  }
  const out: Record<string, unknown> = Object.fromEntries(entries);
  // Now and then a field set to undefined, which the canonical form leaves out like a missing one.
  const extra = `k${Math.floor(next() * 40)}`;
  if (next() < 0.2 && !Object.hasOwn(out, extra)) out[extra] = undefined;
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
  // The definition: two values are equal iff their canonical JSON is equal. sameJson is its fast
  // implementation, so it must decide every pair as the definition does.
  const definition = (a: unknown, b: unknown): boolean => canonicalJson(a) === canonicalJson(b);

  it('decides as the definition does, for 20,000 random pairs, each value against a copy and a reordered copy', () => {
    const next = seededRandom(7);
    for (let i = 0; i < 20000; i++) {
      const a = value(next, 0);
      const roll = next();
      const b = roll < 0.4 ? value(next, 0) : roll < 0.7 ? reordered(next, a) : structuredClone(a);
      expect({ a, b, same: sameJson(a, b) }).toEqual({ a, b, same: definition(a, b) });
      expect(sameJson(b, a)).toBe(sameJson(a, b));
    }
  });

  it('decides -0, undefined fields, integer-like keys and key order by the canonical form', () => {
    const cases: [unknown, unknown, boolean][] = [
      [0, -0, true],
      [{ a: [-0] }, { a: [0] }, true],
      [{ a: undefined }, {}, true],
      [{}, { a: undefined }, true],
      [{ a: undefined }, { a: null }, false],
      [[undefined], [null], true],
      [[undefined], [], false],
      [undefined, null, false],
      [Number.NaN, Number.NaN, true],
      [Number.NaN, null, true],
      [[], {}, false],
      [{ 0: 'x' }, ['x'], false],
      [{ 10: 'a', 2: 'b', b: 1, a: 2 }, { a: 2, b: 1, 2: 'b', 10: 'a' }, true],
      [{ a: [1, { b: 'x', c: -0 }] }, { a: [1, { c: 0, b: 'x' }] }, true],
      [{ a: [1, { b: 'x' }] }, { a: [1, { b: 'y' }] }, false],
      [{ a: [1, 2] }, { a: [2, 1] }, false],
      [{ constructor: undefined }, {}, true],
      [{}, { constructor: 1 }, false],
    ];
    for (const [a, b, same] of cases) {
      expect({ a, b, definition: definition(a, b) }).toEqual({ a, b, definition: same });
      expect({ a, b, sameJson: sameJson(a, b) }).toEqual({ a, b, sameJson: same });
    }
  });
});

describe('canonicalKey', () => {
  /** The set variant by its definition: every nested array sorted by its members' canonical JSON. */
  const setSorted = (v: unknown): unknown => {
    if (v === null || typeof v !== 'object') return v;
    if (Array.isArray(v)) {
      const members = v.map((item) => setSorted(item ?? null));
      const json = (x: unknown) => canonicalJson(x);
      return members.sort((x, y) => (json(x) < json(y) ? -1 : json(x) > json(y) ? 1 : 0));
    }
    return Object.fromEntries(
      Object.entries(v as Record<string, unknown>).map(([k, item]) => [k, setSorted(item)]),
    );
  };
  const shuffled = (next: () => number, v: unknown): unknown => {
    if (v === null || typeof v !== 'object') return v;
    if (Array.isArray(v)) {
      const members = v.map((item) => shuffled(next, item));
      for (let i = members.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [members[i], members[j]] = [members[j], members[i]];
      }
      return members;
    }
    return reordered(next, v);
  };

  it('is the canonical JSON of the value with every array sorted, and ignores member order, for 5,000 random values', () => {
    const next = seededRandom(26);
    for (let i = 0; i < 5000; i++) {
      const v = value(next, 0);
      if (v === undefined) continue;
      expect(canonicalKey(v)).toBe(canonicalJson(setSorted(v)));
      expect(canonicalKey(shuffled(next, v))).toBe(canonicalKey(v));
    }
  });

  it('tells set members apart as the one equality does, reading nested lists as sets', () => {
    expect(canonicalKey({ expressions: ['b', 'a'], op: 'x' })).toBe(
      canonicalKey({ op: 'x', expressions: ['a', 'b'] }),
    );
    expect(canonicalKey({ a: -0 })).toBe(canonicalKey({ a: 0 }));
    expect(canonicalKey({ a: 1, b: undefined })).toBe(canonicalKey({ a: 1 }));
    expect(canonicalKey({ a: null })).not.toBe(canonicalKey({}));
    expect(canonicalKey(['a', 'b'])).not.toBe(canonicalKey(['a', 'b', 'b']));
  });
});
