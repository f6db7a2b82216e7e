/** `wafctl get` is derived from the registry of families: every family is readable, under every name. */
import { describe, expect, it } from 'vitest';
import {
  type ApiClient,
  createApiClient,
  FILTERS_BY_KIND,
  type ListKind,
  type RecordsByKind,
} from '../../../src/api/index.js';
import { KINDS } from '../../../src/kinds/index.js';
import { GET_KINDS, getKindNamed, resolveGetKind } from '../../../src/ops/get/kinds.js';
import { listRecords } from '../../../src/ops/get/listing.js';

const dashed = (name: string) => name.replaceAll('_', '-');

/** A client whose filtered listings only record which listing was asked for, and yield nothing. */
function recordingClient(asked: string[]): ApiClient {
  async function* nothing<T>(): AsyncGenerator<T> {}
  return {
    ...createApiClient({ baseUrl: 'http://127.0.0.1:9', token: 'registry-test-token' }),
    iterateWithFilters<K extends ListKind>(kind: K): AsyncIterable<RecordsByKind[K]> {
      asked.push(kind);
      return nothing();
    },
  };
}

describe('get: derived from the registry', () => {
  it('reads every family of the registry, in its order, and the read-only rules', () => {
    const names = GET_KINDS.map((kind) => kind.name);
    expect(names.filter((name) => name !== 'rules')).toEqual(KINDS.map((kind) => dashed(kind.section)));
    expect(names.filter((name) => name === 'rules')).toEqual(['rules']);
    // Every listing of the client is readable, and nothing else.
    expect([...names].sort()).toEqual(Object.keys(FILTERS_BY_KIND).sort());
  });

  it.each(KINDS.map((kind) => [kind.section, kind] as const))(
    '%s: every spelling of KIND names it (sections and plan names, dashes and underscores)',
    (_section, kind) => {
      const listing = dashed(kind.section);
      for (const spelling of [listing, kind.section, kind.name, dashed(kind.name)]) {
        expect(resolveGetKind(spelling)).toBe(listing);
      }
      expect(getKindNamed(resolveGetKind(kind.section)).noun).toBe(kind.noun);
    },
  );

  it.each(GET_KINDS.map((kind) => [kind.name, kind] as const))(
    '%s: a table led by its id or name, with one column per header',
    (_name, kind) => {
      const headers = kind.spec.columns.map((column) => column.header);
      // A singleton (settings) is one object: nothing to tell rows apart by.
      const singleton = KINDS.some((family) => dashed(family.section) === kind.name && family.singleton);
      if (!singleton) expect(['ID', 'NAME']).toContain(headers[0]);
      expect(new Set(headers).size).toBe(headers.length);
      expect(headers.every((header) => /^[A-Z_]+$/.test(header))).toBe(true);
    },
  );

  it.each(GET_KINDS.map((kind) => [kind.name] as const))(
    '%s: lists its own listing of the API',
    async (name) => {
      const asked: string[] = [];
      const rows = await listRecords(recordingClient(asked), name, {
        filters: {},
        full: true,
        concurrency: 1,
      });
      expect(rows).toEqual([]);
      expect(asked).toEqual([name]);
    },
  );

  it('finds an object of a family keyed by name by that name', () => {
    const byName = KINDS.filter((kind) => kind.keyFields.join('/') === 'name');
    expect(byName.length).toBeGreaterThan(0);
    for (const family of byName) {
      const { find } = getKindNamed(resolveGetKind(family.section)).spec;
      expect({ family: family.section, byName: find.by === 'name' || find.named !== undefined }).toEqual({
        family: family.section,
        byName: true,
      });
    }
  });
});
