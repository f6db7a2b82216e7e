import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { ADMIN_TOKEN, type Client, createRules, ruleInput, startTestEmulator } from './helpers.js';

let emulator: RunningEmulator;
let api: Client;

beforeAll(async () => {
  ({ emulator, api } = await startTestEmulator());
});
afterAll(() => emulator.close());

describe('HTTP surface', () => {
  it('url is http://HOST:PORT without a trailing slash', () => {
    expect(emulator.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('an unknown route is a JSON 404', async () => {
    for (const path of ['/api/v1/nothing', '/api/v2/groups', '/', '/api/v1/groups/1/extra']) {
      const reply = await api.get(path);
      expect(reply.status, path).toBe(404);
      expect(reply.body).toEqual({ status: 'error', message: 'Not found' });
    }
  });

  it('a known path with a wrong method is a JSON 405 with Allow', async () => {
    const reply = await api.request('PATCH', '/api/v1/groups/1', { body: {} });
    expect(reply.status).toBe(405);
    expect(reply.body).toMatchObject({ status: 'error', message: 'Method not allowed' });
    expect(reply.headers.get('allow')?.split(', ').sort()).toEqual(['DELETE', 'GET', 'PUT']);
    expect((await api.request('POST', '/api/v1/rules')).status).toBe(405);
  });

  it('a body over 16 MiB is a JSON 413 and creates nothing', async () => {
    const description = 'x'.repeat(16 * 1024 * 1024);
    // A host of its own: other tests of this file create rules on the default host, in any order.
    const rule = ruleInput({ description, rq_host: 'body-limit.example.com' });
    const reply = await api.post('/api/v1/application_rules', { rules: [rule] });
    expect(reply.status).toBe(413);
    expect(reply.body).toMatchObject({ status: 'error', message: 'Request body too large' });
    const list = await api.get('/api/v1/application_rules?paginate=false&rq_host=body-limit.example.com');
    expect(list.body.pagination?.total_count).toBe(0);
  });

  it.each([
    ['POST /api/v1/groups', 'POST', '/api/v1/groups', 'text/plain'],
    ['POST /api/v1/groups', 'POST', '/api/v1/groups', 'multipart/mixed; boundary=x'],
    ['PUT /api/v1/groups/1', 'PUT', '/api/v1/groups/1', null],
    ['POST /api/v1/application_rules', 'POST', '/api/v1/application_rules', 'application/json'],
    ['PUT /api/v1/application_rules/', 'PUT', '/api/v1/application_rules/', 'application/json'],
    ['DELETE /api/v1/application_rules', 'DELETE', '/api/v1/application_rules', 'text/plain'],
    [
      'POST /api/v1/settings/notifications',
      'POST',
      '/api/v1/settings/notifications',
      'application/x-www-form-urlencoded',
    ],
    ['DELETE /api/v1/reports/registries', 'DELETE', '/api/v1/reports/registries', null],
  ])('%s with the wrong Content-Type is a JSON 415', async (_name, method, path, contentType) => {
    const reply = await api.request(method, path, { rawBody: '{}', contentType });
    expect(reply.status).toBe(415);
    expect(reply.body).toMatchObject({ status: 'error', message: 'Unsupported media type' });
  });

  it('accepts media type parameters (charset, boundary)', async () => {
    const group = await api.post(
      '/api/v1/groups',
      { attrs: { name: 'charset' } },
      { contentType: 'Application/JSON; charset=utf-8' },
    );
    expect(group.status).toBe(200);
    const rules = await api.post(
      '/api/v1/application_rules',
      { rules: [ruleInput()] },
      { contentType: 'multipart/mixed; boundary="abc"' },
    );
    expect(rules.status).toBe(200);
  });

  it('normalises repeated slashes and ignores a trailing slash', async () => {
    const [id = ''] = await createRules(api, [ruleInput({ rq_host: 'slashes.example.com' })]);
    expect((await api.get('//api/v1/application_rules?paginate=false')).status).toBe(200);
    expect((await api.get(`/api//v1///application_rules/${id}`)).status).toBe(200);
    expect((await api.get('/api/v1/groups/')).status).toBe(200);
    const bulk = await api.put('/api/v1/application_rules', { attrs: { priority: 'low' }, rule_ids: [id] });
    expect(bulk.status).toBe(200);
  });

  it('reads query strings on the doubled-slash path', async () => {
    await createRules(api, [ruleInput({ rq_host: 'double.example.com' })]);
    const reply = await api.get<{ application_rules: { rq_host: string }[] }>(
      '//api/v1/application_rules?paginate=false&rq_host=double.example.com',
    );
    expect(reply.body.data?.application_rules.map((r) => r.rq_host)).toEqual(['double.example.com']);
  });

  it('a JSON body that is not an object is a 400 with the endpoint message', async () => {
    const reply = await api.request('POST', '/api/v1/settings/notifications', { rawBody: '"just a string"' });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toBe('Error creating notification');
  });
});

describe('stats', () => {
  it('counts requests by method and route template, 4xx included, and resets', async () => {
    const { emulator: counted, api: countedApi } = await startTestEmulator();
    try {
      const reset = await fetch(`${counted.url}/__emulator/stats/reset`, { method: 'POST' });
      expect(reset.status).toBe(200);
      await countedApi.get('/api/v1/groups');
      await countedApi.get('/api/v1/groups/1');
      await countedApi.get('/api/v1/groups/2');
      await countedApi.put('/api/v1/groups/7', { attrs: {} });
      await countedApi.put('/api/v1/application_rules/', { attrs: {}, rule_ids: [] });
      await countedApi.get('/api/v1/groups', { token: null });
      await countedApi.get('/api/v1/unknown');
      const stats = (await (await fetch(`${counted.url}/__emulator/stats`)).json()) as {
        total: number;
        by_route: Record<string, number>;
      };
      expect(stats).toEqual({
        total: 7,
        by_route: {
          'GET /api/v1/groups': 2,
          'GET /api/v1/groups/{id}': 2,
          'PUT /api/v1/groups/{id}': 1,
          'PUT /api/v1/application_rules/': 1,
          'GET (unknown route)': 1,
        },
      });
      await fetch(`${counted.url}/__emulator/stats/reset`, { method: 'POST' });
      const after = (await (await fetch(`${counted.url}/__emulator/stats`)).json()) as { total: number };
      expect(after).toEqual({ total: 0, by_route: {} });
    } finally {
      await counted.close();
    }
  });

  it('an unknown /__emulator path is a 404 and is not counted', async () => {
    const response = await fetch(`${emulator.url}/__emulator/nothing`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(response.status).toBe(404);
    const stats = (await (await fetch(`${emulator.url}/__emulator/stats`)).json()) as {
      by_route: Record<string, number>;
    };
    expect(Object.keys(stats.by_route).filter((key) => key.includes('__emulator'))).toEqual([]);
  });
});
