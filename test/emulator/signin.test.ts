/** The emulator's `POST /api/v1/signin`: seeded passwords, fresh tokens, refusals, and secrecy. */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redact } from '../../src/core/secrets.js';
import { loadSeedFile, type RunningEmulator } from '../../src/emulator/index.js';
import { type Client, makeTempDir, startTestEmulator, type WireGroup } from './helpers.js';

const PASSWORDS = { carol: 'carol-pass-0001', dan: 'dan-pass-0002' } as const;
const SEED = {
  users: [
    { id: 'u-1', username: 'carol', password: PASSWORDS.carol },
    { id: 'u-2', username: 'dan', password: PASSWORDS.dan, token: 'dan-static-token' },
    { id: 'u-3', username: 'erin', token: 'erin-static-token' },
  ],
};
const REFUSED = { status: 'error', message: 'Invalid username or password' };

let emulator: RunningEmulator;
let admin: Client;

beforeAll(async () => {
  ({ emulator, api: admin } = await startTestEmulator({ seed: SEED }));
  await admin.post('/api/v1/groups', { attrs: { name: 'superusers', is_admin: true, user_ids: ['u-1'] } });
});
afterAll(() => emulator.close());

async function signIn(username: string, password: unknown, token: string | null = null) {
  return admin.post<{ token: string }>('/api/v1/signin', { username, password }, { token });
}

describe('POST /api/v1/signin', () => {
  it('answers a fresh token for a seeded password, without any Authorization header', async () => {
    const first = await signIn('carol', PASSWORDS.carol);
    const second = await signIn('carol', PASSWORDS.carol);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      status: 'ok',
      message: 'You are successfully logged in',
      data: { token: expect.any(String) },
    });
    const [a, b] = [first.body.data?.token ?? '', second.body.data?.token ?? ''];
    expect(a).toMatch(/^[0-9a-f]{48}$/);
    expect(b).not.toBe(a);
    // Registered as secrets by the emulator itself.
    expect(redact(`${a} ${b}`)).toBe('[REDACTED] [REDACTED]');
  });

  it("the token carries the user's privileges, for the emulator's lifetime", async () => {
    const carol = admin.as((await signIn('carol', PASSWORDS.carol)).body.data?.token ?? '');
    const groups = await carol.get<{ groups: WireGroup[] }>('/api/v1/groups');
    expect(groups.status).toBe(200);
    expect(groups.body.data?.groups.map((g) => g.name)).toEqual(['admins', 'superusers']);

    // dan is in no group: schedules may be read, groups may not (and the static token still works).
    const dan = admin.as((await signIn('dan', PASSWORDS.dan)).body.data?.token ?? '');
    expect((await dan.get('/api/v1/reports/schedules?paginate=false')).status).toBe(200);
    expect((await dan.get('/api/v1/groups')).body).toEqual({ status: 'error', message: 'Forbidden' });
    expect((await admin.as('dan-static-token').get('/api/v1/reports/schedules?paginate=false')).status).toBe(
      200,
    );
  });

  it.each([
    ['a wrong password', 'carol', 'carol-pass-9999'],
    ['an unknown user', 'mallory', PASSWORDS.carol],
    ['a user without a password', 'erin', 'erin-static-token'],
    ["another user's password", 'dan', PASSWORDS.carol],
    ['an empty password', 'carol', ''],
  ])('%s is a 401 with the vendor error shape, whoever asks', async (_case, username, password) => {
    const reply = await signIn(username, password);
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual(REFUSED);
    // A caller that sends a (valid) token along gets the same answer.
    expect((await signIn(username, password, 'erin-static-token')).body).toEqual(REFUSED);
  });

  it('a malformed body is a 400 that never echoes the password', async () => {
    const reply = await admin.post('/api/v1/signin', { username: 'carol' }, { token: null });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({
      status: 'error',
      message: 'Error signing in',
      errors: ['password: required'],
    });
    const typed = await admin.post(
      '/api/v1/signin',
      { username: 'carol', password: 12345678 },
      { token: null },
    );
    expect(JSON.stringify(typed.body)).not.toContain('12345678');
  });

  it('a signed-in caller still signs in as someone else with a password (a stale token is no obstacle)', async () => {
    const reply = await signIn('carol', PASSWORDS.carol, 'erin-static-token');
    expect(reply.status).toBe(200);
  });

  it('other routes still refuse a caller without a token', async () => {
    expect((await admin.get('/api/v1/groups', { token: null })).body).toEqual({
      status: 'error',
      message: 'Forbidden',
    });
  });
});

describe('persistence', () => {
  it('never writes a password or a signed-in token to the state (any file beside it)', async () => {
    const { dir, cleanup } = await makeTempDir();
    const persisted = await startTestEmulator({ seed: SEED, statePath: join(dir, 'state.json') });
    try {
      const reply = await persisted.api.post<{ token: string }>(
        '/api/v1/signin',
        { username: 'carol', password: PASSWORDS.carol },
        { token: null },
      );
      const token = reply.body.data?.token ?? '';
      await persisted.api.post('/api/v1/groups', {
        attrs: { name: 'superusers', is_admin: true, user_ids: ['u-1'] },
      });
      const created = await persisted.api.as(token).post('/api/v1/groups', { attrs: { name: 'by-carol' } });
      expect(created.status).toBe(200);
      await persisted.emulator.close();
      const files = await Promise.all((await readdir(dir)).map((name) => readFile(join(dir, name), 'utf8')));
      expect(files.join('\n')).toContain('by-carol');
      for (const secret of [PASSWORDS.carol, PASSWORDS.dan, token, 'dan-static-token']) {
        expect(files.join('\n')).not.toContain(secret);
      }
    } finally {
      await persisted.emulator.close();
      await cleanup();
    }
  });
});

describe('seed users with a password', () => {
  it('registers passwords as secrets and refuses two password users with one username', async () => {
    const { dir, cleanup: done } = await makeTempDir();
    try {
      const path = join(dir, 'seed.yaml');
      await writeFile(path, 'users:\n  - {id: u-9, username: frank, password: frank-pass-0009}\n');
      expect((await loadSeedFile(path)).users).toEqual([
        { id: 'u-9', username: 'frank', password: 'frank-pass-0009' },
      ]);
      expect(redact('frank-pass-0009')).toBe('[REDACTED]');

      await writeFile(
        path,
        'users: [{id: a, username: x, password: first-pass-1}, {id: b, username: x, password: second-pass-2}]',
      );
      const error = await loadSeedFile(path).catch((e: unknown) => e);
      expect(String(error)).toContain(
        "users.1.username: duplicate username: 'x' (users with a password sign in by username)",
      );
      expect(String(error)).not.toContain('first-pass-1');
    } finally {
      await done();
    }
  });

  it('a JSON seed that does not parse is reported without quoting the file (it holds passwords)', async () => {
    const { dir, cleanup: done } = await makeTempDir();
    try {
      const path = join(dir, 'seed.json');
      await writeFile(path, '{"users": [{"id": "a", "username": "x", "password": oops-unquoted-pass}]}');
      const error = await loadSeedFile(path).catch((e: unknown) => e);
      expect(String(error)).toContain(`seed file ${path} cannot be parsed: not valid JSON`);
      expect(String(error)).not.toContain('unquoted');
    } finally {
      await done();
    }
  });
});
