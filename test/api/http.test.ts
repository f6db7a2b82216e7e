import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { ApiError, ApiNetworkError, createApiClient } from '../../src/api/index.js';
import { answer, BASE, failure, group, makeClient, notification, ok, TOKEN, useNock } from './helpers.js';

useNock();

const groupsOk = ok({ groups: [group()] });

describe('base URL', () => {
  it.each([
    ['http://waf.test', '/api/v1/groups'],
    ['http://waf.test/', '/api/v1/groups'],
    ['http://waf.test/waf', '/waf/api/v1/groups'],
    ['http://waf.test/waf/', '/waf/api/v1/groups'],
  ])('%s sends to %s', async (baseUrl, path) => {
    const { client } = makeClient({ baseUrl });
    const calls = answer(nock(BASE).get(path), 200, groupsOk);

    await client.groups.list();

    expect(calls[0]?.uri).toBe(path);
  });

  it('keeps the documented trailing slash under a path prefix', async () => {
    const { client } = makeClient({ baseUrl: 'http://waf.test/waf/' });
    answer(nock(BASE).put('/waf/api/v1/application_rules/'), 200, ok({ rule_ids: ['a'] }));

    expect(await client.applicationRules.updateMany(['a'], { priority: 'low' })).toEqual(['a']);
  });

  it('names the API path, not the prefix or the host, in errors', async () => {
    const { client } = makeClient({ baseUrl: 'http://waf.test/waf' });
    answer(nock(BASE).get('/waf/api/v1/groups'), 403, failure('Forbidden'));

    await expect(client.groups.list()).rejects.toThrow(/^\[GET\] \/api\/v1\/groups: 403 Forbidden$/);
  });

  it.each(['ftp://waf.test', 'not a url'])('refuses %j', (baseUrl) => {
    expect(() => createApiClient({ baseUrl, token: TOKEN })).toThrow(
      expect.objectContaining({ code: 'CONNECTION' }),
    );
  });

  it('refuses a base URL with user:password@, without showing them', () => {
    const error = (() => {
      try {
        createApiClient({ baseUrl: 'http://someone:pass-w0rd-1@waf.test:8443/waf', token: TOKEN });
      } catch (e) {
        return e as Error;
      }
    })();
    expect(error).toMatchObject({ code: 'CONNECTION' });
    expect(error?.message).toContain('waf.test:8443');
    expect(error?.message).not.toMatch(/someone|pass-w0rd-1/);
  });

  it.each([
    ['http://waf.test/?x=1', 'http://waf.test/'],
    ['http://waf.test/waf?', 'http://waf.test/waf'],
    ['http://waf.test/waf#top', 'http://waf.test/waf'],
    ['http://waf.test/#', 'http://waf.test/'],
  ])('refuses %j: paths would land in its query or fragment', (baseUrl, shown) => {
    expect(() => createApiClient({ baseUrl, token: TOKEN })).toThrow(
      expect.objectContaining({
        code: 'CONNECTION',
        userFault: true,
        message: `the API URL must not have a query (?...) or a fragment (#...), since paths are appended to it: use ${shown}`,
      }),
    );
  });

  it('does not show a query that may hold a secret', () => {
    expect(() => createApiClient({ baseUrl: `http://waf.test/?token=${TOKEN}`, token: TOKEN })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining(TOKEN) }),
    );
  });

  it.each([
    ['http://waf.test/api/v1', 'http://waf.test'],
    ['http://waf.test/api/v1/', 'http://waf.test'],
    ['https://waf.test:8443/waf/API/v1', 'https://waf.test:8443/waf'],
  ])('refuses %j: the URL should not end in /api/v1', (baseUrl, root) => {
    expect(() => createApiClient({ baseUrl, token: TOKEN })).toThrow(
      expect.objectContaining({
        code: 'CONNECTION',
        message: `the API URL should not end in /api/v1 (wafctl appends /api/v1/... itself): use ${root}`,
      }),
    );
  });

  it('refuses an empty token', () => {
    expect(() => createApiClient({ baseUrl: BASE, token: '' })).toThrow(/no API token/);
  });
});

describe('HTTP errors', () => {
  it('reads a 403 like ofetch: [GET] /api/v1/groups: 403 Forbidden', async () => {
    const { client } = makeClient();
    answer(nock(BASE).get('/api/v1/groups'), 403, failure('Forbidden'));

    const error = await client.groups.list().catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      code: 'API_ERROR',
      method: 'GET',
      path: '/api/v1/groups',
      status: 403,
      serverMessage: 'Forbidden',
      message: '[GET] /api/v1/groups: 403 Forbidden',
    });
  });

  it('surfaces the server message of a 400, and its error details when given', async () => {
    const { client } = makeClient();
    answer(nock(BASE).put('/api/v1/groups/42'), 400, failure('Error updating the group.'));
    answer(nock(BASE).post('/api/v1/groups'), 400, {
      ...failure('Error creating new group'),
      errors: ['attrs.user_ids[0]: unknown user u-9'],
    });
    const attrs = { name: 'x', permissions: [], user_ids: ['u-9'] };

    await expect(client.groups.update('42', attrs)).rejects.toMatchObject({
      status: 400,
      serverMessage: 'Error updating the group.',
      message: '[PUT] /api/v1/groups/42: 400 Error updating the group.',
      userFault: true,
    });
    await expect(client.groups.create(attrs)).rejects.toMatchObject({
      message: '[POST] /api/v1/groups: 400 Error creating new group (attrs.user_ids[0]: unknown user u-9)',
      details: ['attrs.user_ids[0]: unknown user u-9'],
    });
  });

  it('shows the first five error details of a refusal that lists many, and how many more there are', async () => {
    const { client } = makeClient();
    const errors = Array.from({ length: 7 }, (_, i) => `rules.${i}.priority: required`);
    answer(nock(BASE).post('/api/v1/groups'), 400, { ...failure('Error creating new group'), errors });
    await expect(client.groups.create({ name: 'x', permissions: [], user_ids: [] })).rejects.toMatchObject({
      message:
        '[POST] /api/v1/groups: 400 Error creating new group (rules.0.priority: required; rules.1.priority: required; rules.2.priority: required; rules.3.priority: required; rules.4.priority: required; and 2 more)',
      details: errors,
    });
  });

  it('escapes control characters in the server message and details: they cannot forge a line', async () => {
    const { client } = makeClient();
    answer(nock(BASE).get('/api/v1/groups'), 400, {
      status: 'error',
      message: 'Bad request\nError: forged line\u001b[31m',
      errors: ['a\r\nb', 'bidi \u202e reversed'],
    });

    const error = (await client.groups.list().catch((e: unknown) => e)) as Error;

    expect(error.message).toBe(
      '[GET] /api/v1/groups: 400 Bad request\\nError: forged line\\u001b[31m (a\\r\\nb; bidi \\u202e reversed)',
    );
    for (const raw of ['\n', '\r', '\u001b', '\u202e']) expect(error.message).not.toContain(raw);
    // The fields keep the server's text as it is, for code that matches on it.
    expect(error).toMatchObject({ serverMessage: 'Bad request\nError: forged line\u001b[31m' });
  });

  it('handles a non-JSON error body with the standard reason phrase', async () => {
    const { client } = makeClient({ retry: { attempts: 1 } });
    nock(BASE).get('/api/v1/groups').reply(502, '<html>Bad Gateway</html>', { 'content-type': 'text/html' });

    await expect(client.groups.list()).rejects.toMatchObject({
      status: 502,
      serverMessage: undefined,
      message: '[GET] /api/v1/groups: 502 Bad Gateway',
    });
  });

  it('does not retry a PUT or DELETE on a 500, which may follow an applied change', async () => {
    const { client, clock } = makeClient();
    answer(nock(BASE).delete('/api/v1/groups/42'), 500, failure('boom'));

    await expect(client.groups.delete('42')).rejects.toMatchObject({ status: 500 });
    expect(clock.sleeps).toEqual([]);
  });

  it('retries a GET on a 500: reading again changes nothing', async () => {
    const { client, clock } = makeClient();
    answer(nock(BASE).get('/api/v1/groups'), 500, failure('boom'));
    answer(nock(BASE).get('/api/v1/groups'), 200, groupsOk);

    await expect(client.groups.list()).resolves.toHaveLength(1);
    expect(clock.sleeps).toHaveLength(1);
  });
});

describe('retries', () => {
  it('honours Retry-After in seconds on a 429, then succeeds', async () => {
    const { client, clock } = makeClient();
    answer(nock(BASE).get('/api/v1/groups'), 429, failure('Too many'), { 'retry-after': '3' });
    answer(nock(BASE).get('/api/v1/groups'), 200, groupsOk);

    expect(await client.groups.list()).toHaveLength(1);
    expect(clock.sleeps).toEqual([3000]);
  });

  it('honours Retry-After as an HTTP date', async () => {
    const { client, clock } = makeClient();
    const at = new Date(clock.now() + 7_000).toUTCString();
    answer(nock(BASE).put('/api/v1/settings/notifications/splunk'), 503, 'unavailable', {
      'retry-after': at,
    });
    answer(
      nock(BASE).put('/api/v1/settings/notifications/splunk'),
      200,
      ok({ notification: notification() }),
    );

    await client.notifications.update('splunk', { enabled: true });
    // HTTP dates have a one-second resolution.
    expect(clock.sleeps).toHaveLength(1);
    expect(clock.sleeps[0]).toBeGreaterThan(6_000);
    expect(clock.sleeps[0]).toBeLessThanOrEqual(7_000);
  });

  it('backs off exponentially with jitter on 502/503/504 and gives up when the budget is spent', async () => {
    const { client, clock } = makeClient({ retry: { attempts: 10, baseDelayMs: 300, budgetMs: 1_000 } });
    answer(nock(BASE).get('/api/v1/groups').times(2), 502, 'bad gateway');
    answer(nock(BASE).get('/api/v1/groups'), 504, 'gateway timeout');
    const error = client.groups.list().catch((e: unknown) => e);

    // random() is 0.5: half of each doubled backoff is fixed, a quarter more is the jitter.
    await expect(error).resolves.toMatchObject({
      status: 504,
      message: '[GET] /api/v1/groups: 504 Gateway Timeout',
    });
    expect(clock.sleeps).toEqual([225, 450]); // the next (900 ms) would pass the 1 s budget
  });

  it('stops after the configured number of attempts with the last error', async () => {
    const { client, clock } = makeClient({ retry: { attempts: 3, baseDelayMs: 10 } });
    answer(nock(BASE).get('/api/v1/groups').times(3), 503, failure('Service Unavailable'));

    await expect(client.groups.list()).rejects.toMatchObject({ status: 503 });
    expect(clock.sleeps).toHaveLength(2);
  });

  it('gives up at once when Retry-After lies beyond the budget', async () => {
    const { client, clock } = makeClient({ retry: { budgetMs: 5_000 } });
    answer(nock(BASE).get('/api/v1/groups'), 429, failure('slow down'), { 'retry-after': '60' });

    await expect(client.groups.list()).rejects.toMatchObject({ status: 429, serverMessage: 'slow down' });
    expect(clock.sleeps).toEqual([]);
  });

  it("a cancelled request's wait for a retry ends at once, and nothing more is sent", async () => {
    const controller = new AbortController();
    const sleeps: number[] = [];
    // A retry's wait that would never end by itself: the signal ends it.
    const never = (ms: number) => {
      sleeps.push(ms);
      controller.abort();
      return new Promise<void>(() => {});
    };
    const { client } = makeClient({ clock: { now: () => 0, random: () => 0.5, sleep: never } });
    answer(nock(BASE).get('/api/v1/application_rules/7'), 503, failure('busy'), { 'retry-after': '30' });

    await expect(client.applicationRules.get('7', { signal: controller.signal })).rejects.toMatchObject({
      code: 'API_NETWORK',
      cancelled: true,
      retryable: false,
    });
    expect(sleeps).toEqual([30_000]);
  });

  it('retries a GET after a connection reset', async () => {
    const { client, clock } = makeClient();
    nock(BASE).get('/api/v1/groups').replyWithError({ code: 'ECONNRESET', message: 'socket hang up' });
    answer(nock(BASE).get('/api/v1/groups'), 200, groupsOk);

    expect(await client.groups.list()).toHaveLength(1);
    expect(clock.sleeps).toHaveLength(1);
  });

  it('never retries a POST, not even after a connection reset', async () => {
    const { client, clock } = makeClient();
    nock(BASE).post('/api/v1/groups').replyWithError({ code: 'ECONNRESET', message: 'socket hang up' });

    const error = await client.groups
      .create({ name: 'x', permissions: [], user_ids: [] })
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ApiNetworkError);
    expect(error).toMatchObject({
      code: 'API_NETWORK',
      message: '[POST] /api/v1/groups: connection to waf.test failed: ECONNRESET (socket hang up)',
    });
    expect(clock.sleeps).toEqual([]);
  });

  it('never retries a POST on 503 either', async () => {
    const { client } = makeClient();
    answer(nock(BASE).post('/api/v1/application_rules'), 503, failure('Service Unavailable'));

    await expect(
      client.applicationRules.create([
        { actions: [], conditions: [], description: 'd', priority: 'low', rq_host: 'h', username: 'u' },
      ]),
    ).rejects.toMatchObject({ status: 503 });
  });

  it('does not retry a refused connection', async () => {
    const { client, clock } = makeClient();
    nock(BASE)
      .get('/api/v1/groups')
      .replyWithError({ code: 'ECONNREFUSED', message: 'connect ECONNREFUSED' });

    await expect(client.groups.list()).rejects.toThrow(
      '[GET] /api/v1/groups: cannot reach waf.test: ECONNREFUSED',
    );
    expect(clock.sleeps).toEqual([]);
  });
});

describe('timeout', () => {
  it('surfaces as API_NETWORK naming method, path and host', async () => {
    const { client } = makeClient({ timeoutSeconds: 0.025 });
    nock(BASE).get('/api/v1/groups').delay(2_000).reply(200, groupsOk);

    const error = await client.groups.list().catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ApiNetworkError);
    expect(error).toMatchObject({
      code: 'API_NETWORK',
      timedOut: true,
      retryable: false,
      message: '[GET] /api/v1/groups: waf.test did not answer within 0.025 s',
    });
  });

  it('is not retried, not even on idempotent methods: it is how long the user agreed to wait', async () => {
    const { client, clock } = makeClient({ timeoutSeconds: 0.025 });
    nock(BASE).delete('/api/v1/settings/notifications/splunk').delay(2_000).reply(200, {});

    await expect(client.notifications.delete('splunk')).rejects.toThrow(
      '[DELETE] /api/v1/settings/notifications/splunk: waf.test did not answer within 0.025 s',
    );
    expect(clock.sleeps).toEqual([]);
  });

  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY, 3_000_000])(
    'refuses %s seconds',
    (timeoutSeconds) => {
      expect(() => createApiClient({ baseUrl: BASE, token: TOKEN, timeoutSeconds })).toThrow(
        expect.objectContaining({ code: 'USAGE' }),
      );
    },
  );
});

describe('debug log', () => {
  it('writes one line per request and per response, without headers', async () => {
    const lines: string[] = [];
    const { client } = makeClient({ log: (line) => lines.push(line), retry: { attempts: 2 } });
    answer(nock(BASE).get('/api/v1/rules').query(true), 503, failure('busy'));
    answer(nock(BASE).get('/api/v1/rules').query(true), 200, {
      ...ok({ rules: [] }),
      pagination: { first: 0, last: 0, page: 0, total_count: 0, total_pages: 0 },
    });

    await client.rules.list({ rq_host: 'shop' });

    const path = '/api/v1/rules?rq_host=shop&paginate=true&page=0&page_size=1000';
    expect(lines).toEqual([
      `--> GET ${path}`,
      expect.stringMatching(new RegExp(`^<-- 503 GET ${escapeRegExp(path)} \\(\\d+ ms\\)$`)),
      expect.stringMatching(/^retry 1 in \d+ ms after: \[GET\] \/api\/v1\/rules: 503 busy$/),
      `--> GET ${path}`,
      expect.stringMatching(new RegExp(`^<-- 200 GET ${escapeRegExp(path)} \\(\\d+ ms\\)$`)),
    ]);
    expect(lines.join('\n')).not.toMatch(/authorization|bearer/i);
  });

  it('logs a failed connection', async () => {
    const lines: string[] = [];
    const { client } = makeClient({ log: (line) => lines.push(line) });
    nock(BASE).post('/api/v1/groups').replyWithError({ code: 'ECONNRESET' });

    await expect(client.groups.create({ name: 'x', permissions: [], user_ids: [] })).rejects.toThrow();
    expect(lines).toEqual([
      '--> POST /api/v1/groups',
      expect.stringMatching(/^<-- ERR ECONNRESET POST \/api\/v1\/groups/),
    ]);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
