/**
 * Redirects, against real local servers (not nock), so that "nothing reached the other origin" is
 * checked where it matters: on a socket that would have accepted the request.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, type ApplicationRuleInput, RedirectError } from '../../src/api/index.js';
import { group, makeClient, ok, TOKEN } from './helpers.js';

interface Received {
  method: string;
  url: string;
  authorization: string | undefined;
  body: string;
}

interface LocalServer {
  url: string;
  port: number;
  received: Received[];
}

type Handler = (req: IncomingMessage, res: ServerResponse, server: LocalServer) => void;

const servers: Server[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

/** A server on 127.0.0.1 and a free port, recording every request it receives. */
async function serve(handler: Handler): Promise<LocalServer> {
  const local: LocalServer = { url: '', port: 0, received: [] };
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      local.received.push({
        method: req.method ?? '',
        url: req.url ?? '',
        authorization: req.headers.authorization,
        body,
      });
      handler(req, res, local);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  local.port = (server.address() as AddressInfo).port;
  local.url = `http://127.0.0.1:${local.port}`;
  return local;
}

function redirect(res: ServerResponse, status: number, location: string): void {
  res.writeHead(status, { location, 'content-type': 'text/plain' });
  res.end(`moved to ${location}`);
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** Every way an error could end up as text somewhere. */
function renderings(error: unknown): string[] {
  const e = error as Error;
  return [String(e), e.message, JSON.stringify(e), inspect(e, { depth: 10 })];
}

const groupsOk = ok({ groups: [group()] });
const groupAttrs = { name: 'x', permissions: [], user_ids: [] };
const ruleInput: ApplicationRuleInput = {
  actions: [],
  conditions: [],
  description: 'd',
  priority: 'low',
  rq_host: 'h',
  username: 'u',
};

describe('a redirect to another origin', () => {
  it('is not followed for a GET (302): nothing reaches the other origin, and the token is in no message', async () => {
    const other = await serve((_req, res) => json(res, 200, groupsOk));
    // Userinfo and the token in the Location: neither may be printed.
    const location = `http://admin:hunter22@127.0.0.1:${other.port}/api/v1/groups?access_token=${TOKEN}`;
    const api = await serve((_req, res) => redirect(res, 302, location));
    const lines: string[] = [];
    const { client, clock } = makeClient({ baseUrl: api.url, log: (line) => lines.push(line) });

    const error = await client.groups.list().catch((e: unknown) => e);

    expect(error).toBeInstanceOf(RedirectError);
    expect(error).toMatchObject({
      code: 'API_REDIRECT',
      userFault: true,
      status: 302,
      problem: 'other-origin',
      message:
        `[GET] /api/v1/groups: the server redirected to http://127.0.0.1:${other.port}/api/v1/groups?access_token=[REDACTED] ` +
        `(another origin than ${api.url}); wafctl never follows a redirect to another origin, since the request and ` +
        'its token would go there. Check --url / WAF_URL.',
    });
    expect(other.received).toEqual([]);
    // Not an ambiguous answer: not retried, although a GET on a transient error would be.
    expect(api.received).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
    for (const text of [...renderings(error), ...lines]) {
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain('hunter22');
    }
  });

  it('is not followed for a POST (307): neither its body nor its token reach the other origin', async () => {
    const other = await serve((_req, res) => json(res, 200, ok({ rule_ids: ['ar-1'] })));
    const api = await serve((_req, res) => redirect(res, 307, `${other.url}/api/v1/application_rules`));
    const { client } = makeClient({ baseUrl: api.url });

    const error = await client.applicationRules.create([ruleInput]).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(RedirectError);
    expect((error as Error).message).toBe(
      `[POST] /api/v1/application_rules: the server redirected to ${other.url}/api/v1/application_rules ` +
        `(another origin than ${api.url}); wafctl never follows a redirect to another origin, since the request ` +
        'and its token would go there. Check --url / WAF_URL.',
    );
    expect(other.received).toEqual([]);
    expect(api.received).toMatchObject([{ method: 'POST', authorization: `Bearer ${TOKEN}` }]);
    for (const text of renderings(error)) expect(text).not.toContain(TOKEN);
  });

  it.each([
    ['another scheme', (port: number) => `https://127.0.0.1:${port}/api/v1/groups`],
    ['another host name for the same address', (port: number) => `http://localhost:${port}/api/v1/groups`],
    ['another port', (port: number) => `http://127.0.0.1:${port === 1 ? 2 : 1}/api/v1/groups`],
  ])('is refused when only %s differs', async (_what, locationFor) => {
    const api = await serve((_req, res, self) => redirect(res, 301, locationFor(self.port)));
    const { client } = makeClient({ baseUrl: api.url });

    await expect(client.groups.list()).rejects.toMatchObject({
      code: 'API_REDIRECT',
      problem: 'other-origin',
    });
    expect(api.received).toHaveLength(1);
  });
});

describe('a redirect to the same origin', () => {
  it('is followed for a GET (302, relative Location), with the same headers, and its data returned', async () => {
    const api = await serve((req, res) => {
      if (req.url === '/waf/api/v1/groups') redirect(res, 302, '/v2/api/v1/groups');
      else if (req.url === '/v2/api/v1/groups') json(res, 200, groupsOk);
      else json(res, 404, { status: 'error', message: 'no' });
    });
    const lines: string[] = [];
    // A path prefix in the base URL: the followed request goes to the Location, not under the prefix.
    const { client } = makeClient({ baseUrl: `${api.url}/waf`, log: (line) => lines.push(line) });

    const groups = await client.groups.list();

    expect(groups.map((g) => g.name)).toEqual(['soc-analysts']);
    expect(api.received).toEqual([
      { method: 'GET', url: '/waf/api/v1/groups', authorization: `Bearer ${TOKEN}`, body: '' },
      { method: 'GET', url: '/v2/api/v1/groups', authorization: `Bearer ${TOKEN}`, body: '' },
    ]);
    // The followed request is logged by path, like the others: no host.
    expect(lines).toEqual([
      '--> GET /api/v1/groups',
      expect.stringMatching(/^<-- 302 GET \/api\/v1\/groups \(\d+ ms\)$/),
      '--> GET /v2/api/v1/groups',
      expect.stringMatching(/^<-- 200 GET \/v2\/api\/v1\/groups \(\d+ ms\)$/),
    ]);
  });

  it('is followed to an absolute Location with its query (308)', async () => {
    const api = await serve((req, res, self) => {
      if (req.url?.startsWith('/api/')) redirect(res, 308, `${self.url}/v2${req.url}`);
      else json(res, 200, groupsOk);
    });
    const { client } = makeClient({ baseUrl: api.url });

    await expect(client.groups.list()).resolves.toHaveLength(1);
    expect(api.received.map((r) => r.url)).toEqual(['/api/v1/groups', '/v2/api/v1/groups']);
  });

  it('is refused for a POST (307): the redirect target receives no request', async () => {
    const api = await serve((req, res) => {
      if (req.url === '/api/v1/groups') redirect(res, 307, '/v2/api/v1/groups');
      else json(res, 200, ok({ group: group() }));
    });
    const { client } = makeClient({ baseUrl: api.url });

    const error = await client.groups.create(groupAttrs).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(RedirectError);
    expect(error).toMatchObject({
      code: 'API_REDIRECT',
      problem: 'write',
      userFault: true,
      from: `${api.url}/api/v1/groups`,
      to: `${api.url}/v2/api/v1/groups`,
      message:
        `[POST] /api/v1/groups: the server redirected (307) from ${api.url}/api/v1/groups to ${api.url}/v2/api/v1/groups; ` +
        'wafctl does not follow redirects of writes, and the write was not carried out at the redirecting URL. ' +
        'Check --url / WAF_URL.',
    });
    expect(api.received.map((r) => `${r.method} ${r.url}`)).toEqual(['POST /api/v1/groups']);
  });

  it('is refused for a PUT or DELETE too, and is not retried', async () => {
    const api = await serve((req, res) => redirect(res, 301, `/elsewhere${req.url}`));
    const { client, clock } = makeClient({ baseUrl: api.url });

    await expect(client.groups.update('42', groupAttrs)).rejects.toMatchObject({ problem: 'write' });
    await expect(client.groups.delete('42')).rejects.toMatchObject({ problem: 'write' });
    expect(api.received.map((r) => `${r.method} ${r.url}`)).toEqual([
      'PUT /api/v1/groups/42',
      'DELETE /api/v1/groups/42',
    ]);
    expect(clock.sleeps).toEqual([]);
  });

  it('says that a 303 answering a write may mean the write was carried out', async () => {
    const api = await serve((_req, res) => redirect(res, 303, '/api/v1/groups/42'));
    const { client } = makeClient({ baseUrl: api.url });

    await expect(client.groups.update('42', groupAttrs)).rejects.toThrow(
      /redirected \(303\) .*A 303 may mean the write was carried out before the redirect: run plan/,
    );
    expect(api.received).toHaveLength(1);
  });

  it('stops a GET redirect loop after 5 hops with "too many redirects"', async () => {
    const api = await serve((req, res) => redirect(res, 302, req.url === '/a' ? '/api/v1/groups' : '/a'));
    const { client, clock } = makeClient({ baseUrl: api.url });

    const error = await client.groups.list().catch((e: unknown) => e);

    expect(error).toBeInstanceOf(RedirectError);
    expect(error).toMatchObject({ code: 'API_REDIRECT', problem: 'too-many' });
    expect((error as Error).message).toBe(
      `[GET] /api/v1/groups: too many redirects (more than 5), the last from ${api.url}/a to ${api.url}/api/v1/groups. Check --url / WAF_URL.`,
    );
    // The first request and five followed hops; the sixth redirect is where it stops. No retry.
    expect(api.received).toHaveLength(6);
    expect(clock.sleeps).toEqual([]);
  });
});

describe('other 3xx answers', () => {
  it('reports a Location that is no URL', async () => {
    const api = await serve((_req, res) => redirect(res, 302, 'http://[::1'));
    const { client } = makeClient({ baseUrl: api.url });

    await expect(client.groups.list()).rejects.toMatchObject({
      problem: 'invalid-location',
      message: `[GET] /api/v1/groups: the server redirected (302) from ${api.url}/api/v1/groups to an invalid location "http://[::1". Check --url / WAF_URL.`,
    });
  });

  it('treats a 3xx without a Location as an HTTP error', async () => {
    const api = await serve((_req, res) => json(res, 302, { status: 'error', message: 'Found nowhere' }));
    const { client } = makeClient({ baseUrl: api.url });

    const error = await client.groups.list().catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 302, message: '[GET] /api/v1/groups: 302 Found nowhere' });
    expect(api.received).toHaveLength(1);
  });
});
