/**
 * The whole-response deadline (`--timeout`) and network errors that name the host, against real
 * local servers (not nock): a body trickled a byte at a time must not keep the client waiting.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ApiNetworkError } from '../../src/api/index.js';
import { unreachableUrl } from '../helpers/firewall.js';
import { makeClient, TOKEN } from './helpers.js';
import { closeSlowServers, startSlowServer } from './slow-server.js';

afterEach(closeSlowServers);

/** Runs `work`, returning what it rejected with and how long it took. */
async function timed(work: () => Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = performance.now();
  const error = await work().then(
    () => undefined,
    (e: unknown) => e,
  );
  return { error, ms: performance.now() - started };
}

describe('the whole-response deadline', () => {
  it('ends a GET whose body trickles in a byte at a time, and closes the connection', async () => {
    const server = await startSlowServer('trickle');
    const lines: string[] = [];
    const { client, clock } = makeClient({
      baseUrl: server.url,
      timeoutSeconds: 0.3,
      log: (line) => lines.push(line),
    });

    const { error, ms } = await timed(() => client.groups.list());

    expect(error).toBeInstanceOf(ApiNetworkError);
    expect(error).toMatchObject({
      code: 'API_NETWORK',
      timedOut: true,
      message: `[GET] /api/v1/groups: ${server.host} did not answer within 0.3 s`,
    });
    expect(ms).toBeGreaterThanOrEqual(290);
    expect(ms).toBeLessThan(2_000);
    // Not retried: one request, and the client hung up on it.
    expect(server.received).toEqual(['GET /api/v1/groups']);
    expect(clock.sleeps).toEqual([]);
    await server.socketsClosed();
    expect(lines).toEqual([
      '--> GET /api/v1/groups',
      expect.stringMatching(/^<-- ERR timed out reading the body GET \/api\/v1\/groups \(\d+ ms\)$/),
    ]);
  });

  it('ends a request whose headers never come, naming the host and the deadline as given', async () => {
    const server = await startSlowServer('silent');
    const { client } = makeClient({ baseUrl: server.url, timeoutSeconds: 0.25 });

    const { error, ms } = await timed(() => client.rules.get('r-1'));

    expect((error as Error).message).toBe(
      `[GET] /api/v1/rules/r-1: ${server.host} did not answer within 0.25 s`,
    );
    expect(ms).toBeLessThan(2_000);
    await server.socketsClosed();
  });

  it('leaves a timed-out write ambiguous (an ApiNetworkError the applier re-reads), never sent twice', async () => {
    const server = await startSlowServer('trickle');
    const { client } = makeClient({ baseUrl: server.url, timeoutSeconds: 0.2 });

    const put = await timed(() => client.notifications.update('splunk', { enabled: false }));
    const post = await timed(() => client.groups.create({ name: 'x', permissions: [], user_ids: [] }));

    expect(put.error).toBeInstanceOf(ApiNetworkError);
    expect(put.error).toMatchObject({
      timedOut: true,
      retryable: false,
      message: `[PUT] /api/v1/settings/notifications/splunk: ${server.host} did not answer within 0.2 s`,
    });
    expect(post.error).toMatchObject({
      timedOut: true,
      message: `[POST] /api/v1/groups: ${server.host} did not answer within 0.2 s`,
    });
    expect(server.received).toEqual(['PUT /api/v1/settings/notifications/splunk', 'POST /api/v1/groups']);
  });

  it('names the host without userinfo, path prefix or query, and never the token', async () => {
    const server = await startSlowServer('trickle');
    const { client } = makeClient({ baseUrl: `${server.url}/waf-prefix/`, timeoutSeconds: 0.2 });

    const { error } = await timed(() => client.rules.list({ rq_host: 'shop' }));

    const message = (error as Error).message;
    expect(message).toBe(`[GET] /api/v1/rules: ${server.host} did not answer within 0.2 s`);
    expect(message).not.toContain(TOKEN);
  });
});

describe('network errors name the host', () => {
  it('a refused connection: cannot reach HOST:PORT: ECONNREFUSED, not retried', async () => {
    const url = await unreachableUrl();
    const { client, clock } = makeClient({ baseUrl: url });

    const { error } = await timed(() => client.groups.list());

    expect(error).toBeInstanceOf(ApiNetworkError);
    expect((error as Error).message).toBe(
      `[GET] /api/v1/groups: cannot reach ${new URL(url).host}: ECONNREFUSED`,
    );
    expect(clock.sleeps).toEqual([]);
  });

  it('a connection cut in the middle of the body: an API_NETWORK error, not an internal error', async () => {
    const server = await startSlowServer('cut-mid-body');
    const { client } = makeClient({ baseUrl: server.url, retry: { attempts: 2 } });

    const { error } = await timed(() => client.groups.list());

    expect(error).toBeInstanceOf(ApiNetworkError);
    expect((error as Error).message).toMatch(
      new RegExp(`^\\[GET\\] /api/v1/groups: connection to ${server.host} failed: \\S+`),
    );
    // A broken connection is worth another try on a GET.
    expect(server.received).toHaveLength(2);
  });
});

describe("a request its caller cancels (the request's signal)", () => {
  it('ends at once, long before its deadline, is not retried, and closes the connection', async () => {
    const server = await startSlowServer('silent');
    const lines: string[] = [];
    const { client, clock } = makeClient({
      baseUrl: server.url,
      timeoutSeconds: 600,
      log: (l) => lines.push(l),
    });
    const controller = new AbortController();

    const read = timed(() => client.applicationRules.get('7', { signal: controller.signal }));
    await server.requested;
    controller.abort();
    const { error } = await read;

    expect(error).toBeInstanceOf(ApiNetworkError);
    expect(error).toMatchObject({
      cancelled: true,
      timedOut: false,
      retryable: false,
      message: `[GET] /api/v1/application_rules/7: the request to ${server.host} was cancelled before its answer came`,
    });
    expect(server.received).toEqual(['GET /api/v1/application_rules/7']);
    expect(clock.sleeps).toEqual([]);
    await server.socketsClosed();
    expect(lines[1]).toMatch(/^<-- ERR cancelled GET \/api\/v1\/application_rules\/7 \(\d+ ms\)$/);
  });

  it("stops a listing's page whose body is still coming", async () => {
    const server = await startSlowServer('trickle');
    const { client } = makeClient({ baseUrl: server.url, timeoutSeconds: 600 });
    const controller = new AbortController();

    const listing = timed(async () => {
      for await (const _ of client.applicationRules.pages(
        { id_list: ['7'] },
        { signal: controller.signal },
      )) {
        // never reached: the first page never ends
      }
    });
    await server.requested;
    controller.abort();

    expect((await listing).error).toMatchObject({ cancelled: true });
    await server.socketsClosed();
  });
});
