import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { InvalidResponseError } from '../../src/api/index.js';
import {
  answer,
  applicationRule,
  BASE,
  group,
  makeClient,
  notification,
  ok,
  pagination,
  useNock,
} from './helpers.js';

useNock();

async function groupsListError(body: unknown, headers: Record<string, string> = {}) {
  const { client } = makeClient();
  answer(nock(BASE).get('/api/v1/groups'), 200, body, headers);
  const error = await client.groups.list().catch((e: unknown) => e);
  expect(error).toBeInstanceOf(InvalidResponseError);
  expect(error).toMatchObject({ code: 'API_RESPONSE_INVALID', method: 'GET', path: '/api/v1/groups' });
  return (error as Error).message;
}

describe('malformed envelopes', () => {
  it('rejects a 200 whose body is not JSON', async () => {
    expect(await groupsListError('<html>maintenance</html>', { 'content-type': 'text/html' })).toBe(
      '[GET] /api/v1/groups: invalid response: body is not JSON (text/html)',
    );
  });

  it('rejects an empty 200', async () => {
    expect(await groupsListError('')).toBe('[GET] /api/v1/groups: invalid response: empty body');
  });

  it('rejects a body that is not an object', async () => {
    expect(await groupsListError([1, 2])).toMatch(/invalid response: body: expected object, received array/);
  });

  it('rejects a missing data key', async () => {
    expect(await groupsListError({ status: 'ok', message: 'List of groups' })).toBe(
      '[GET] /api/v1/groups: invalid response: data: expected object, received undefined',
    );
  });

  it('rejects a status other than ok, quoting the message of a 2xx that says "error"', async () => {
    expect(await groupsListError({ status: 'error', message: 'Internal error', data: { groups: [] } })).toBe(
      '[GET] /api/v1/groups: invalid response: a success status with "status": "error": Internal error',
    );
    expect(await groupsListError({ status: 'pending', data: { groups: [] } })).toBe(
      '[GET] /api/v1/groups: invalid response: status: expected "ok"',
    );
  });

  it('names the first wrong field with its path', async () => {
    const message = await groupsListError(ok({ groups: [group(), group({ id: 42 })] }));
    expect(message).toBe(
      '[GET] /api/v1/groups: invalid response: data.groups[1].id: expected string, received number',
    );
  });

  it('names a missing required field', async () => {
    const { name: _n, ...nameless } = group();
    expect(await groupsListError(ok({ groups: [nameless] }))).toMatch(
      /data\.groups\[0\]\.name: expected string, received undefined$/,
    );
  });

  it('lists at most three problems', async () => {
    const message = await groupsListError(ok({ groups: [1, 2, 3, 4, 5] }));
    expect(message).toMatch(/data\.groups\[0\]: expected object.*data\.groups\[2\].*\(and 2 more\)$/);
  });

  it('explains which one-record shape was wrong', async () => {
    const { client } = makeClient();
    answer(nock(BASE).get('/api/v1/groups/42'), 200, ok({ groups: [group(), group()] }));
    answer(nock(BASE).get('/api/v1/groups/42'), 200, ok({ groups: [group({ is_admin: 'no' })] }));
    answer(nock(BASE).get('/api/v1/groups/42'), 200, ok({ users: [group()] }));

    await expect(client.groups.get('42')).rejects.toThrow(
      /data\.groups: Too big: expected array to have <=1 items/,
    );
    await expect(client.groups.get('42')).rejects.toThrow(
      /data\.groups\[0\]\.is_admin: expected boolean, received string/,
    );
    await expect(client.groups.get('42')).rejects.toThrow(
      /data\.group: missing \(neither group nor groups\)/,
    );
  });

  it('requires pagination on paginated listings', async () => {
    const { client } = makeClient();
    answer(nock(BASE).get('/api/v1/application_rules').query(true), 200, ok({ application_rules: [] }));

    await expect(client.applicationRules.list()).rejects.toThrow(
      '[GET] /api/v1/application_rules: invalid response: pagination: expected object, received undefined',
    );
  });

  it('rejects wrong types in the pagination block', async () => {
    const { client } = makeClient();
    answer(nock(BASE).get('/api/v1/rules').query(true), 200, {
      ...ok({ rules: [] }),
      pagination: { ...pagination(0, 0, 0, 0), total_count: '12' },
    });

    await expect(client.rules.list()).rejects.toThrow(
      /pagination\.total_count: expected number, received string/,
    );
  });

  it('rejects a notification with a string port', async () => {
    const { client } = makeClient();
    const bad = notification({ settings: { ...notification().settings, destination_port: '514' } });
    answer(nock(BASE).get('/api/v1/settings/notifications/splunk'), 200, ok({ notification: bad }));

    await expect(client.notifications.get('splunk')).rejects.toThrow(
      /data\.notification\.settings\.destination_port: expected number, received string/,
    );
  });

  it('rejects application rule rows without rq_host', async () => {
    const { client } = makeClient();
    const { rq_host: _h, ...hostless } = applicationRule();
    answer(nock(BASE).get('/api/v1/application_rules').query(true), 200, {
      ...ok({ application_rules: [hostless] }),
      pagination: pagination(0, 1, 1, 1),
    });

    await expect(client.applicationRules.list()).rejects.toThrow(/data\.application_rules\[0\]\.rq_host/);
  });
});

describe('tolerated variations', () => {
  it('ignores the message, whatever it says or if it is missing', async () => {
    const { client } = makeClient();
    answer(nock(BASE).get('/api/v1/groups'), 200, { status: 'ok', data: { groups: [] } });
    answer(nock(BASE).get('/api/v1/groups'), 200, ok({ groups: [] }, 'Something else entirely'));

    expect(await client.groups.list()).toEqual([]);
    expect(await client.groups.list()).toEqual([]);
  });

  it('drops unknown fields of envelopes and records', async () => {
    const { client } = makeClient();
    answer(nock(BASE).get('/api/v1/groups'), 200, {
      ...ok({ groups: [{ ...group(), shiny: true }], extra: 1 }),
      request_id: 'abc',
    });

    const [first] = await client.groups.list();
    expect(first).toEqual(group());
    expect(first).not.toHaveProperty('shiny');
  });

  it('accepts a JSON body whatever the content type says', async () => {
    const { client } = makeClient();
    answer(nock(BASE).get('/api/v1/groups'), 200, JSON.stringify(ok({ groups: [] })), {
      'content-type': 'text/plain',
    });

    expect(await client.groups.list()).toEqual([]);
  });
});
