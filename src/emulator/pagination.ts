/**
 * `paginate`, `page` and `page_size` of the paginated lists (rules, application rules, schedules).
 * Pages are 0-based; `first`/`last` are the 1-based positions of the page's first and last row
 * (0 and 0 for an empty page), which fits the spec's example (page 0, first 1, last 1).
 */

export const MAX_PAGE_SIZE = 1000;

export type PageRequest = { paginate: false } | { paginate: true; page: number; pageSize: number };

export interface Pagination {
  first: number;
  last: number;
  page: number;
  total_count: number;
  total_pages: number;
}

const NON_NEGATIVE_INTEGER = /^\d+$/;

/** The page request, or the list of problems (reported as `Error with pagination fields`). */
export function parsePageRequest(query: URLSearchParams): PageRequest | { errors: string[] } {
  const paginate = query.get('paginate');
  if (paginate === null) return { errors: ['paginate: required (true or false)'] };
  if (paginate === 'false') return { paginate: false };
  if (paginate !== 'true') return { errors: [`paginate: expected true or false, got '${paginate}'`] };
  const errors: string[] = [];
  const page = readInteger(query, 'page', 0, errors);
  const pageSize = readInteger(query, 'page_size', 1, errors);
  if (page === undefined || pageSize === undefined) return { errors };
  // Larger pages are served at the cap rather than refused, and total_pages is computed with the cap.
  return { paginate: true, page, pageSize: Math.min(pageSize, MAX_PAGE_SIZE) };
}

function readInteger(
  query: URLSearchParams,
  name: string,
  min: number,
  errors: string[],
): number | undefined {
  const raw = query.get(name);
  if (raw === null) {
    errors.push(`${name}: required when paginate is true`);
    return undefined;
  }
  const value = NON_NEGATIVE_INTEGER.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min) {
    errors.push(`${name}: expected an integer >= ${min}, got '${raw}'`);
    return undefined;
  }
  return value;
}

/** Positions [start, end) of the page's rows among all matching rows (everything when not paginated). */
export function pageWindow(request: PageRequest): { start: number; end: number } {
  if (!request.paginate) return { start: 0, end: Number.POSITIVE_INFINITY };
  const start = request.page * request.pageSize;
  return { start, end: start + request.pageSize };
}

/** The `pagination` block for a page showing `shown` of `total` matching rows. */
export function describePage(request: PageRequest, total: number, shown: number): Pagination {
  if (!request.paginate) {
    return {
      first: total > 0 ? 1 : 0,
      last: total,
      page: 0,
      total_count: total,
      total_pages: total > 0 ? 1 : 0,
    };
  }
  const { start } = pageWindow(request);
  return {
    first: shown > 0 ? start + 1 : 0,
    last: shown > 0 ? start + shown : 0,
    page: request.page,
    total_count: total,
    total_pages: Math.ceil(total / request.pageSize),
  };
}
