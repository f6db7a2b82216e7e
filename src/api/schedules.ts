import { z } from 'zod';
import { type ClientContext, call, paginatedPages } from './context.js';
import { oneRecord, readStatus, underEitherKey, underKey } from './envelope.js';
import { filtersToQuery, SCHEDULE_FILTERS, type ScheduleFilters } from './filters.js';
import { collect, eachRow } from './paginate.js';
import { type Schedule, scheduleSchema } from './records.js';
import { pathSegment } from './url.js';

/** The body's `attrs` for a schedule create. */
export interface ScheduleInput {
  name: string;
  hosts: string[];
  services?: string[] | null;
  type: string;
  schedule: string;
  send_to: string[];
  send_via: string;
  timezone: string;
}

export interface SchedulesApi {
  /** Every page, de-duplicated; throws IncompleteListingError rather than return a partial list. */
  list(filters?: ScheduleFilters): Promise<Schedule[]>;
  iterate(filters?: ScheduleFilters): AsyncIterable<Schedule>;
  get(id: string): Promise<Schedule>;
  create(attrs: ScheduleInput): Promise<Schedule>;
  update(id: string, attrs: Partial<ScheduleInput>): Promise<Schedule>;
  /** The API answers with no data: nothing to resolve with. */
  delete(ids: readonly string[]): Promise<void>;
}

const BASE = '/api/v1/reports/schedules';
const schedulePath = (id: string) => `${BASE}/${pathSegment(id, 'schedule id')}`;

// The example names the list `data.schedules`, the attribute list `data.registries`.
const pageData = underEitherKey('schedules', 'registries', z.array(scheduleSchema));
const oneData = underKey('schedule', oneRecord(scheduleSchema));

/** The report schedules' endpoints (`/api/v1/reports/schedules`). */
export function schedulesApi(ctx: ClientContext): SchedulesApi {
  // Filters are checked on the first `next()`, like every other failure of the listing.
  async function* iterate(filters: ScheduleFilters = {}) {
    const query = filtersToQuery(SCHEDULE_FILTERS, 'schedules', filters);
    yield* eachRow(paginatedPages(ctx, BASE, query, pageData));
  }
  return {
    iterate,
    list: async (filters) => collect(iterate(filters)),
    get: async (id) => call(ctx, { method: 'GET', path: schedulePath(id) }, oneData),
    create: async (attrs) =>
      call(ctx, { method: 'POST', path: BASE, contentType: 'application/json', body: { attrs } }, oneData),
    update: async (id, attrs) =>
      call(
        ctx,
        { method: 'PUT', path: schedulePath(id), contentType: 'application/json', body: { attrs } },
        oneData,
      ),
    delete: async (ids) => {
      if (ids.length === 0) return;
      // Documented under /reports/registries, not /reports/schedules.
      const spec = {
        method: 'DELETE',
        path: '/api/v1/reports/registries',
        contentType: 'application/json',
        body: { schedules_ids: ids },
      } as const;
      readStatus(spec, await ctx.http.send(spec));
    },
  };
}
