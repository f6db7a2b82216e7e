import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { IncompleteListingError } from '../../src/api/index.js';
import { fakeListing, ids } from './fake-listing.js';
import { answer, applicationRule, BASE, makeClient, ok, pagination, schedule, useNock } from './helpers.js';

useNock();

const RULES = '/api/v1/rules';
const pagesAsked = (listing: { requests: { page: number }[] }) => listing.requests.map((r) => r.page).sort();

describe('page base', () => {
  it('reads a 0-based listing page by page', async () => {
    const { client } = makeClient({ pageSize: 10 });
    const listing = fakeListing({ path: RULES, key: 'rules', rows: ids(25) });

    const rows = await client.rules.list();

    expect(rows.map((r) => r.id)).toEqual(ids(25).map((r) => r.id));
    expect(pagesAsked(listing)).toEqual([0, 1, 2]);
    expect(listing.requests.every((r) => r.pageSize === 10)).toBe(true);
  });

  it('detects a 1-based server that refuses page 0 with "Error with pagination fields"', async () => {
    const { client } = makeClient({ pageSize: 10 });
    const listing = fakeListing({ path: RULES, key: 'rules', rows: ids(25), base: 1, pageZero: 'error' });

    expect((await client.rules.list()).map((r) => r.id)).toEqual(ids(25).map((r) => r.id));
    expect(pagesAsked(listing)).toEqual([0, 1, 2, 3]);
  });

  it('detects a 1-based server that answers page 0 with page 1', async () => {
    const { client } = makeClient({ pageSize: 10 });
    const listing = fakeListing({ path: RULES, key: 'rules', rows: ids(25), base: 1, pageZero: 'clamp' });

    expect((await client.rules.list()).map((r) => r.id)).toEqual(ids(25).map((r) => r.id));
    expect(pagesAsked(listing)).toEqual([0, 2, 3]);
  });

  it('detects a 1-based server that answers page 0 with nothing although rows exist', async () => {
    const { client } = makeClient({ pageSize: 10 });
    const listing = fakeListing({ path: RULES, key: 'rules', rows: ids(25), base: 1, pageZero: 'empty' });

    expect((await client.rules.list()).map((r) => r.id)).toEqual(ids(25).map((r) => r.id));
    expect(pagesAsked(listing)).toEqual([0, 1, 2, 3]);
  });

  it('makes one request for an empty listing', async () => {
    const { client } = makeClient();
    const listing = fakeListing({ path: RULES, key: 'rules', rows: [] });

    expect(await client.rules.list()).toEqual([]);
    expect(pagesAsked(listing)).toEqual([0]);
  });

  it('does not mistake another 400 for a page-base problem', async () => {
    const { client } = makeClient();
    answer(nock(BASE).get(RULES).query(true), 400, { status: 'error', message: 'Forbidden filter' });

    await expect(client.rules.list()).rejects.toMatchObject({
      status: 400,
      serverMessage: 'Forbidden filter',
    });
  });
});

describe('page size', () => {
  it('follows a server that silently caps page_size, and still reads everything', async () => {
    const { client } = makeClient({ pageSize: 1000 });
    const listing = fakeListing({ path: RULES, key: 'rules', rows: ids(23), maxPageSize: 5 });

    expect((await client.rules.list()).map((r) => r.id)).toEqual(ids(23).map((r) => r.id));
    expect(pagesAsked(listing)).toEqual([0, 1, 2, 3, 4]);
    expect(listing.requests.map((r) => r.pageSize).sort((a, b) => a - b)).toEqual([5, 5, 5, 5, 1000]);
  });

  it('reads everything even when total_pages was computed with the uncapped size', async () => {
    const { client } = makeClient({ pageSize: 100 });
    const listing = fakeListing({
      path: RULES,
      key: 'rules',
      rows: ids(23),
      maxPageSize: 5,
      totalPagesFromRequested: true,
    });

    expect(await client.rules.list()).toHaveLength(23);
    expect(pagesAsked(listing)).toEqual([0, 1, 2, 3, 4]);
  });
});

describe('completeness', () => {
  it('throws IncompleteListingError when the rows do not add up to total_count', async () => {
    const { client } = makeClient({ pageSize: 10 });
    fakeListing({ path: RULES, key: 'rules', rows: ids(25), totalCount: 31 });

    const error = await client.rules.list().catch((e: unknown) => e);

    expect(error).toBeInstanceOf(IncompleteListingError);
    expect(error).toMatchObject({
      code: 'INCOMPLETE_LISTING',
      path: RULES,
      received: 25,
      totalCount: 31,
      message:
        '[GET] /api/v1/rules: incomplete listing: received 25 distinct rows, server reported total_count 31',
    });
  });

  it('stops asking for pages once one comes back empty, whatever total_count promised', async () => {
    // A row limit above the bogus count: this is about the empty page, not the cap (see below).
    const { client } = makeClient({ pageSize: 10, concurrency: 2, maxRows: 10_000_000 });
    const listing = fakeListing({ path: RULES, key: 'rules', rows: ids(12), totalCount: 5_000_000 });

    await expect(client.rules.list()).rejects.toMatchObject({ code: 'INCOMPLETE_LISTING', received: 12 });
    // The first page, then at most the look-ahead window (2 slots x 4) and its refill after page 2.
    expect(listing.requests.length).toBeLessThan(20);
  });

  it('throws from the iterator only after the rows it did get, never ending as if complete', async () => {
    const { client } = makeClient({ pageSize: 10 });
    fakeListing({ path: RULES, key: 'rules', rows: ids(12), totalCount: 13 });
    const seen: string[] = [];

    const run = async () => {
      for await (const row of client.rules.iterate()) seen.push(row.id);
    };

    await expect(run()).rejects.toBeInstanceOf(IncompleteListingError);
    expect(seen).toHaveLength(12);
  });

  it('de-duplicates rows repeated across pages and counts distinct rows', async () => {
    const { client } = makeClient({ pageSize: 2 });
    const pages = [
      ['a', 'b'],
      ['b', 'c'],
      ['d', 'e'],
    ];
    nock(BASE)
      .get(RULES)
      .query(true)
      .times(3)
      .reply((uri) => {
        const page = Number(new URL(uri, BASE).searchParams.get('page'));
        const rows = (pages[page] ?? []).map((id) => ({ id }));
        return [200, { ...ok({ rules: rows }), pagination: pagination(page, 2, 5, 3, page * 2) }];
      });

    expect((await client.rules.list()).map((r) => r.id)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('refuses a listing whose duplicates hide a missing row', async () => {
    const { client } = makeClient({ pageSize: 2 });
    const pages = [['a', 'b'], ['b', 'c'], ['d']];
    nock(BASE)
      .get(RULES)
      .query(true)
      .times(3)
      .reply((uri) => {
        const page = Number(new URL(uri, BASE).searchParams.get('page'));
        const rows = (pages[page] ?? []).map((id) => ({ id }));
        return [200, { ...ok({ rules: rows }), pagination: pagination(page, rows.length, 5, 3, page * 2) }];
      });

    await expect(client.rules.list()).rejects.toMatchObject({
      code: 'INCOMPLETE_LISTING',
      received: 4,
      totalCount: 5,
    });
  });
});

describe('concurrency', () => {
  it('keeps at most `concurrency` pages in flight', async () => {
    const concurrency = 3;
    const remaining = 10;
    const { client } = makeClient({ pageSize: 1, concurrency });
    let inFlight = 0;
    let maxInFlight = 0;
    let arrived = 0;
    let held: (() => void)[] = [];
    fakeListing({
      path: RULES,
      key: 'rules',
      rows: ids(remaining + 1),
      beforeReply: async (page) => {
        if (page === 0) return;
        inFlight++;
        arrived++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        // Hold every answer until `concurrency` requests are waiting (or the last ones arrived), then
        // leave a few ms for any request beyond the limit to show up before releasing them.
        const gate = new Promise<void>((resolve) => held.push(resolve));
        if (inFlight === concurrency || arrived === remaining) {
          const release = held;
          held = [];
          setTimeout(() => {
            for (const resolve of release) resolve();
          }, 10);
        }
        await gate;
        inFlight--;
      },
    });

    expect(await client.rules.list()).toHaveLength(remaining + 1);
    expect(maxInFlight).toBe(concurrency);
  });

  it('lets the caller stop early without failing on pages still in flight', async () => {
    const { client } = makeClient({ pageSize: 1, retry: { attempts: 1 } });
    nock(BASE)
      .persist()
      .get(RULES)
      .query(true)
      .reply((uri) => {
        const page = Number(new URL(uri, BASE).searchParams.get('page'));
        if (page > 0) return [400, { status: 'error', message: 'boom' }];
        return [200, { ...ok({ rules: [{ id: 'only' }] }), pagination: pagination(0, 1, 20, 20) }];
      });

    const first: string[] = [];
    for await (const row of client.rules.iterate()) {
      first.push(row.id);
      break;
    }

    expect(first).toEqual(['only']);
  });
});

describe('every paginated family uses it', () => {
  it('application rules', async () => {
    const { client } = makeClient({ pageSize: 2 });
    const rows = ['ar-1', 'ar-2', 'ar-3'].map((id) => applicationRule({ id }));
    const listing = fakeListing({ path: '/api/v1/application_rules', key: 'application_rules', rows });

    expect((await client.applicationRules.list()).map((r) => r.id)).toEqual(['ar-1', 'ar-2', 'ar-3']);
    expect(pagesAsked(listing)).toEqual([0, 1]);
  });

  it('schedules', async () => {
    const { client } = makeClient({ pageSize: 2 });
    const rows = ['1', '2', '3', '4', '5'].map((id) => schedule({ id }));
    const listing = fakeListing({
      path: '/api/v1/reports/schedules',
      key: 'schedules',
      rows,
      base: 1,
      pageZero: 'error',
    });

    expect(await client.schedules.list()).toHaveLength(5);
    expect(pagesAsked(listing)).toEqual([0, 1, 2, 3]);
  });
});
