/** /api/v1/users in the emulator: the user directory, read only, and who may read it. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_USERS } from '../../src/emulator/demo-directory.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { type Client, startTestEmulator } from './helpers.js';

type Shown = { id: string; username: string; groups: { id: string; name: string }[] };

const SEED = {
  users: [
    { id: 'u-1', username: 'nogroups', token: 'token-none-SECRET', password: 'pw-none-SECRET' },
    { id: 'u-2', username: 'userkeeper', token: 'token-handle-users-SECRET' },
    { id: 'u-3', username: 'ruler', token: 'token-rules-SECRET' },
  ],
  groups: [
    {
      name: 'user-keepers',
      permissions: [{ permission_id: 12, service_id: '', permission_name: 'Handle users' }],
      user_ids: ['u-2'],
    },
    { name: 'rulers', permissions: [{ permission_id: 1, service_id: '' }], user_ids: ['u-3'] },
  ],
};

let emulator: RunningEmulator;
let api: Client;
beforeAll(async () => {
  ({ emulator, api } = await startTestEmulator({ seed: SEED }));
});
afterAll(() => emulator.close());

describe('/api/v1/users', () => {
  it('lists the seeded directory with the built-in admin, never a token or a password', async () => {
    const listed = await api.get<{ users: Shown[] }>('/api/v1/users');
    expect(listed.status).toBe(200);
    expect(listed.body.message).toBe('List of users');
    const users = listed.body.data?.users ?? [];
    expect(users.map((u) => u.username).sort()).toEqual(['admin', 'nogroups', 'ruler', 'userkeeper']);
    expect(users.find((u) => u.username === 'userkeeper')?.groups.map((g) => g.name)).toEqual([
      'user-keepers',
    ]);
    expect(users.find((u) => u.username === 'admin')?.groups.map((g) => g.name)).toEqual(['admins']);
    const text = JSON.stringify(listed.body);
    expect(text).not.toContain('SECRET');
    expect(text).not.toMatch(/token|password/);
  });

  it('gets one under data.user; an unknown id is the documented 400', async () => {
    const one = await api.get<{ user: Shown }>('/api/v1/users/u-3');
    expect(one.status).toBe(200);
    expect(one.body.message).toBe('User retrieved');
    expect(one.body.data?.user).toEqual({
      id: 'u-3',
      username: 'ruler',
      groups: [{ id: expect.any(String), name: 'rulers' }],
    });
    const missing = await api.get('/api/v1/users/u-404');
    expect(missing.status).toBe(400);
    expect(missing.body.message).toBe('Error retrieving user');
  });

  it('admins, and users holding "Handle users", may read it; anyone else gets 403', async () => {
    expect((await api.as('token-handle-users-SECRET').get('/api/v1/users')).status).toBe(200);
    expect((await api.as('token-handle-users-SECRET').get('/api/v1/users/u-1')).status).toBe(200);
    expect((await api.as('token-rules-SECRET').get('/api/v1/users')).status).toBe(403);
    expect((await api.as('token-none-SECRET').get('/api/v1/users/u-1')).status).toBe(403);
    expect((await api.as(null).get('/api/v1/users')).status).toBe(403);
  });
});

describe('/api/v1/users without a seed', () => {
  it('serves the demo directory', async () => {
    const started = await startTestEmulator();
    try {
      const listed = await started.api.get<{ users: Shown[] }>('/api/v1/users');
      const ids = (listed.body.data?.users ?? []).map((u) => u.id);
      for (const user of DEMO_USERS) expect(ids).toContain(user.id);
      expect(ids).toContain('u-1000');
    } finally {
      await started.emulator.close();
    }
  });
});
