import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FAULT_KINDS, FaultInjector, WRITE_ONLY_FAULT_KINDS } from '../../src/emulator/faults.js';
import type { FaultKind } from '../../src/emulator/index.js';
import {
  ADMIN_TOKEN,
  type Client,
  MULTIPART,
  makeTempDir,
  ruleInput,
  startTestEmulator,
  type WireApplicationRule,
  type WireGroup,
} from './helpers.js';

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
    expect(await savedGroupNames()).toEqual(['admins']);
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
    expect(await savedGroupNames()).toEqual(['admins', 'applied-500']);
  });

  it('reset_after: the change is applied and persisted, then the connection is reset', async () => {
    const outcome = await withFault('reset_after', (url) =>
      createGroup(url, 'applied-reset').then(
        (response) => `answered ${response.status}`,
        (error: unknown) => `failed: ${error instanceof Error ? error.message : String(error)}`,
      ),
    );
    expect(outcome).toMatch(/^failed/);
    expect(await savedGroupNames()).toEqual(['admins', 'applied-reset']);
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

const GARBLED_KINDS = ['html_after', 'truncated_after', 'status_error_after'] as const;
type GarbledKind = (typeof GARBLED_KINDS)[number];
const READ_KINDS = ['unavailable', 'rate_limited', 'error_after', 'reset_after'];

function adminWrite(url: string, method: string, path: string, contentType: string, body?: unknown) {
  return fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': contentType },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** A 200 the client cannot read as the documented `{status: "ok", ...}` envelope, as `kind` promises. */
async function expectGarbled(kind: GarbledKind, response: Response): Promise<string> {
  const text = await response.text();
  expect(response.status).toBe(200);
  expect(response.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
  if (kind === 'html_after') {
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(text).toBe('<html><body><h1>200 OK</h1><p>Request processed by gateway</p></body></html>');
    expect(parsesAsJson(text)).toBe(false);
  } else if (kind === 'truncated_after') {
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(text.startsWith('{"status":"ok"')).toBe(true);
    expect(parsesAsJson(text)).toBe(false);
  } else {
    expect(response.headers.get('content-type')).toMatch(/^application\/json\b/);
    expect(JSON.parse(text)).toEqual({ status: 'error', message: 'Internal error' });
  }
  return text;
}

async function listRules(api: Client): Promise<WireApplicationRule[]> {
  const reply = await api.get<{ application_rules: WireApplicationRule[] }>(
    '/api/v1/application_rules?paginate=false',
  );
  expect(reply.status).toBe(200);
  expect(reply.body.status).toBe('ok');
  return reply.body.data?.application_rules ?? [];
}

async function listGroups(api: Client): Promise<WireGroup[]> {
  const reply = await api.get<{ groups: WireGroup[] }>('/api/v1/groups');
  expect(reply.status).toBe(200);
  expect(reply.body.message).toBe('List of groups');
  return reply.body.data?.groups ?? [];
}

describe('garbled answers to writes that were carried out', () => {
  it.each(GARBLED_KINDS)(
    '%s: POST application rule is garbled, created, readable by GET, and saved',
    async (kind) => {
      const host = `${kind.replaceAll('_', '-')}.example.com`;
      const { emulator, api } = await startTestEmulator({
        statePath,
        faultRate: 1,
        faultSeed: 7,
        faultKinds: [kind],
      });
      let id: string;
      try {
        const response = await adminWrite(emulator.url, 'POST', '/api/v1/application_rules', MULTIPART, {
          rules: [ruleInput({ rq_host: host })],
        });
        const text = await expectGarbled(kind, response);
        // GETs are never garbled: at rate 1 with only garbled kinds configured, this one answers normally.
        const rules = await listRules(api);
        expect(rules.map((rule) => rule.rq_host)).toEqual([host]);
        id = rules[0]?.id ?? '';
        const one = await api.get<{ rule: WireApplicationRule }>(`/api/v1/application_rules/${id}`);
        expect(one.status).toBe(200);
        expect(one.body.data?.rule.rq_host).toBe(host);
        if (kind === 'truncated_after') {
          const whole = JSON.stringify({ status: 'ok', message: 'Rules created', data: { rule_ids: [id] } });
          expect(text).toBe(whole.slice(0, Math.floor(whole.length / 2)));
        }
      } finally {
        await emulator.close();
      }
      // On disk: a fault-free emulator restarted on the same state file finds it.
      const restarted = await startTestEmulator({ statePath });
      try {
        expect((await listRules(restarted.api)).map((rule) => [rule.id, rule.rq_host])).toEqual([[id, host]]);
      } finally {
        await restarted.emulator.close();
      }
    },
  );

  it.each(GARBLED_KINDS)(
    '%s: group POST, PUT and DELETE are garbled and each is carried out',
    async (kind) => {
      const { emulator, api } = await startTestEmulator({ faultRate: 1, faultSeed: 11, faultKinds: [kind] });
      try {
        const url = emulator.url;
        await expectGarbled(kind, await createGroup(url, 'garbled-group'));
        const [created] = (await listGroups(api)).filter((group) => group.name === 'garbled-group');
        expect(created?.description).toBe('');
        const path = `/api/v1/groups/${created?.id}`;

        const put = await adminWrite(url, 'PUT', path, 'application/json', {
          attrs: { description: 'changed' },
        });
        await expectGarbled(kind, put);
        const after = await api.get<{ groups: WireGroup[] }>(path);
        expect(after.status).toBe(200);
        expect(after.body.data?.groups[0]?.description).toBe('changed');

        await expectGarbled(kind, await adminWrite(url, 'DELETE', path, 'application/json'));
        expect((await listGroups(api)).map((group) => group.name)).not.toContain('garbled-group');
      } finally {
        await emulator.close();
      }
    },
  );

  it('GETs are never garbled, even at rate 1 with every garbled kind configured', async () => {
    const { emulator, api } = await startTestEmulator({
      faultRate: 1,
      faultSeed: 5,
      faultKinds: GARBLED_KINDS,
    });
    try {
      for (let i = 0; i < 20; i += 1) {
        const reply = await api.get('/api/v1/groups');
        expect(reply.status).toBe(200);
        expect(reply.body.message).toBe('List of groups');
        expect(reply.headers.get('content-type')).toBe('application/json; charset=utf-8');
      }
      const rule = await api.get<{ rule: { id: string } }>('/api/v1/rules/1');
      expect(rule.status).toBe(200);
      expect(rule.body.status).toBe('ok');
      // Unknown routes and refused reads keep their real answer too.
      expect((await api.get('/api/v1/nowhere')).status).toBe(404);
      expect((await api.as('wrong-token').get('/api/v1/groups')).status).toBe(403);
    } finally {
      await emulator.close();
    }
  });

  it('with a read kind configured next to them, a GET at rate 1 always gets that kind', async () => {
    const { emulator, api } = await startTestEmulator({
      faultRate: 1,
      faultSeed: 5,
      faultKinds: [...GARBLED_KINDS, 'unavailable'],
    });
    try {
      for (let i = 0; i < 10; i += 1) expect((await api.get('/api/v1/groups')).status).toBe(503);
    } finally {
      await emulator.close();
    }
  });
});

describe('FaultInjector', () => {
  it('picks every applicable kind at rate 1 and none at rate 0', () => {
    const always = new FaultInjector(1, 3);
    const forWrites = new Set(Array.from({ length: 700 }, () => always.next(true)));
    expect([...forWrites].sort()).toEqual([...FAULT_KINDS].sort());
    const forReads = new Set(Array.from({ length: 400 }, () => always.next(false)));
    expect([...forReads].sort()).toEqual([...READ_KINDS].sort());
    const never = new FaultInjector(0, 3);
    const draws = Array.from({ length: 100 }, (_, i) => never.next(i % 2 === 0));
    expect(draws.every((kind) => kind === undefined)).toBe(true);
  });

  it('never returns a write-only kind for a read, over 1000 draws of a mixed sequence', () => {
    const injector = new FaultInjector(0.6, 99);
    let readFaults = 0;
    for (let i = 0; i < 1000; i += 1) {
      const isWrite = i % 3 === 0;
      const kind = injector.next(isWrite);
      if (!isWrite && kind !== undefined) {
        readFaults += 1;
        expect(WRITE_ONLY_FAULT_KINDS.has(kind)).toBe(false);
      }
    }
    expect(readFaults).toBeGreaterThan(300);
  });

  it('with only write-only kinds configured, reads get nothing and writes always get one at rate 1', () => {
    const injector = new FaultInjector(1, 17, GARBLED_KINDS);
    for (let i = 0; i < 1000; i += 1) {
      const isWrite = i % 2 === 1;
      const kind = injector.next(isWrite);
      if (isWrite) expect(GARBLED_KINDS).toContain(kind);
      else expect(kind).toBeUndefined();
    }
  });

  it('is reproducible for a seed and a sequence of requests', () => {
    const pattern = (i: number) => (i * 7) % 5 < 2;
    const draw = (seed: number) => {
      const injector = new FaultInjector(0.5, seed);
      return Array.from({ length: 1000 }, (_, i) => injector.next(pattern(i)) ?? 'none');
    };
    const first = draw(2024);
    expect(draw(2024)).toEqual(first);
    expect(draw(2025)).not.toEqual(first);
    expect(new Set(first).size).toBe(FAULT_KINDS.length + 1);
  });

  it('faults a request with probability = the rate, for reads and for writes', () => {
    const injector = new FaultInjector(0.3, 8);
    const count = { reads: 0, writes: 0 };
    for (let i = 0; i < 4000; i += 1) {
      const isWrite = i % 2 === 0;
      if (injector.next(isWrite) !== undefined) count[isWrite ? 'writes' : 'reads'] += 1;
    }
    // 2000 draws each; 3 standard deviations of a binomial(2000, 0.3) is about 62.
    expect(count.reads / 2000).toBeGreaterThan(0.26);
    expect(count.reads / 2000).toBeLessThan(0.34);
    expect(count.writes / 2000).toBeGreaterThan(0.26);
    expect(count.writes / 2000).toBeLessThan(0.34);
  });
});
