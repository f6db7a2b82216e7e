/**
 * The real Seer Box: the `admins` group is created at start-up with the `admin` user and "cannot be
 * edited or deleted" (https://docs.seerbox.it/main/configuration/authentication-and-authorization);
 * the server knows permissions the spec's catalog does not name.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { type Client, startTestEmulator, type WireGroup } from './helpers.js';

type One = { group: WireGroup };
type Many = { groups: WireGroup[] };

describe('the built-in admins group', () => {
  let emulator: RunningEmulator;
  let api: Client;
  beforeAll(async () => {
    ({ emulator, api } = await startTestEmulator());
  });
  afterAll(() => emulator.close());

  const admins = async () => (await api.get<Many>('/api/v1/groups/0')).body.data?.groups[0];

  it('is seeded, an administrator group holding the admin user, and ids of new groups start at 1', async () => {
    const listed = (await api.get<Many>('/api/v1/groups')).body.data?.groups ?? [];
    expect(listed.map((g) => [g.id, g.name, g.is_admin])[0]).toEqual(['0', 'admins', true]);
    expect(await admins()).toMatchObject({
      id: '0',
      name: 'admins',
      is_admin: true,
      permissions: [],
      users: [{ id: 'u-1000', username: 'admin' }],
    });
    const created = await api.post<One>('/api/v1/groups', { attrs: { name: 'first' } });
    expect(created.body.data?.group.id).toBe('1');
  });

  it('refuses a PUT with a 400 and the update error, and changes nothing', async () => {
    const before = await admins();
    const reply = await api.put('/api/v1/groups/0', { attrs: { description: 'mine now', user_ids: [] } });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({
      status: 'error',
      message: 'Error updating the group.',
      errors: ["id: the admins group (id '0') is built in and cannot be edited"],
    });
    expect(await admins()).toEqual(before);
  });

  it('refuses a DELETE with a 400 and the delete error, and keeps it', async () => {
    const reply = await api.request('DELETE', '/api/v1/groups/0', { contentType: 'application/json' });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({
      status: 'error',
      message: 'Error deleting the group.',
      errors: ["id: the admins group (id '0') is built in and cannot be deleted"],
    });
    expect((await admins())?.name).toBe('admins');
  });

  it('a second group named admins is refused as a duplicate name', async () => {
    const reply = await api.post('/api/v1/groups', { attrs: { name: 'admins' } });
    expect(reply.status).toBe(400);
    expect(reply.body.errors).toEqual(["attrs.name: a group named 'admins' exists"]);
  });
});

describe('a seed with groups and permissions outside the catalog', () => {
  let emulator: RunningEmulator;
  let api: Client;
  beforeAll(async () => {
    ({ emulator, api } = await startTestEmulator({
      seed: {
        users: [
          { id: 'u-1', username: 'yara' },
          { id: 'u-2', username: 'zed' },
        ],
        groups: [
          {
            name: 'firewall-team',
            permissions: [
              { permission_id: 7, permission_name: 'Handle firewalls' },
              { permission_id: 1, service_id: 'svc-shop' },
            ],
            user_ids: ['u-1'],
          },
        ],
      },
    }));
  });
  afterAll(() => emulator.close());

  it('holds the built-in admin user and group beside the seeded ones', async () => {
    const listed = (await api.get<Many>('/api/v1/groups')).body.data?.groups ?? [];
    // Tests run in any order: a later write may have added a group after these two.
    expect(listed.slice(0, 2).map((g) => [g.id, g.name])).toEqual([
      ['0', 'admins'],
      ['1', 'firewall-team'],
    ]);
    const admins = (await api.get<Many>('/api/v1/groups/0')).body.data?.groups[0];
    expect(admins?.users).toEqual([{ id: 'u-1000', username: 'admin' }]);
  });

  it('shows an unknown permission id with the name it was seeded with', async () => {
    const group = (await api.get<Many>('/api/v1/groups/1')).body.data?.groups[0];
    expect(group?.permissions?.map((p) => [p.permission_id, p.permission_name, p.service_id])).toEqual([
      [7, 'Handle firewalls', ''],
      [1, 'Handle rules', 'svc-shop'],
    ]);
  });

  it('accepts an id the server holds in a write, and still refuses one it does not', async () => {
    const created = await api.post<One>('/api/v1/groups', {
      attrs: { name: 'more-firewalls', permissions: [{ permission_id: 7, service_id: '' }] },
    });
    expect(created.status).toBe(200);
    expect(created.body.data?.group.permissions).toEqual([
      expect.objectContaining({ permission_id: 7, permission_name: 'Handle firewalls' }),
    ]);
    const refused = await api.post('/api/v1/groups', {
      attrs: { name: 'unknown-perm', permissions: [{ permission_id: 9, service_id: '' }] },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual(['attrs.permissions.0.permission_id: unknown permission id 9']);
  });

  it('refuses a seed group naming a user the directory does not hold', async () => {
    await expect(
      startTestEmulator({ seed: { groups: [{ name: 'ghosts', user_ids: ['u-404'] }] } }),
    ).rejects.toThrow("groups.0.user_ids: unknown user id 'u-404'");
  });
});
