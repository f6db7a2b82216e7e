/**
 * The listing's key index (src/emulator/listing.ts), against a naive reference: every row filtered,
 * then sliced. Random writes (creates, updates, deletes, clears) interleave with page reads, so the
 * index is checked across every kind of change between two requests. No timing: that a page does
 * not walk the collection is checked by counting the Map's iterations and look-ups instead.
 */
import { describe, expect, it, vi } from 'vitest';
import { listPage, orderedKeys, type RowFilter } from '../../src/emulator/listing.js';
import type { PageRequest } from '../../src/emulator/pagination.js';
import { seededRandom } from '../helpers/random.js';

interface Row {
  id: string;
  n: number;
  version: number;
}

const everything: RowFilter<Row> = { active: false, matches: () => true };
const multiplesOf3: RowFilter<Row> = { active: true, matches: (row) => row.n % 3 === 0 };

function reference(map: Map<string, Row>, filter: RowFilter<Row>, request: PageRequest) {
  const all = [...map.values()].filter((row) => filter.matches(row));
  if (!request.paginate) {
    const total = all.length;
    return {
      rows: all,
      pagination: {
        first: total ? 1 : 0,
        last: total,
        page: 0,
        total_count: total,
        total_pages: total ? 1 : 0,
      },
    };
  }
  const start = request.page * request.pageSize;
  const rows = all.slice(start, start + request.pageSize);
  return {
    rows,
    pagination: {
      first: rows.length ? start + 1 : 0,
      last: rows.length ? start + rows.length : 0,
      page: request.page,
      total_count: all.length,
      total_pages: Math.ceil(all.length / request.pageSize),
    },
  };
}

function filled(count: number): { map: Map<string, Row>; next: () => number } {
  const map = new Map<string, Row>();
  let id = 1;
  const next = () => {
    const n = id++;
    map.set(String(n), { id: String(n), n, version: 0 });
    return n;
  };
  for (let i = 0; i < count; i++) next();
  return { map, next };
}

function expectSame(map: Map<string, Row>, filter: RowFilter<Row>, request: PageRequest): void {
  expect(listPage(map, filter, request), JSON.stringify(request)).toEqual(reference(map, filter, request));
}

describe('listing: pages agree with filter-then-slice', () => {
  it.each([1, 2, 3])('across random creates, updates, deletes and clears (seed %i)', (seed) => {
    const next = seededRandom(seed);
    const { map, next: create } = filled(40);
    const pick = () => {
      const keys = [...map.keys()];
      return keys[Math.floor(next() * keys.length)];
    };
    for (let step = 0; step < 3000; step++) {
      const roll = next();
      if (roll < 0.3) create();
      else if (roll < 0.4) {
        const key = pick();
        const row = key === undefined ? undefined : map.get(key);
        if (row) map.set(row.id, { ...row, version: row.version + 1 });
      } else if (roll < 0.55) {
        const key = pick();
        if (key !== undefined) map.delete(key);
      } else if (roll < 0.6) {
        const last = [...map.keys()].at(-1);
        if (last !== undefined) map.delete(last);
      } else if (roll < 0.603) map.clear();
      else {
        const pageSize = [1, 2, 3, 7, 50][Math.floor(next() * 5)] ?? 1;
        const page = Math.floor(next() * (Math.ceil(map.size / pageSize) + 2));
        const request: PageRequest = next() < 0.1 ? { paginate: false } : { paginate: true, page, pageSize };
        expectSame(map, everything, request);
        expectSame(map, multiplesOf3, request);
      }
    }
  });

  it('sees one delete and one create between two pages, though the size is the same', () => {
    const { map, next } = filled(10);
    expect(listPage(map, everything, { paginate: true, page: 0, pageSize: 10 }).rows.map((r) => r.n)).toEqual(
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    );
    map.delete('3');
    next();
    expect(map.size).toBe(10);
    const page = listPage(map, everything, { paginate: true, page: 0, pageSize: 10 });
    expect(page.rows.map((r) => r.n)).toEqual([1, 2, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(listPage(map, everything, { paginate: true, page: 4, pageSize: 2 }).rows.map((r) => r.n)).toEqual([
      10, 11,
    ]);
  });

  it('keeps the order a Map keeps: an update stays in place, a re-created key goes last', () => {
    const { map } = filled(4);
    orderedKeys(map);
    map.set('2', { id: '2', n: 2, version: 1 });
    expect(orderedKeys(map)).toEqual(['1', '2', '3', '4']);
    map.delete('2');
    map.set('2', { id: '2', n: 2, version: 2 });
    expect(orderedKeys(map)).toEqual(['1', '3', '4', '2']);
    expect(orderedKeys(map)).toEqual([...map.keys()]);
  });

  it('sees writes made through a subclass and an undo that rebuilds through clear and set', () => {
    class Undoable extends Map<string, Row> {
      override set(key: string, value: Row): this {
        return super.set(key, value);
      }
      restore(entries: [string, Row][]): void {
        this.clear();
        for (const [key, value] of entries) this.set(key, value);
      }
    }
    const map = new Undoable();
    for (let n = 1; n <= 6; n++) map.set(String(n), { id: String(n), n, version: 0 });
    const before = [...map.entries()];
    expectSame(map, everything, { paginate: true, page: 1, pageSize: 4 });
    map.delete('2');
    map.set('7', { id: '7', n: 7, version: 0 });
    expectSame(map, everything, { paginate: true, page: 1, pageSize: 4 });
    map.restore(before);
    expect(orderedKeys(map)).toEqual(['1', '2', '3', '4', '5', '6']);
    expectSame(map, everything, { paginate: true, page: 1, pageSize: 4 });
  });

  it('rebuilds when the size shows a write it did not see', () => {
    const { map } = filled(5);
    orderedKeys(map);
    Map.prototype.delete.call(map, '1');
    expect(orderedKeys(map)).toEqual(['2', '3', '4', '5']);
  });

  it('leaves the Map comparable and serialisable as before', () => {
    const { map } = filled(3);
    orderedKeys(map);
    expect(map).toEqual(filled(3).map);
    expect(Object.keys(map)).toEqual([]);
    expect(structuredClone(map)).toEqual(map);
  });
});

describe('listing: a page reads only its rows', () => {
  it('an unfiltered page looks up its rows by key and never iterates the collection', () => {
    const { map, next } = filled(10_000);
    listPage(map, everything, { paginate: true, page: 0, pageSize: 1 });
    const values = vi.spyOn(map, 'values');
    const keys = vi.spyOn(map, 'keys');
    const get = vi.spyOn(map, 'get');
    const deep = listPage(map, everything, { paginate: true, page: 9_990, pageSize: 1 });
    expect(deep.rows.map((r) => r.n)).toEqual([9_991]);
    listPage(map, everything, { paginate: true, page: 9, pageSize: 1000 });
    next(); // a create is appended to the index, not a reason to rebuild it
    expect(
      listPage(map, everything, { paginate: true, page: 10_000, pageSize: 1 }).rows.map((r) => r.n),
    ).toEqual([10_001]);
    expect(values).not.toHaveBeenCalled();
    expect(keys).not.toHaveBeenCalled();
    expect(get).toHaveBeenCalledTimes(1 + 1000 + 1);
  });

  it('a delete costs one rebuild of the keys on the next page, then none', () => {
    const { map } = filled(100);
    orderedKeys(map);
    map.delete('50');
    const keys = vi.spyOn(map, 'keys');
    for (let page = 0; page < 5; page++) listPage(map, everything, { paginate: true, page, pageSize: 20 });
    expect(keys).toHaveBeenCalledTimes(1);
  });

  it('a filtered page scans once and keeps only its rows, with an exact total_count', () => {
    const { map } = filled(30);
    const seen: number[] = [];
    const counting: RowFilter<Row> = {
      active: true,
      matches: (row) => {
        seen.push(row.n);
        return row.n % 3 === 0;
      },
    };
    const page = listPage(map, counting, { paginate: true, page: 1, pageSize: 4 });
    expect(seen).toHaveLength(30);
    expect(page.rows.map((r) => r.n)).toEqual([15, 18, 21, 24]);
    expect(page.pagination).toEqual({ first: 5, last: 8, page: 1, total_count: 10, total_pages: 3 });
  });
});
