/**
 * The bound on a listing's rows, against real local servers that invent rows: full pages of new ids
 * for ever, under a `total_count` that is either absurd or modest. Reading must stop with a clear
 * error, after a bounded number of requests, never grow until memory runs out.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_ROWS, ListingTooLargeError } from '../../src/api/index.js';
import { makeClient, ok } from './helpers.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

interface Listing {
  url: string;
  /** The `page` of every request. */
  pages: number[];
}

/**
 * `/api/v1/rules`: every page full (page_size rows of ids never served before), reporting
 * `totalCount` and `totalPages` whatever was asked. `honestRows`, when given, ends the listing there.
 */
async function inventingServer(
  totalCount: number,
  totalPages: number,
  honestRows?: number,
  /** Characters of filler in every row: rows few but large. */
  padding = 0,
): Promise<Listing> {
  const pages: number[] = [];
  const server = createServer((req, res) => {
    const query = new URL(req.url ?? '/', 'http://x').searchParams;
    const page = Number(query.get('page'));
    const size = Number(query.get('page_size'));
    pages.push(page);
    const start = page * size;
    const end = honestRows === undefined ? start + size : Math.min(start + size, honestRows);
    const pad = padding > 0 ? { message: 'x'.repeat(padding) } : {};
    const rules = Array.from({ length: Math.max(0, end - start) }, (_, i) => ({
      id: `r-${start + i}`,
      ...pad,
    }));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        ...ok({ rules }),
        pagination: { first: start + 1, last: end, page, total_count: totalCount, total_pages: totalPages },
      }),
    );
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, pages };
}

describe('a listing that never ends', () => {
  it('total_count 1e12 is refused at the first page: it cannot end whole within the row limit', async () => {
    const server = await inventingServer(1e12, 1e11);
    const { client } = makeClient({ baseUrl: server.url, pageSize: 10 });

    const error = await client.rules.list().catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ListingTooLargeError);
    expect(error).toMatchObject({
      code: 'INCOMPLETE_LISTING',
      limit: DEFAULT_MAX_ROWS,
      message: `[GET] /api/v1/rules: listing too large: the server reports total_count 1000000000000, more than the limit of ${DEFAULT_MAX_ROWS} rows (WAFCTL_MAX_ROWS raises it); stopped reading`,
    });
    expect(server.pages).toEqual([0]);
  });

  it('full pages of new ids beyond what the first total_count allows stop at total_count plus a margin', async () => {
    // total_count 20, but total_pages says a billion, and every page is full of fresh ids.
    const server = await inventingServer(20, 1e9);
    const { client } = makeClient({ baseUrl: server.url, pageSize: 10, concurrency: 2 });

    const error = await client.rules.list().catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ListingTooLargeError);
    expect(error).toMatchObject({
      code: 'INCOMPLETE_LISTING',
      received: 40,
      limit: 30, // 20 and one page (a tenth of 20 is less)
      message:
        '[GET] /api/v1/rules: listing too large: received more than 30 rows, although the first page reported total_count 20; stopped reading',
    });
    // The first page, the look-ahead window and its refills: a handful, not a billion.
    expect(server.pages.length).toBeLessThan(12);
  });

  it('stops at the row limit (WAFCTL_MAX_ROWS) whatever total_count and total_pages say', async () => {
    const server = await inventingServer(45, 1e9);
    const { client } = makeClient({ baseUrl: server.url, pageSize: 10, concurrency: 1, maxRows: 45 });

    await expect(client.rules.list()).rejects.toMatchObject({
      code: 'INCOMPLETE_LISTING',
      received: 50,
      limit: 45,
      message:
        '[GET] /api/v1/rules: listing too large: more than 45 rows, the limit (WAFCTL_MAX_ROWS raises it); stopped reading',
    });
  });

  it('still reads a listing that grows a little while it is read', async () => {
    // Announced 25 at the first page; 28 by the time the last page is read.
    const server = await inventingServer(25, 3, 28);
    const { client } = makeClient({ baseUrl: server.url, pageSize: 10 });

    expect(await client.rules.list()).toHaveLength(28);
  });

  it('refuses a row limit that is no positive whole number', () => {
    expect(() => makeClient({ maxRows: 0 })).toThrow(expect.objectContaining({ code: 'USAGE' }));
  });

  it('stops before the bodies outgrow the byte budget (WAFCTL_MAX_LISTING_BYTES), rows few but large (issue 41)', async () => {
    // 100,000 rows of 10 kB each is a gigabyte: within the row limit, far beyond the byte budget.
    const server = await inventingServer(100_000, 10_000, undefined, 10_000);
    const { client } = makeClient({
      baseUrl: server.url,
      pageSize: 10,
      concurrency: 2,
      maxListingBytes: 500_000,
    });

    const error = await client.rules.list().catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ListingTooLargeError);
    expect((error as Error).message).toBe(
      '[GET] /api/v1/rules: listing too large: its pages hold more than 500000 bytes, the limit (WAFCTL_MAX_LISTING_BYTES raises it); stopped reading',
    );
    // About 500 kB of 100 kB pages: a handful of requests, not ten thousand.
    expect(server.pages.length).toBeLessThan(12);
    expect(() => makeClient({ maxListingBytes: 0 })).toThrow(expect.objectContaining({ code: 'USAGE' }));
  });
});
