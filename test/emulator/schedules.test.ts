import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { type Client, MICROS_MIN, scheduleAttrs, startTestEmulator, type WireSchedule } from './helpers.js';

let emulator: RunningEmulator;
let api: Client;

beforeAll(async () => {
  ({ emulator, api } = await startTestEmulator());
  // The name the duplicate-name case collides with, created here: tests run in any order.
  await create({ name: TAKEN });
});
afterAll(() => emulator.close());

type One = { schedule: WireSchedule };
type List = { schedules: WireSchedule[] };

const BASE = '/api/v1/reports/schedules';
const TAKEN = 'weekly-shop';

async function create(overrides: Record<string, unknown>): Promise<WireSchedule> {
  const reply = await api.post<One>(BASE, { attrs: scheduleAttrs(overrides) });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  const schedule = reply.body.data?.schedule;
  if (schedule === undefined) throw new Error('no data.schedule');
  return schedule;
}

async function all(): Promise<WireSchedule[]> {
  return (await api.get<List>(`${BASE}?paginate=false`)).body.data?.schedules ?? [];
}

describe('report schedules: CRUD', () => {
  it('POST creates a schedule with server fields', async () => {
    const attrs = scheduleAttrs({ name: 'created-here' });
    const reply = await api.post<One>(BASE, { attrs });
    expect(reply.status).toBe(200);
    expect(reply.body.message).toBe('Report schedule created succesfully');
    const schedule = reply.body.data?.schedule;
    expect(schedule).toEqual({
      id: expect.any(String),
      ...attrs,
      services: null,
      scheduled_by: 'admin',
      scheduled_at: expect.any(Number),
      start_timestamp: expect.any(Number),
      end_timestamp: null,
    });
    expect(schedule?.scheduled_at).toBeGreaterThan(MICROS_MIN);
  });

  it('GET one and GET list', async () => {
    const created = await create({ name: 'get-one', services: ['svc-shop'] });
    const one = await api.get<One>(`${BASE}/${created.id}`);
    expect(one.status).toBe(200);
    expect(one.body.message).toBe('Report schedule retrieved');
    expect(one.body.data?.schedule).toEqual(created);
    const list = await api.get<List>(`${BASE}?paginate=false`);
    expect(list.body.message).toBe('List of report schedules');
    expect(list.body.data?.schedules.map((s) => s.id)).toContain(created.id);
    const unknown = await api.get(`${BASE}/999999`);
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toBe('Error retrieving schedules');
  });

  it.each([
    ['an invalid e-mail', { send_to: ['not-an-email'] }],
    ['send_to as a string', { send_to: 'secops@example.com' }],
    ['an unknown timezone', { timezone: 'Mars/Olympus' }],
    ['an empty name', { name: '' }],
    ['hosts as a string', { hosts: 'shop.example.com' }],
    ['a missing send_via', { send_via: undefined }],
    ['an empty schedule', { schedule: '' }],
    ['a duplicate name', { name: TAKEN }],
  ])('POST with %s is a 400 and creates nothing', async (_case, overrides) => {
    const before = await all();
    const reply = await api.post(BASE, { attrs: scheduleAttrs({ name: 'new-schedule', ...overrides }) });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toBe('Error creating new schedule');
    expect(await all()).toEqual(before);
  });

  it('PUT is a partial update', async () => {
    const created = await create({ name: 'put-me' });
    const reply = await api.put<One>(`${BASE}/${created.id}`, {
      attrs: { send_to: ['a@example.com', 'b@example.com'], send_via: 'slack' },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.message).toBe('Report schedule updated succesfully');
    expect(reply.body.data?.schedule).toEqual({
      ...created,
      send_to: ['a@example.com', 'b@example.com'],
      send_via: 'slack',
    });
  });

  it.each([
    ['a duplicate name', { name: TAKEN }],
    ['an invalid e-mail', { send_to: ['x@'] }],
    ['an unknown timezone', { timezone: 'Nowhere' }],
    ['an unknown field', { scheduled_by: 'mallory' }],
  ])('PUT with %s is a 400 and changes nothing', async (_case, attrs) => {
    const created = await create({
      name: `put-invalid-${Object.keys(attrs)[0]}-${JSON.stringify(attrs).length}`,
    });
    const reply = await api.put(`${BASE}/${created.id}`, { attrs });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toBe('Error updating schedule');
    expect((await api.get<One>(`${BASE}/${created.id}`)).body.data?.schedule).toEqual(created);
  });

  it('PUT of an unknown id is a 400', async () => {
    const reply = await api.put(`${BASE}/999999`, { attrs: { send_via: 'email' } });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toBe('Error updating schedule');
  });

  it('DELETE /api/v1/reports/registries answers with only status and message', async () => {
    const a = await create({ name: 'delete-a' });
    const b = await create({ name: 'delete-b' });
    const reply = await api.delete('/api/v1/reports/registries', { schedules_ids: [a.id, b.id] });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ status: 'ok', message: 'Schedules succesfully deleted' });
    expect((await api.get(`${BASE}/${a.id}`)).status).toBe(400);
  });

  it('DELETE naming one unknown id is a 400 and deletes none', async () => {
    const a = await create({ name: 'keep-a' });
    const reply = await api.delete('/api/v1/reports/registries', { schedules_ids: [a.id, '999999'] });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toBe('Error deleting report schedules');
    expect((await api.get(`${BASE}/${a.id}`)).status).toBe(200);
    const malformed = await api.request('DELETE', '/api/v1/reports/registries', { rawBody: '{"ids": []}' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toBe('Error deleting report schedules');
  });
});

describe('report schedules: filters and pagination', () => {
  let fixture: WireSchedule[] = [];
  let other: RunningEmulator;
  let filterApi: Client;

  beforeAll(async () => {
    ({ emulator: other, api: filterApi } = await startTestEmulator());
    for (const [name, type, schedule] of [
      ['Weekly Shop', 'summary', 'weekly'],
      ['daily-blog', 'detailed', 'daily'],
      ['weekly-api', 'summary', 'weekly'],
    ] as const) {
      await filterApi.post(BASE, { attrs: scheduleAttrs({ name, type, schedule }) });
    }
    fixture = (await filterApi.get<List>(`${BASE}?paginate=false`)).body.data?.schedules ?? [];
  });
  afterAll(() => other.close());

  async function names(query: string): Promise<string[]> {
    const reply = await filterApi.get<List>(`${BASE}?paginate=false&${query}`);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    return reply.body.data?.schedules.map((s) => s.name) ?? [];
  }

  it.each<[string, () => string, string[]]>([
    ['id', () => `id=${fixture[1]?.id}`, ['daily-blog']],
    [
      'id_list',
      () => `id_list[]=${fixture[0]?.id}&id_list[]=${fixture[2]?.id}`,
      ['Weekly Shop', 'weekly-api'],
    ],
    ['name (case-insensitive part)', () => 'name=WEEKLY', ['Weekly Shop', 'weekly-api']],
    ['type', () => 'type=detailed', ['daily-blog']],
    ['schedule', () => 'schedule=weekly', ['Weekly Shop', 'weekly-api']],
    [
      'scheduled_at_start',
      () => `scheduled_at_start=${fixture[1]?.scheduled_at}`,
      ['daily-blog', 'weekly-api'],
    ],
    ['scheduled_by_end', () => `scheduled_by_end=${fixture[1]?.scheduled_at}`, ['Weekly Shop', 'daily-blog']],
    ['scheduled_by', () => 'scheduled_by=admin', ['Weekly Shop', 'daily-blog', 'weekly-api']],
    ['scheduled_by (nobody)', () => 'scheduled_by=alice', []],
  ])('filter %s', async (_name, query, expected) => {
    expect(await names(query())).toEqual(expected);
  });

  it('paginates and rejects bad pagination fields', async () => {
    const reply = await filterApi.get<List>(`${BASE}?paginate=true&page=1&page_size=2`);
    expect(reply.body.data?.schedules.map((s) => s.name)).toEqual(['weekly-api']);
    expect(reply.body.pagination).toEqual({ first: 3, last: 3, page: 1, total_count: 3, total_pages: 2 });
    for (const query of [
      '',
      'paginate=true&page=0',
      'paginate=true&page=z&page_size=1',
      'scheduled_at_start=x&paginate=false',
    ]) {
      const bad = await filterApi.get(`${BASE}?${query}`);
      expect(bad.status, query).toBe(400);
      expect(bad.body.message).toBe('Error with pagination fields');
    }
  });
});
