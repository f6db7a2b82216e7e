/**
 * A paginated listing served through nock, configurable to misbehave the ways real servers do:
 * 1-based pages (and three ways of treating page 0), a silently capped page_size, a total_count
 * that promises more rows than it serves.
 */
import nock from 'nock';
import { BASE, ok } from './helpers.js';

export interface FakeListingOptions {
  path: string;
  /** Key of the rows under `data`. */
  key: string;
  rows: readonly { id: string }[];
  base?: 0 | 1;
  /** How a 1-based server answers page 0: a 400, an empty page, or page 1 reported as page 1. */
  pageZero?: 'error' | 'empty' | 'clamp';
  maxPageSize?: number;
  /** Compute total_pages from the requested page_size rather than the capped one (a buggy server). */
  totalPagesFromRequested?: boolean;
  /** Report this total_count instead of the number of rows. */
  totalCount?: number;
  /** Called before each answer; may hold it (to observe concurrency). */
  beforeReply?: (page: number) => Promise<void> | void;
}

export interface FakeListing {
  /** `page` and `page_size` of every request, in arrival order. */
  requests: { page: number; pageSize: number }[];
}

export function fakeListing(options: FakeListingOptions): FakeListing {
  const requests: FakeListing['requests'] = [];
  const base = options.base ?? 0;
  nock(BASE)
    .persist()
    .get(options.path)
    .query(true)
    .reply(async (uri) => {
      const query = new URL(uri, BASE).searchParams;
      const page = Number(query.get('page'));
      const requested = Number(query.get('page_size'));
      requests.push({ page, pageSize: requested });
      await options.beforeReply?.(page);
      if (query.get('paginate') !== 'true' || !Number.isInteger(page) || !(requested > 0)) {
        return [400, { status: 'error', message: 'Error with pagination fields' }];
      }
      let index = page - base;
      let reported = page;
      if (index < 0) {
        if (options.pageZero === 'error')
          return [400, { status: 'error', message: 'Error with pagination fields' }];
        if (options.pageZero === 'clamp') {
          index = 0;
          reported = 1;
        }
      }
      const size = Math.min(requested, options.maxPageSize ?? Number.POSITIVE_INFINITY);
      const slice = index < 0 ? [] : options.rows.slice(index * size, (index + 1) * size);
      const total = options.totalCount ?? options.rows.length;
      const pagesSize = options.totalPagesFromRequested ? requested : size;
      return [
        200,
        {
          ...ok({ [options.key]: slice }, 'List'),
          pagination: {
            first: slice.length === 0 ? 0 : index * size + 1,
            last: slice.length === 0 ? 0 : index * size + slice.length,
            page: reported,
            total_count: total,
            total_pages: Math.ceil(total / pagesSize),
          },
        },
      ];
    });
  return { requests };
}

export function ids(count: number, prefix = 'id-'): { id: string }[] {
  return Array.from({ length: count }, (_, i) => ({ id: `${prefix}${i + 1}` }));
}
