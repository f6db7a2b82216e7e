/** /api/v1/reports: read for any authenticated user, write for administrators. Names are unique. */
import { z } from 'zod';
import { SCHEDULES } from '../collections.js';
import { ListFilter } from '../filters.js';
import { listPage } from '../listing.js';
import { parsePageRequest } from '../pagination.js';
import type { Schedule } from '../records.js';
import { changed, fail, ok, type Route, type RouteContext, type RouteResult } from '../router.js';
import type { Store } from '../store.js';
import { email, nameText, nonEmptyString, parseWith, timezone } from '../validation.js';

const MESSAGES = {
  list: 'List of report schedules',
  paginationError: 'Error with pagination fields',
  retrieved: 'Report schedule retrieved',
  retrieveError: 'Error retrieving schedules',
  created: 'Report schedule created succesfully',
  createError: 'Error creating new schedule',
  updated: 'Report schedule updated succesfully',
  updateError: 'Error updating schedule',
  deleted: 'Schedules succesfully deleted',
  deleteError: 'Error deleting report schedules',
} as const;

const attrsShape = {
  name: nameText,
  hosts: z.array(nonEmptyString),
  services: z.array(nonEmptyString).nullable(),
  type: nonEmptyString,
  schedule: nonEmptyString,
  send_to: z.array(email),
  send_via: nonEmptyString,
  timezone,
};
const createBody = z.strictObject({
  attrs: z.strictObject({ ...attrsShape, services: attrsShape.services.default(null) }),
});
const updateBody = z.strictObject({ attrs: z.strictObject(attrsShape).partial() });
const deleteBody = z.strictObject({ schedules_ids: z.array(nonEmptyString) });

function nameTaken(store: Store, name: string | undefined, selfId?: string): string[] {
  if (name === undefined) return [];
  for (const schedule of store.collection(SCHEDULES).values()) {
    if (schedule.name === name && schedule.id !== selfId)
      return [`attrs.name: a schedule named '${name}' exists`];
  }
  return [];
}

function list({ query, store }: RouteContext): RouteResult {
  const page = parsePageRequest(query);
  if ('errors' in page) return fail(MESSAGES.paginationError, page.errors);
  const filter = new ListFilter<Schedule>(query)
    .text('id', (s) => s.id, ['exact', 'list'])
    .contains('name', (s) => s.name)
    .exact('type', (s) => s.type)
    .exact('schedule', (s) => s.schedule)
    .atLeast('scheduled_at_start', (s) => s.scheduled_at)
    // The spec documents the upper bound as `scheduled_by_end`; the symmetric name works too.
    .atMost('scheduled_by_end', (s) => s.scheduled_at)
    .atMost('scheduled_at_end', (s) => s.scheduled_at)
    .exact('scheduled_by', (s) => s.scheduled_by);
  if (filter.errors.length > 0) return fail(MESSAGES.paginationError, filter.errors);
  const { rows, pagination } = listPage(store.collection(SCHEDULES), filter, page);
  return ok(MESSAGES.list, { schedules: rows }, { pagination });
}

function create({ body, store, caller }: RouteContext): RouteResult {
  const parsed = parseWith(createBody, body);
  if (!parsed.ok) return fail(MESSAGES.createError, parsed.errors);
  const attrs = parsed.value.attrs;
  const errors = nameTaken(store, attrs.name);
  if (errors.length > 0) return fail(MESSAGES.createError, errors);
  const now = store.nowMicros();
  // The first run is taken to be "now"; there is no scheduler behind the emulator to say otherwise.
  const schedule: Schedule = {
    id: store.nextId('schedule'),
    ...attrs,
    scheduled_by: caller.username,
    scheduled_at: now,
    start_timestamp: now,
    end_timestamp: null,
  };
  store.collection(SCHEDULES).set(schedule.id, schedule);
  return changed(MESSAGES.created, { schedule });
}

function update({ body, store, params }: RouteContext): RouteResult {
  const id = params.schedule_id ?? '';
  const current = store.collection(SCHEDULES).get(id);
  if (current === undefined) return fail(MESSAGES.updateError, [`schedule_id: no schedule with id '${id}'`]);
  const parsed = parseWith(updateBody, body);
  if (!parsed.ok) return fail(MESSAGES.updateError, parsed.errors);
  const attrs = parsed.value.attrs;
  const errors = nameTaken(store, attrs.name, id);
  if (errors.length > 0) return fail(MESSAGES.updateError, errors);
  // Partial update: JSON has no `undefined`, so a field absent from attrs keeps its current value.
  const updated: Schedule = { ...current, ...attrs };
  store.collection(SCHEDULES).set(id, updated);
  return changed(MESSAGES.updated, { schedule: updated });
}

function remove({ body, store }: RouteContext): RouteResult {
  const parsed = parseWith(deleteBody, body);
  if (!parsed.ok) return fail(MESSAGES.deleteError, parsed.errors);
  const ids = parsed.value.schedules_ids;
  const errors = ids
    .filter((id) => !store.collection(SCHEDULES).has(id))
    .map((id) => `schedules_ids: no schedule '${id}'`);
  if (errors.length > 0) return fail(MESSAGES.deleteError, errors);
  for (const id of ids) store.collection(SCHEDULES).delete(id);
  // Documented: the body of this answer carries only status and message.
  return changed(MESSAGES.deleted);
}

const COLLECTION = '/api/v1/reports/schedules';
const ONE = `${COLLECTION}/{schedule_id}`;

export const scheduleRoutes: Route[] = [
  {
    method: 'GET',
    template: COLLECTION,
    privilege: 'schedules:read',
    body: 'none',
    errorMessage: MESSAGES.paginationError,
    handle: list,
  },
  {
    method: 'GET',
    template: ONE,
    privilege: 'schedules:read',
    body: 'none',
    errorMessage: MESSAGES.retrieveError,
    handle: ({ store, params }) => {
      const id = params.schedule_id ?? '';
      const schedule = store.collection(SCHEDULES).get(id);
      if (schedule === undefined)
        return fail(MESSAGES.retrieveError, [`schedule_id: no schedule with id '${id}'`]);
      return ok(MESSAGES.retrieved, { schedule });
    },
  },
  {
    method: 'POST',
    template: COLLECTION,
    privilege: 'schedules:write',
    body: 'json',
    errorMessage: MESSAGES.createError,
    handle: create,
  },
  {
    method: 'PUT',
    template: ONE,
    privilege: 'schedules:write',
    body: 'json',
    errorMessage: MESSAGES.updateError,
    handle: update,
  },
  {
    method: 'DELETE',
    template: '/api/v1/reports/registries',
    privilege: 'schedules:write',
    body: 'json',
    errorMessage: MESSAGES.deleteError,
    handle: remove,
  },
];
