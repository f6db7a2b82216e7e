/** Server timeouts: a slow or stalled client cannot hold a socket (shortened here through options). */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningEmulator, SERVER_TIMEOUTS, startEmulator } from '../../src/emulator/index.js';
import { ADMIN_TOKEN } from './helpers.js';

let emulator: RunningEmulator;

beforeAll(async () => {
  emulator = await startEmulator({
    port: 0,
    adminToken: ADMIN_TOKEN,
    headersTimeoutMs: 200,
    requestTimeoutMs: 400,
    keepAliveTimeoutMs: 200,
  });
});
afterAll(() => emulator.close());

/** Sends `text` and then nothing; resolves with what came back and how long the socket stayed open. */
function stall(text: string): Promise<{ received: string; openMs: number }> {
  const { hostname, port } = new URL(emulator.url);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    let received = '';
    const socket = connect(Number(port), hostname, () => socket.write(text));
    socket.setEncoding('utf8').on('data', (chunk: string) => {
      received += chunk;
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ received, openMs: Date.now() - started }));
    // Far beyond the shortened timeouts, far below the defaults: the default would fail here.
    setTimeout(() => {
      socket.destroy();
      reject(new Error(`the socket was still open after 4 s; received: ${JSON.stringify(received)}`));
    }, 4_000);
  });
}

describe('server timeouts', () => {
  it('half a request line, then silence: closed within the headers timeout', async () => {
    const { received, openMs } = await stall('GET /api/v1/gro');
    expect(openMs).toBeLessThan(2_000);
    expect(received).toMatch(/^HTTP\/1\.1 408/);
  });

  it('headers sent but the body stalls: closed within the request timeout', async () => {
    const { openMs } = await stall(
      'POST /api/v1/groups HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\n' +
        `authorization: Bearer ${ADMIN_TOKEN}\r\ncontent-length: 100\r\n\r\n{"attrs":`,
    );
    expect(openMs).toBeLessThan(2_000);
  });

  it('an idle keep-alive connection is closed after the keep-alive timeout', async () => {
    const { received, openMs } = await stall(
      `GET /api/v1/groups HTTP/1.1\r\nHost: x\r\nauthorization: Bearer ${ADMIN_TOKEN}\r\n\r\n`,
    );
    expect(received).toMatch(/^HTTP\/1\.1 200/);
    // node:http keeps an idle socket about a second past keepAliveTimeout.
    expect(openMs).toBeLessThan(3_000);
  });

  it('documented defaults, and nonsense refused', async () => {
    expect(SERVER_TIMEOUTS).toEqual({ headersMs: 20_000, requestMs: 120_000, keepAliveMs: 5_000 });
    await expect(startEmulator({ headersTimeoutMs: 500, requestTimeoutMs: 100 })).rejects.toThrow(
      'headers timeout must not exceed the request timeout',
    );
    await expect(startEmulator({ keepAliveTimeoutMs: 0 })).rejects.toThrow('keep-alive timeout must be');
  });
});
