/**
 * Shard assignment (`--shard K/N`, WAFCTL_SHARD): a pure function of the name and N, pinned by a
 * table so that a change of hash (which would move environments between CI jobs) cannot pass.
 */
import { describe, expect, it } from 'vitest';
import { inShard, MAX_SHARDS, readShard, shardOf } from '../../src/ops/shard.js';

const fleet = (count: number): string[] => Array.from({ length: count }, (_, i) => `tenant-${i + 1}`);

describe('shardOf', () => {
  it.each([
    // name, shard of 2, of 3, of 4, of 10: SHA-256 of the UTF-8 name, first 4 bytes big-endian, mod N, + 1.
    ['prod-eu-1', 2, 3, 2, 10],
    ['prod-eu-2', 1, 1, 3, 3],
    ['prod-us-1', 2, 3, 2, 2],
    ['staging', 2, 2, 4, 4],
    ['dev', 1, 2, 3, 1],
    ['tenant-a', 2, 1, 4, 8],
    ['ümlaut-1', 2, 3, 4, 4],
  ])('%s is in shards %i/2, %i/3, %i/4 and %i/10', (name, of2, of3, of4, of10) => {
    expect([2, 3, 4, 10].map((n) => shardOf(name, n))).toEqual([of2, of3, of4, of10]);
  });

  it('puts every name in shard 1 of 1', () => {
    expect(fleet(50).every((name) => shardOf(name, 1) === 1)).toBe(true);
  });

  it.each([2, 3, 7, 16, 64])('splits 1000 names into %i disjoint parts that cover them all', (n) => {
    const names = fleet(1000);
    const parts = Array.from({ length: n }, (_, i) => inShard(names, { k: i + 1, n }));
    expect(parts.flat().sort()).toEqual([...names].sort());
    expect(new Set(parts.flat()).size).toBe(names.length);
    // Roughly even: no part holds more than about twice its share.
    expect(Math.max(...parts.map((part) => part.length))).toBeLessThan((2 * names.length) / n + 5);
  });

  it('moves only the environment added or removed, never the others', () => {
    const names = fleet(300);
    const before = new Map(names.map((name) => [name, shardOf(name, 8)]));
    const grown = ['aaa-new', ...names.slice(0, 150), 'mid-new', ...names.slice(150)];
    const shrunk = names.filter((_, i) => i !== 0 && i !== 123);
    for (const list of [grown, shrunk]) {
      for (let k = 1; k <= 8; k++) {
        for (const name of inShard(list, { k, n: 8 })) {
          if (before.has(name)) expect(before.get(name)).toBe(k);
        }
      }
    }
  });

  it('keeps the order given', () => {
    const names = fleet(40);
    const part = inShard(names, { k: 2, n: 3 });
    expect(part).toEqual(names.filter((name) => part.includes(name)));
  });
});

describe('readShard', () => {
  it.each([
    ['1/1', { k: 1, n: 1 }],
    ['3/4', { k: 3, n: 4 }],
    [' 2/8 ', { k: 2, n: 8 }],
    [`${MAX_SHARDS}/${MAX_SHARDS}`, { k: MAX_SHARDS, n: MAX_SHARDS }],
  ])('reads %j', (text, shard) => {
    expect(readShard('--shard', text)).toEqual(shard);
  });

  it.each(['0/4', '5/4', '1/0', '1', '1/2/3', '-1/2', '1.5/2', 'a/b', '', '1 / 2', `1/${MAX_SHARDS + 1}`])(
    'refuses %j, naming the source and the form',
    (text) => {
      expect(readShard('WAFCTL_SHARD', text)).toEqual({
        problem: `WAFCTL_SHARD must be K/N, the K-th of N parts, with integers 1 ≤ K ≤ N ≤ ${MAX_SHARDS} (e.g. 1/4), not ${JSON.stringify(text)}`,
      });
    },
  );
});
