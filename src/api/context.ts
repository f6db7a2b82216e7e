/** What every resource family needs from the client: the HTTP layer and the listing settings. */
import type { z } from 'zod';
import { readData, readPage } from './envelope.js';
import type { Http } from './http.js';
import { paginate } from './paginate.js';
import type { ReadOptions, RequestSpec } from './request.js';
import type { QueryParams } from './url.js';

export interface ClientContext {
  http: Http;
  pageSize: number;
  concurrency: number;
  /** The most rows one listing may hold (see limits.ts). */
  maxRows: number;
  /** The most bytes of bodies one listing may read (see limits.ts). */
  maxListingBytes: number;
}

/** One request whose envelope's `data` must match `data`. */
export async function call<S extends z.ZodType>(
  ctx: ClientContext,
  spec: RequestSpec,
  data: S,
): Promise<z.output<S>> {
  return readData(spec, await ctx.http.send(spec), data);
}

/**
 * Every row of a paginated listing at `path` with these (already checked) filters, by page; each
 * page's request carries `options.signal`.
 */
export function paginatedPages<T extends { id: string }>(
  ctx: ClientContext,
  path: string,
  filters: QueryParams,
  rows: z.ZodType<T[]>,
  { signal }: ReadOptions = {},
): AsyncGenerator<T[], void, undefined> {
  return paginate(
    async (page, pageSize) => {
      const spec: RequestSpec = {
        method: 'GET',
        path,
        query: { ...filters, paginate: true, page, page_size: pageSize },
        ...(signal === undefined ? {} : { signal }),
      };
      const { value, bytes } = await ctx.http.sendCounted(spec);
      const { data, pagination } = readPage(spec, value, rows);
      return { rows: data, pagination, bytes };
    },
    {
      path,
      pageSize: ctx.pageSize,
      concurrency: ctx.concurrency,
      maxRows: ctx.maxRows,
      maxBytes: ctx.maxListingBytes,
    },
  );
}
