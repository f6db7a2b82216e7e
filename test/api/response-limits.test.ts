/**
 * The cap on a response body, against real local servers: one that streams far more than the cap
 * (and would go on to hundreds of megabytes), a gzip bomb (a small body that inflates past the cap),
 * and bodies just within it. The caps are test-sized (through the client option), so nothing large
 * is ever allocated; each test owns its server.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createApiClient,
  DEFAULT_MAX_RESPONSE_BYTES,
  InvalidResponseError,
  limitsFromEnv,
  ResponseTooLargeError,
} from '../../src/api/index.js';
import { readCapped } from '../../src/api/limits.js';
import { group, makeClient, ok, TOKEN } from './helpers.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

interface Served {
  url: string;
  /** `METHOD /path` of every request. */
  received: string[];
  /** Bytes the server managed to write (before the client hung up). */
  written(): number;
  /** Resolves once the server saw its response end or its connection closed. */
  closed: Promise<void>;
}

type Respond = (res: ServerResponse, count: (bytes: number) => void) => void;

async function serve(respond: Respond): Promise<Served> {
  const received: string[] = [];
  let written = 0;
  let markClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    markClosed = resolve;
  });
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    received.push(`${req.method} ${req.url}`);
    req.resume();
    res.on('close', markClosed);
    req.on('end', () =>
      respond(res, (bytes) => {
        written += bytes;
      }),
    );
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, received, written: () => written, closed };
}

const MiB = 1024 * 1024;

/** Writes `total` bytes of `0` characters in 64 KiB chunks, honouring back-pressure, until done or hung up on. */
function streamZeros(total: number): Respond {
  return (res, count) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(64 * 1024, 0x30);
    let left = total;
    const pump = () => {
      while (left > 0 && !res.destroyed) {
        left -= chunk.length;
        count(chunk.length);
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      if (!res.destroyed) res.end();
    };
    pump();
  };
}

function gzipped(body: Buffer, status = 200): Respond {
  return (res) => {
    res.writeHead(status, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    res.end(gzipSync(body));
  };
}

describe('the response body cap', () => {
  it('stops reading a 300 MB answer at the cap, drops the connection, fails once and does not retry', async () => {
    const server = await serve(streamZeros(300 * MiB));
    const lines: string[] = [];
    const { client, clock } = makeClient({
      baseUrl: server.url,
      maxResponseBytes: MiB,
      log: (line) => lines.push(line),
    });

    const error = await client.groups.list().catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect(error).toMatchObject({
      code: 'API_RESPONSE_INVALID',
      limit: MiB,
      message: `[GET] /api/v1/groups: response too large (more than ${MiB} bytes)`,
    });
    // A GET is retried on a 5xx or a reset: not on this, the same request would get the same answer.
    expect(server.received).toEqual(['GET /api/v1/groups']);
    expect(clock.sleeps).toEqual([]);
    await server.closed;
    expect(server.written()).toBeLessThan(64 * MiB);
    expect(lines.at(-1)).toMatch(
      /^<-- ERR more than 1048576 bytes reading the body GET \/api\/v1\/groups \(\d+ ms\)$/,
    );
  });

  it('counts decoded bytes: a gzip bomb (a few KB inflating to 8 MB) is stopped at a 1 MB cap', async () => {
    const bomb = Buffer.alloc(8 * MiB, 0x20);
    expect(gzipSync(bomb).length).toBeLessThan(64 * 1024);
    const server = await serve(gzipped(bomb));
    const { client } = makeClient({ baseUrl: server.url, maxResponseBytes: MiB });

    await expect(client.groups.list()).rejects.toThrow(
      `[GET] /api/v1/groups: response too large (more than ${MiB} bytes)`,
    );
    expect(server.received).toHaveLength(1);
  });

  it('reads a compressed answer whose decoded size is within the cap', async () => {
    const body = Buffer.from(JSON.stringify(ok({ groups: [group()] })));
    const server = await serve(gzipped(body));
    const { client } = makeClient({ baseUrl: server.url, maxResponseBytes: body.length });

    expect((await client.groups.list()).map((g) => g.name)).toEqual(['soc-analysts']);
  });

  it('caps an error answer too, and never retries it (not even a 503 to a GET)', async () => {
    const server = await serve(gzipped(Buffer.alloc(4 * MiB, 0x20), 503));
    const { client } = makeClient({ baseUrl: server.url, maxResponseBytes: MiB });

    await expect(client.groups.list()).rejects.toBeInstanceOf(ResponseTooLargeError);
    expect(server.received).toHaveLength(1);
  });

  it('makes a too-large answer to a write an unreadable answer (ambiguous: the applier re-reads), sent once', async () => {
    const server = await serve(streamZeros(8 * MiB));
    const { client } = makeClient({ baseUrl: server.url, maxResponseBytes: 64 * 1024 });

    const error = await client.applicationRules.delete(['ar-1', 'ar-2']).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(InvalidResponseError);
    expect((error as Error).message).toBe(
      '[DELETE] /api/v1/application_rules: response too large (more than 65536 bytes)',
    );
    expect(server.received).toEqual(['DELETE /api/v1/application_rules']);
  });

  it('defaults to 256 MiB and refuses a limit that is no positive whole number', () => {
    expect(DEFAULT_MAX_RESPONSE_BYTES).toBe(256 * MiB);
    for (const maxResponseBytes of [0, -1, 1.5, Number.NaN]) {
      expect(() =>
        createApiClient({ baseUrl: 'http://127.0.0.1:9', token: TOKEN, maxResponseBytes }),
      ).toThrow(expect.objectContaining({ code: 'USAGE' }));
    }
  });
});

describe('limits from the environment', () => {
  it('reads WAFCTL_MAX_RESPONSE_BYTES and WAFCTL_MAX_ROWS as positive whole numbers; unset or empty: defaults', () => {
    expect(
      limitsFromEnv({
        WAFCTL_MAX_RESPONSE_BYTES: '1048576',
        WAFCTL_MAX_ROWS: '5000',
        WAFCTL_MAX_LISTING_BYTES: '9',
      }),
    ).toEqual({ maxResponseBytes: 1_048_576, maxRows: 5000, maxListingBytes: 9 });
    expect(limitsFromEnv({ WAFCTL_MAX_ROWS: '' })).toEqual({});
    expect(limitsFromEnv({})).toEqual({});
  });

  it.each(['0', '-1', '1e6', '10MB', ' 5', '1.5', '0x10', '99999999999999999999'])(
    'refuses %j, naming the variable',
    (value) => {
      for (const name of ['WAFCTL_MAX_RESPONSE_BYTES', 'WAFCTL_MAX_ROWS', 'WAFCTL_MAX_LISTING_BYTES']) {
        expect(() => limitsFromEnv({ [name]: value })).toThrow(
          expect.objectContaining({
            code: 'USAGE',
            message: `${name} must be a positive whole number (digits only), got ${JSON.stringify(value)}`,
          }),
        );
      }
    },
  );
});

describe('readCapped and the deadline', () => {
  it('ends a pending read when the deadline aborts, even if the body stream never errors', async () => {
    // A body that never sends another byte and ignores the fetch's abort (nodejs/undici#4089).
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"status":"ok"'));
      },
    });
    const deadline = new AbortController();
    const reading = readCapped(
      new Response(body),
      1024,
      { method: 'GET', path: '/api/v1/groups' },
      deadline.signal,
    );
    const reason = new DOMException('The operation timed out.', 'TimeoutError');
    setImmediate(() => deadline.abort(reason));
    await expect(reading).rejects.toBe(reason);
  });
});
