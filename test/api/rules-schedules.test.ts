import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { answer, BASE, makeClient, ok, pagination, rule, schedule, TOKEN, useNock } from './helpers.js';

useNock();

const JSON_TYPE = 'application/json';

describe('rules (read-only)', () => {
  it('lists with every kind of filter, booleans as true/false and lists as bracketed keys', async () => {
    const { client } = makeClient({ pageSize: 50 });
    const calls = answer(nock(BASE).get('/api/v1/rules').query(true), 200, {
      ...ok({ rules: [rule()] }, 'List of rules'),
      pagination: pagination(0, 1, 1, 1),
    });

    const rules = await client.rules.list({
      network_only: true,
      not_action_list: ['allow'],
      timestamp_end: 42,
      target_search: 'login',
    });

    expect(rules).toEqual([rule()]);
    expect(calls[0]?.uri).toBe(
      '/api/v1/rules?network_only=true&not_action_list[]=allow&timestamp_end=42&target_search=login' +
        '&paginate=true&page=0&page_size=50',
    );
    expect(calls[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('gets one from data.rule', async () => {
    const { client } = makeClient();
    answer(nock(BASE).get('/api/v1/rules/r-1'), 200, ok({ rule: rule() }, 'Rule retrieved.'));

    expect(await client.rules.get('r-1')).toEqual(rule());
  });

  it('accepts a rule carrying only its id, and drops unknown fields', async () => {
    const { client } = makeClient();
    answer(nock(BASE).get('/api/v1/rules/r-9'), 200, ok({ rule: { id: 'r-9', brand_new_field: 1 } }));

    expect(await client.rules.get('r-9')).toEqual({ id: 'r-9' });
  });
});

describe('report schedules', () => {
  const input = {
    name: 'weekly-shop',
    hosts: ['shop.example.com'],
    type: 'summary',
    schedule: 'weekly',
    send_to: ['secops@example.com'],
    send_via: 'email',
    timezone: 'Europe/Paris',
  };

  it('lists from data.schedules with its filters', async () => {
    const { client } = makeClient();
    const calls = answer(nock(BASE).get('/api/v1/reports/schedules').query(true), 200, {
      ...ok({ schedules: [schedule()] }, 'List of report schedules'),
      pagination: pagination(0, 1, 1, 1),
    });

    expect(
      await client.schedules.list({ id_list: ['7', '8'], scheduled_by_end: 99, name: 'weekly' }),
    ).toEqual([schedule()]);
    expect(calls[0]?.uri).toBe(
      '/api/v1/reports/schedules?id_list[]=7&id_list[]=8&scheduled_by_end=99&name=weekly' +
        '&paginate=true&page=0&page_size=1000',
    );
  });

  it('lists from data.registries, the name used by the attribute list', async () => {
    const { client } = makeClient();
    answer(nock(BASE).get('/api/v1/reports/schedules').query(true), 200, {
      ...ok({ registries: [schedule()] }),
      pagination: pagination(0, 1, 1, 1),
    });

    expect((await client.schedules.list()).map((s) => s.id)).toEqual(['7']);
  });

  it('normalises the documented alternative types of schedule and send_to', async () => {
    const { client } = makeClient();
    answer(
      nock(BASE).get('/api/v1/reports/schedules/7'),
      200,
      ok({ schedule: schedule({ schedule: 7, send_to: 'a@b.io' }) }),
    );

    const got = await client.schedules.get('7');

    expect(got.schedule).toBe('7');
    expect(got.send_to).toEqual(['a@b.io']);
  });

  it('creates with {attrs} as application/json', async () => {
    const { client } = makeClient();
    const calls = answer(nock(BASE).post('/api/v1/reports/schedules'), 200, ok({ schedule: schedule() }));

    expect((await client.schedules.create(input)).id).toBe('7');
    expect(calls[0]?.headers['content-type']).toBe(JSON_TYPE);
    expect(calls[0]?.body).toEqual({ attrs: input });
  });

  it('updates with PUT /reports/schedules/{id} and {attrs}', async () => {
    const { client } = makeClient();
    const calls = answer(
      nock(BASE).put('/api/v1/reports/schedules/7'),
      200,
      ok({ schedule: schedule({ send_via: 'slack' }) }),
    );

    expect((await client.schedules.update('7', { send_via: 'slack' })).send_via).toBe('slack');
    expect(calls[0]?.headers['content-type']).toBe(JSON_TYPE);
    expect(calls[0]?.body).toEqual({ attrs: { send_via: 'slack' } });
  });

  it('deletes many with DELETE /reports/registries and {schedules_ids}; the answer has no data', async () => {
    const { client } = makeClient();
    const calls = answer(
      nock(BASE).delete('/api/v1/reports/registries'),
      200,
      ok(undefined, 'Schedules succesfully deleted'),
    );

    await client.schedules.delete(['7', '8']);

    expect(calls[0]?.headers['content-type']).toBe(JSON_TYPE);
    expect(calls[0]?.body).toEqual({ schedules_ids: ['7', '8'] });
  });
});
