/**
 * The applier against answers that lie: the real emulator behind a loopback proxy that rewrites
 * some answers (a bulk delete or update answered 200 with fewer `rule_ids` than sent, a create
 * answered 413 while the batch is large). What the report says must be what the server holds.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type ApiClient, createApiClient } from '../../../src/api/index.js';
import { applyPlan } from '../../../src/ops/apply/applier.js';
import type { ApplyReport } from '../../../src/ops/apply/model.js';
import { renderApplyReport } from '../../../src/ops/apply/report.js';
import { E2E_TOKEN, startTestFirewall, type TestFirewall } from '../../helpers/firewall.js';
import { type Desired, doubledKeys, planLive, rule } from './helpers.js';

interface Request {
  method: string;
  /** Path and query, as received. */
  url: string;
  body: string;
}

interface Answer {
  status: number;
  body: string;
}

/**
 * What the proxy does with a request: `undefined` forwards it as it is. Otherwise `forward` (the
 * request to send upstream instead, or false to send nothing) and `answer`, which rewrites the
 * upstream answer (or makes one up).
 */
type Lie = (
  request: Request,
) => { forward: Request | false; answer: (upstream: Answer | undefined) => Answer } | undefined;

interface Proxy {
  api: ApiClient;
  /** `METHOD /path` of every request the proxy received. */
  received: string[];
}

const servers: Server[] = [];
const firewalls: TestFirewall[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  await Promise.all(firewalls.splice(0).map((f) => f.close()));
});

async function send(upstream: string, request: Request, authorization: string | undefined): Promise<Answer> {
  const response = await fetch(`${upstream}${request.url}`, {
    method: request.method,
    headers: {
      ...(authorization === undefined ? {} : { authorization }),
      'content-type': 'multipart/mixed',
    },
    ...(request.body === '' ? {} : { body: request.body }),
  });
  return { status: response.status, body: await response.text() };
}

async function lyingProxy(upstream: string, lie: Lie): Promise<Proxy> {
  const received: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', async () => {
      const request = { method: req.method ?? 'GET', url: req.url ?? '/', body };
      received.push(`${request.method} ${request.url}`);
      const rewrite = lie(request);
      const real =
        rewrite === undefined || rewrite.forward !== false
          ? await send(upstream, rewrite?.forward || request, req.headers.authorization)
          : undefined;
      const answer = rewrite === undefined ? (real as Answer) : rewrite.answer(real);
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(answer.body);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { api: createApiClient({ baseUrl: url, token: E2E_TOKEN }), received };
}

const RULES = '/api/v1/application_rules';
const okIds = (ruleIds: string[]): Answer => ({
  status: 200,
  body: JSON.stringify({ status: 'ok', message: 'Rules deleted', data: { rule_ids: ruleIds } }),
});
const applyOptions = { parallelism: 1, batchSize: 100, username: 'test' };

async function firewallWith(desired: Desired): Promise<TestFirewall> {
  const f = await startTestFirewall();
  firewalls.push(f);
  const report = await applyPlan(await planLive(f.api, desired), f.api, applyOptions);
  expect(report.results.every((r) => r.outcome.status === 'done')).toBe(true);
  return f;
}

const outcomes = (report: ApplyReport) =>
  report.results.map((r) => [`${r.operation} ${r.change.key.replace('shop.example.com/', '')}`, r.outcome]);
const liveKeys = async (f: TestFirewall) =>
  (await f.api.applicationRules.list()).map((r) => r.description).sort();

describe('a bulk delete answered 200 with rule_ids: []', () => {
  it('that deleted nothing: the delete failed, the rule stays, and nothing says destroyed', async () => {
    const f = await firewallWith({ application_rule: [rule('a', '^/a'), rule('z', '^/z')] });
    const plan = await planLive(f.api, { application_rule: [rule('a', '^/a')] });
    const proxy = await lyingProxy(f.url, (request) =>
      request.method === 'DELETE' ? { forward: false, answer: () => okIds([]) } : undefined,
    );

    const report = await applyPlan(plan, proxy.api, applyOptions);

    expect(outcomes(report)).toEqual([
      [
        'delete z',
        {
          status: 'failed',
          message: expect.stringMatching(
            /^\[DELETE\] \/api\/v1\/application_rules: the answer confirms 0 of the 1 objects sent \(not confirmed: .+\); the others may not have been written$/,
          ),
          request: { method: 'DELETE', path: '/api/v1/application_rules' },
        },
      ],
    ]);
    const text = renderApplyReport(report);
    expect(text).toMatch(
      /\nApply failed: Resources: 0 added, 0 changed, 0 destroyed \(1 failed, 0 skipped\)\.\n$/,
    );
    expect(text).not.toMatch(/: destroyed/);
    expect(await liveKeys(f)).toEqual(['a', 'z']);
    // Sent, re-read, sent again: a bounded number of times.
    expect(proxy.received.filter((r) => r.startsWith('DELETE'))).toHaveLength(3);
  });

  it('that did delete: done, verified by re-reading, and said so', async () => {
    const f = await firewallWith({
      application_rule: [rule('a', '^/a'), rule('y', '^/y'), rule('z', '^/z')],
    });
    const plan = await planLive(f.api, { application_rule: [rule('a', '^/a')] });
    const proxy = await lyingProxy(f.url, (request) =>
      request.method === 'DELETE' ? { forward: request, answer: () => okIds([]) } : undefined,
    );

    const report = await applyPlan(plan, proxy.api, applyOptions);

    expect(outcomes(report)).toEqual([
      ['delete y', { status: 'done', ambiguous: true }],
      ['delete z', { status: 'done', ambiguous: true }],
    ]);
    expect(renderApplyReport(report)).toContain(
      'application_rule.shop.example.com/y: destroyed (the answer was ambiguous; verified by re-reading)',
    );
    expect(await liveKeys(f)).toEqual(['a']);
    expect(proxy.received.filter((r) => r.startsWith('DELETE'))).toHaveLength(1);
  });
});

describe('a bulk update answered for fewer ids than sent', () => {
  it('counts as done only what the re-read shows updated, and sends the rest again', async () => {
    const f = await firewallWith({ application_rule: [rule('a', '^/a'), rule('b', '^/b')] });
    const desired = { application_rule: [rule('a', '^/a', 'low'), rule('b', '^/b', 'low')] };
    const plan = await planLive(f.api, desired);
    // The proxy passes on the first id only, and the server's (true) answer names that one.
    const proxy = await lyingProxy(f.url, (request) => {
      if (request.method !== 'PUT' || request.url !== `${RULES}/`) return undefined;
      const body = JSON.parse(request.body) as { attrs: unknown; rule_ids: string[] };
      const forward = { ...request, body: JSON.stringify({ ...body, rule_ids: body.rule_ids.slice(0, 1) }) };
      return { forward, answer: (upstream) => upstream as Answer };
    });

    const report = await applyPlan(plan, proxy.api, applyOptions);

    expect(outcomes(report)).toEqual([
      // a was found updated; b was sent again, after an ambiguous answer: both verified.
      ['update a', { status: 'done', ambiguous: true }],
      ['update b', { status: 'done', ambiguous: true }],
    ]);
    expect(proxy.received.filter((r) => r.startsWith('PUT'))).toEqual([
      `PUT ${RULES}/`,
      expect.stringMatching(new RegExp(`^PUT ${RULES}/[^/]+$`)),
    ]);
    expect((await planLive(f.api, desired)).changes).toEqual([]);
  });
});

describe('a bulk create answered 413 Content Too Large', () => {
  it('is halved until the server takes it: every rule created, once', async () => {
    const f = await firewallWith({ application_rule: [] });
    const desired = { application_rule: ['a', 'b', 'c', 'd', 'e'].map((d) => rule(d, `^/${d}`)) };
    const plan = await planLive(f.api, desired);
    const sizes: number[] = [];
    const proxy = await lyingProxy(f.url, (request) => {
      if (request.method !== 'POST') return undefined;
      const { rules } = JSON.parse(request.body) as { rules: unknown[] };
      sizes.push(rules.length);
      if (rules.length <= 2) return undefined;
      const tooLarge = {
        status: 413,
        body: JSON.stringify({ status: 'error', message: 'Payload Too Large' }),
      };
      return { forward: false, answer: () => tooLarge };
    });

    const report = await applyPlan(plan, proxy.api, applyOptions);

    expect(report.results.map((r) => r.outcome.status)).toEqual(['done', 'done', 'done', 'done', 'done']);
    expect(sizes).toEqual([5, 3, 2, 1, 2]);
    expect(await doubledKeys(f.api)).toEqual([]);
    expect((await planLive(f.api, desired)).changes).toEqual([]);
  });
});
