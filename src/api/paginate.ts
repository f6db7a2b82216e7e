/**
 * Reading every page of a paginated listing, without trusting the server to behave as documented:
 * the page base (0 or 1) is detected, a silently capped page_size is detected, remaining pages are
 * fetched concurrently (bounded by p-limit), rows are de-duplicated by id, and a listing whose
 * distinct rows fall short of `total_count` throws instead of looking complete.
 *
 * Nor is a listing allowed to grow without bound: the rows received may exceed the first page's
 * `total_count` by a margin only (rows created while it is read, rows met twice when it shifts),
 * and never the hard cap `maxRows` (limits.ts). A server that pages invented ids for ever under
 * `total_count: 1e12` is stopped with a ListingTooLargeError, not left to exhaust memory.
 */
import pLimit from 'p-limit';
import type { Pagination } from './envelope.js';
import { ApiError, IncompleteListingError, ListingTooLargeError } from './errors.js';
import { MAX_LISTING_BYTES_ENV, MAX_ROWS_ENV } from './limits.js';

export interface Page<T> {
  rows: readonly T[];
  pagination: Pagination;
  /** The size of the page's body, when the fetcher knows it: counted against `maxBytes`. */
  bytes?: number;
}

export type PageFetcher<T> = (page: number, pageSize: number) => Promise<Page<T>>;

export interface PaginateOptions {
  /** For error messages: the listing's API path. */
  path: string;
  pageSize: number;
  /** Pages in flight at once. */
  concurrency: number;
  /** The most rows the listing may hold, whatever `total_count` says. */
  maxRows: number;
  /** The most bytes of page bodies the listing may read (absent: unbounded, for tests of rows). */
  maxBytes?: number;
}

/** The spec's message for a bad `page`/`page_size`; a server rejecting page 0 with it counts from 1. */
const PAGINATION_FIELDS_ERROR = /pagination fields/i;

/** How many pages may be requested ahead of the one being yielded: bounds memory on huge listings. */
const LOOKAHEAD_PER_SLOT = 1;

async function readFirstPage<T>(fetchPage: PageFetcher<T>, pageSize: number) {
  let page: Page<T>;
  try {
    page = await fetchPage(0, pageSize);
  } catch (error) {
    const rejectsPageZero =
      error instanceof ApiError &&
      error.status === 400 &&
      PAGINATION_FIELDS_ERROR.test(error.serverMessage ?? '');
    if (!rejectsPageZero) throw error;
    return { page: await fetchPage(1, pageSize), base: 1 };
  }
  // Asked for page 0, was told this is page 1: the server counts from 1 and clamped our index.
  if (page.pagination.page === 1) return { page, base: 1 };
  // Nothing on page 0 although rows exist: page 0 lies before a 1-based first page.
  if (page.rows.length === 0 && page.pagination.total_count > 0)
    return { page: await fetchPage(1, pageSize), base: 1 };
  return { page, base: 0 };
}

/**
 * The most rows a listing may deliver: its first page's `total_count`, plus a tenth of it or one page
 * (whichever is more) for rows created while it is read and rows met twice when it shifts; never
 * more than `maxRows`.
 */
function rowBudget(totalCount: number, pageSize: number, maxRows: number): number {
  return Math.min(maxRows, totalCount + Math.max(pageSize, Math.ceil(totalCount / 10)));
}

function tooLarge(options: PaginateOptions, received: number, totalCount: number, budget: number) {
  const reason =
    budget === options.maxRows
      ? `more than ${options.maxRows} rows, the limit (${MAX_ROWS_ENV} raises it)`
      : `received more than ${budget} rows, although the first page reported total_count ${totalCount}`;
  return new ListingTooLargeError(options.path, { received, limit: budget, reason });
}

/** Counts the bodies a listing reads, and stops it past `maxBytes` (before their rows are kept). */
function byteCounter(options: PaginateOptions): { add(page: Page<unknown>, received: number): void } {
  let total = 0;
  return {
    add(page, received) {
      total += page.bytes ?? 0;
      if (options.maxBytes === undefined || total <= options.maxBytes) return;
      throw new ListingTooLargeError(options.path, {
        received,
        limit: options.maxRows,
        reason: `its pages hold more than ${options.maxBytes} bytes, the limit (${MAX_LISTING_BYTES_ENV} raises it)`,
      });
    },
  };
}

/** Rows not met before (a row may sit on two pages when the listing shifts while being read). */
function unseen<T extends { id: string }>(rows: readonly T[], seen: Set<string>): T[] {
  const fresh: T[] = [];
  for (const row of rows) {
    if (seen.has(row.id)) continue;
    seen.add(row.id);
    fresh.push(row);
  }
  return fresh;
}

/**
 * Every row, a page at a time (the rows of each page not met before): a caller that reads 100,000
 * rows pays for 100 steps of the async iteration rather than 100,000. `eachRow` gives them singly.
 */
export async function* paginate<T extends { id: string }>(
  fetchPage: PageFetcher<T>,
  options: PaginateOptions,
): AsyncGenerator<T[], void, undefined> {
  const { page: first, base } = await readFirstPage(fetchPage, options.pageSize);
  const { total_count: totalCount, total_pages: totalPages } = first.pagination;
  // Refused before reading on: such a listing cannot end whole within the cap.
  if (totalCount > options.maxRows) {
    throw new ListingTooLargeError(options.path, {
      received: first.rows.length,
      limit: options.maxRows,
      reason: `the server reports total_count ${totalCount}, more than the limit of ${options.maxRows} rows (${MAX_ROWS_ENV} raises it)`,
    });
  }
  // A first page that is not the last but holds fewer (or more) rows than asked for tells the
  // server's real page size; later pages are requested with it so that page offsets line up.
  const pageSize =
    first.rows.length > 0 && totalCount > first.rows.length ? first.rows.length : options.pageSize;
  const pageCount = Math.max(totalPages, Math.ceil(totalCount / pageSize));

  const limit = pLimit(options.concurrency);
  const scheduled: Promise<Page<T>>[] = [];
  let nextIndex = 1;
  const scheduleAhead = () => {
    while (nextIndex < pageCount && scheduled.length < options.concurrency * LOOKAHEAD_PER_SLOT) {
      const pageNumber = base + nextIndex++;
      const pending = limit(() => fetchPage(pageNumber, pageSize));
      // Marked handled: if the caller stops early, a page that fails later must not crash the process.
      pending.catch(() => {});
      scheduled.push(pending);
    }
  };

  const budget = rowBudget(totalCount, pageSize, options.maxRows);
  let received = first.rows.length;
  if (received > budget) throw tooLarge(options, received, totalCount, budget);
  const bytes = byteCounter(options);
  bytes.add(first, received);
  const seen = new Set<string>();
  let expected = totalCount;
  try {
    scheduleAhead();
    yield unseen(first.rows, seen);
    for (let pending = scheduled.shift(); pending !== undefined; pending = scheduled.shift()) {
      const page = await pending;
      received += page.rows.length;
      if (received > budget) throw tooLarge(options, received, totalCount, budget);
      bytes.add(page, received);
      // An empty page means the rows ran out: asking for the pages after it would only multiply
      // requests (by a bogus total_count, possibly millions); the count check below reports the gap.
      if (page.rows.length === 0) nextIndex = pageCount;
      scheduleAhead();
      // A listing that grows or shrinks while being read must still add up to its largest count.
      expected = Math.max(expected, page.pagination.total_count);
      yield unseen(page.rows, seen);
    }
  } finally {
    limit.clearQueue();
  }
  if (seen.size < expected) throw new IncompleteListingError(options.path, seen.size, expected);
}

/** The rows of a listing read a page at a time, one at a time. */
export async function* eachRow<T>(pages: AsyncIterable<readonly T[]>): AsyncGenerator<T, void, undefined> {
  for await (const rows of pages) yield* rows;
}

/** Every row of an async iterable, in one array. */
export async function collect<T>(rows: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const row of rows) out.push(row);
  return out;
}
