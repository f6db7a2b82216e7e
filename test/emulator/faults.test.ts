import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FAULT_KINDS, FaultInjector } from '../../src/emulator/faults.js';
import type { FaultKind } from '../../src/emulator/index.js';
import { ADMIN_TOKEN, makeTempDir, startTestEmulator, type WireGroup } from './helpers.js';

let cleanup: () => Promise<void>;
let statePath: string;

beforeEach(async () => {
  const temp = await makeTempDir();
  cleanup = temp.cleanup;
  statePath = join(temp.dir, 'state.json');
});
afterEach(() => cleanup());

/** Every request gets the one fault kind, so each test is deterministic. */
async function withFault<T>(kind: FaultKind, run: (url: string) => Promise<T>): Promise<T> {
  const { emulator } = await startTestEmulator({ statePath, faultRate: 1, faultSeed: 7, faultKinds: [kind] });
  try {
    return await run(emulator.url);
  } finally {
    await emulator.close();
  }
}

function createGroup(url: string, name: string): Promise<Response> {
  return fetch(`${url}/api/v1/groups`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ attrs: { name } }),
  });
}

/** The groups a fault-free emulator finds in the state file afterwards. */
async function savedGroupNames(): Promise<string[]> {
  const { emulator, api } = await startTestEmulator({ statePath });
  try {
    return (
      (await api.get<{ groups: WireGroup[] }>('/api/v1/groups')).body.data?.groups.map((g) => g.name) ?? []
    );
  } finally {
    await emulator.close();
  }
}

const stateExists = () =>
  access(statePath).then(
    () => true,
    () => false,
  );

describe('fault injection', () => {
  it('unavailable: 503 before any work', async () => {
    const response = await withFault('unavailable', (url) => createGroup(url, 'never'));
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ status: 'error' });
    expect(await stateExists()).toBe(false);
    expect(await savedGroupNames()).toEqual([]);
  });

  it('rate_limited: 429 with Retry-After: 1 before any work', async () => {
    const response = await withFault('rate_limited', (url) => createGroup(url, 'never'));
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(await stateExists()).toBe(false);
  });

  it('error_after: the change is applied and persisted, then the answer is a 500', async () => {
    const response = await withFault('error_after', (url) => createGroup(url, 'applied-500'));
    expect(response.status).toBe(500);
    expect(await response.json()).toMatchObject({ status: 'error' });
    expect(await savedGroupNames()).toEqual(['applied-500']);
  });

  it('reset_after: the change is applied and persisted, then the connection is reset', async () => {
    const outcome = await withFault('reset_after', (url) =>
      createGroup(url, 'applied-reset').then(
        (response) => `answered ${response.status}`,
        (error: unknown) => `failed: ${error instanceof Error ? error.message : String(error)}`,
      ),
    );
    expect(outcome).toMatch(/^failed/);
    expect(await savedGroupNames()).toEqual(['applied-reset']);
  });

  it('/__emulator/* is never faulted', async () => {
    const status = await withFault(
      'unavailable',
      async (url) => (await fetch(`${url}/__emulator/stats`)).status,
    );
    expect(status).toBe(200);
  });

  it('the same fault seed gives the same faults for the same requests', async () => {
    async function run(): Promise<string[]> {
      const { emulator } = await startTestEmulator({ faultRate: 0.5, faultSeed: 42 });
      try {
        const outcomes: string[] = [];
        for (let i = 0; i < 30; i += 1) {
          const outcome = await fetch(`${emulator.url}/api/v1/groups`, {
            headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
          }).then(
            (response) => String(response.status),
            () => 'reset',
          );
          outcomes.push(outcome);
        }
        return outcomes;
      } finally {
        await emulator.close();
      }
    }
    const first = await run();
    expect(await run()).toEqual(first);
    expect(first).toContain('200');
    expect(first.some((outcome) => outcome !== '200')).toBe(true);
  });

  it('latency delays but does not change the answer', async () => {
    const { emulator, api } = await startTestEmulator({ latencyMs: 20 });
    try {
      expect((await api.get('/api/v1/groups')).body.message).toBe('List of groups');
    } finally {
      await emulator.close();
    }
  });
});

describe('FaultInjector', () => {
  it('picks every kind at rate 1 and none at rate 0', () => {
    const always = new FaultInjector(1, 3);
    const seen = new Set(Array.from({ length: 400 }, () => always.next()));
    expect([...seen].sort()).toEqual([...FAULT_KINDS].sort());
    const never = new FaultInjector(0, 3);
    expect(Array.from({ length: 100 }, () => never.next()).every((kind) => kind === undefined)).toBe(true);
  });
});
