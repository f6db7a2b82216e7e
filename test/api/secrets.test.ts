import { Buffer } from 'node:buffer';
import { inspect } from 'node:util';
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { answer, BASE, makeClient, ok, TOKEN, useNock } from './helpers.js';

useNock();

/** Every way an error or a log line could end up as text somewhere. */
function renderings(error: unknown): string[] {
  const e = error as Error;
  const cause = (e as { cause?: unknown }).cause;
  return [String(e), e.message, JSON.stringify(e), inspect(e, { depth: 10 }), String(cause), inspect(cause)];
}

describe('the token never leaks', () => {
  it('not from a server that echoes it in its error message and details', async () => {
    const lines: string[] = [];
    const { client } = makeClient({ log: (l) => lines.push(l) });
    answer(nock(BASE).get('/api/v1/groups'), 403, {
      status: 'error',
      message: `Forbidden: token ${TOKEN} unknown`,
      errors: [`Bearer ${TOKEN}`, encodeURIComponent(TOKEN)],
    });

    const error = await client.groups.list().catch((e: unknown) => e);

    expect((error as Error).message).toBe(
      '[GET] /api/v1/groups: 403 Forbidden: token [REDACTED] unknown (Bearer [REDACTED]; [REDACTED])',
    );
    for (const text of [...renderings(error), ...lines]) expect(text).not.toContain(TOKEN);
  });

  it('not from a network error, a timeout or an invalid response', async () => {
    const lines: string[] = [];
    const { client } = makeClient({
      log: (l) => lines.push(l),
      timeoutSeconds: 0.025,
      retry: { attempts: 1 },
    });
    nock(BASE)
      .get('/api/v1/groups')
      .replyWithError({ code: 'ECONNRESET', message: `reset by ${TOKEN}` });
    nock(BASE)
      .get('/api/v1/settings/notifications')
      .delay(2_000)
      .reply(200, ok({ notifications: [] }));
    answer(nock(BASE).get('/api/v1/rules/r-1'), 200, {
      status: 'ok',
      data: { rule: { id: 1, note: TOKEN } },
    });

    const errors = [
      await client.groups.list().catch((e: unknown) => e),
      await client.notifications.list().catch((e: unknown) => e),
      await client.rules.get('r-1').catch((e: unknown) => e),
    ];

    expect(errors.map((e) => (e as { code?: string }).code)).toEqual([
      'API_NETWORK',
      'API_NETWORK',
      'API_RESPONSE_INVALID',
    ]);
    expect(lines.length).toBeGreaterThan(0);
    for (const text of [...errors.flatMap(renderings), ...lines]) expect(text).not.toContain(TOKEN);
  });

  it('not from a query value that happens to contain it: such a request is never sent', async () => {
    const lines: string[] = [];
    const { client } = makeClient({ log: (l) => lines.push(l) });
    // No interceptor: nock refuses any request that would go out.

    const error = await client.rules.list({ pattern: TOKEN }).catch((e: unknown) => e);

    expect(error).toMatchObject({
      code: 'PLAN_REFUSED',
      message: expect.stringMatching(
        /^\[GET\] \/api\/v1\/rules: refused to send: the request path or query holds a secret/,
      ),
    });
    expect(lines).toEqual([]);
    for (const text of renderings(error)) expect(text).not.toContain(TOKEN);
  });
});

describe('a token with characters JSON escapes', () => {
  it('is redacted from a server message that echoes it JSON-escaped, and from a Basic blob', async () => {
    const token = 'q"uoted\\back/slash-token-42';
    const escaped = JSON.stringify(token).slice(1, -1); // q\"uoted\\back/slash-token-42
    const basic = Buffer.from(`wafctl:${token}`).toString('base64');
    const lines: string[] = [];
    const { client } = makeClient({ token, log: (l) => lines.push(l) });
    const calls = answer(nock(BASE).get('/api/v1/groups'), 401, {
      status: 'error',
      // The server quoted the header it received, JSON in JSON: the message holds the escaped form.
      message: `Unauthorized: {"authorization": "Bearer ${escaped}"}`,
      errors: [`tried Basic ${basic}`],
    });

    const error = await client.groups.list().catch((e: unknown) => e);

    expect(calls[0]?.headers.authorization).toBe(`Bearer ${token}`);
    // "wafctl:" puts a group boundary 2 bytes into the token: 12 characters before it may remain.
    expect((error as Error).message).toMatch(
      /^\[GET\] \/api\/v1\/groups: 401 Unauthorized: \{"authorization": "Bearer \[REDACTED\]"\} \(tried Basic [\w+/]{0,12}\[REDACTED\][\w+/=]{0,4}\)$/,
    );
    for (const text of [...renderings(error), ...lines]) {
      for (const form of [token, escaped, basic]) expect(text).not.toContain(form);
    }
  });
});

describe('a request that would carry a secret is never sent', () => {
  // useNock: any request that went out would fail with nock's "no match", not with this refusal.
  const rule = (description: string) => ({
    actions: [{ firewall_action: 'block', firewall_name: 'waf-eu-1' }],
    conditions: [{ operator: 'match', expressions: [{ expression: '^/a' }], targets: [{ target: 'path' }] }],
    description,
    priority: 'high',
    rq_host: 'shop.example.com',
    username: 'wafctl',
  });

  it.each([
    ['raw', (t: string) => `copied by mistake: ${t}`],
    ['in a Basic blob', (t: string) => `Basic ${Buffer.from(`bot:${t}`).toString('base64')}`],
    ['URL-encoded', (t: string) => encodeURIComponent(`a b ${t}`)],
  ])(
    'a create whose body holds the token (%s): refused, naming method and path, never the value',
    async (_, form) => {
      const { client } = makeClient();

      const error = await client.applicationRules.create([rule(form(TOKEN))]).catch((e: unknown) => e);

      expect(error).toMatchObject({
        code: 'PLAN_REFUSED',
        userFault: true,
        message:
          '[POST] /api/v1/application_rules: refused to send: the request body holds a secret (the API token or a sign-in password); wafctl never sends one to the API',
      });
      for (const text of renderings(error)) expect(text).not.toContain(TOKEN);
    },
  );

  it('an update and a delete too, whatever the family', async () => {
    const { client } = makeClient();

    await expect(client.applicationRules.update('ar-1', { description: TOKEN })).rejects.toThrow(
      /^\[PUT\] \/api\/v1\/application_rules\/ar-1: refused to send: the request body holds a secret/,
    );
    await expect(
      client.notifications.update('splunk', {
        settings: { destination_address: TOKEN, destination_port: 1 },
      }),
    ).rejects.toThrow(/^\[PUT\] \/api\/v1\/settings\/notifications\/splunk: refused to send/);
    await expect(client.applicationRules.delete([TOKEN])).rejects.toMatchObject({ code: 'PLAN_REFUSED' });
  });

  it('a path that holds it is refused without being shown', async () => {
    const { client } = makeClient();

    const error = await client.notifications.get(TOKEN).catch((e: unknown) => e);

    expect(error).toMatchObject({
      code: 'PLAN_REFUSED',
      message: expect.stringMatching(
        /^\[GET\] \/api\/v1\/settings\/notifications\/\[REDACTED\]: refused to send: the request path or query holds a secret/,
      ),
    });
    for (const text of renderings(error)) expect(text).not.toContain(TOKEN);
  });

  it('a body without a secret goes out as before', async () => {
    const { client } = makeClient();
    const calls = answer(nock(BASE).post('/api/v1/application_rules'), 200, ok({ rule_ids: ['ar-9'] }));

    expect(await client.applicationRules.create([rule('Block admin panel')])).toEqual(['ar-9']);
    expect(calls).toHaveLength(1);
  });
});
