import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { type Client, ISO_UTC, startTestEmulator, type WireGroup } from './helpers.js';

let emulator: RunningEmulator;
let api: Client;

beforeAll(async () => {
  ({ emulator, api } = await startTestEmulator());
});
afterAll(() => emulator.close());

type One = { group: WireGroup };
type Many = { groups: WireGroup[] };

async function createGroup(attrs: Record<string, unknown>): Promise<WireGroup> {
  const reply = await api.post<One>('/api/v1/groups', { attrs });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  const group = reply.body.data?.group;
  if (group === undefined) throw new Error('no data.group');
  return group;
}

async function listGroups(): Promise<WireGroup[]> {
  return (await api.get<Many>('/api/v1/groups')).body.data?.groups ?? [];
}

/** A name another group holds: the duplicate-name tests own it, whatever ran before them. */
const TAKEN = 'taken-name';

describe('groups', () => {
  beforeAll(async () => {
    await createGroup({ name: TAKEN });
  });

  it('POST creates a group with permissions and users, under data.group', async () => {
    const reply = await api.post<One>('/api/v1/groups', {
      attrs: {
        name: 'soc-analysts',
        description: 'Tier-1 analysts',
        is_admin: false,
        permissions: [
          { permission_id: 0, service_id: '' },
          { permission_id: 1, service_id: 'svc-shop' },
        ],
        user_ids: ['u-1001', 'u-1002'],
      },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.status).toBe('ok');
    expect(reply.body.message).toBe('Group created succesfully');
    const group = reply.body.data?.group;
    expect(group).toMatchObject({ name: 'soc-analysts', description: 'Tier-1 analysts', is_admin: false });
    expect(typeof group?.id).toBe('string');
    expect(group?.created_at).toMatch(ISO_UTC);
    expect(group?.updated_at).toMatch(ISO_UTC);
    expect(group?.permissions).toEqual([
      {
        permission_id: 0,
        permission_name: 'Explore alerts',
        permission_description: 'Visualize and ignore alerts; explore related HTTP transactions.',
        service_id: '',
        service_name: 'default',
        inserted_at: expect.stringMatching(ISO_UTC),
        expired_at: null,
      },
      expect.objectContaining({
        permission_id: 1,
        permission_name: 'Handle rules',
        service_name: 'svc-shop',
      }),
    ]);
    expect(group?.users).toEqual([
      { id: 'u-1001', username: 'alice' },
      { id: 'u-1002', username: 'bob' },
    ]);
  });

  it('GET list returns data.groups without permissions and users', async () => {
    await createGroup({
      name: 'listed',
      user_ids: ['u-1001'],
      permissions: [{ permission_id: 0, service_id: '' }],
    });
    const reply = await api.get<Many>('/api/v1/groups');
    expect(reply.status).toBe(200);
    expect(reply.body.message).toBe('List of groups');
    const group = reply.body.data?.groups.find((g) => g.name === 'listed');
    expect(group).toBeDefined();
    expect(Object.keys(group ?? {}).sort()).toEqual([
      'created_at',
      'description',
      'id',
      'is_admin',
      'name',
      'updated_at',
    ]);
  });

  it('GET one returns a one-element data.groups array with permissions and users', async () => {
    const created = await createGroup({ name: 'get-one', user_ids: ['u-1003'] });
    const reply = await api.get<Many>(`/api/v1/groups/${created.id}`);
    expect(reply.status).toBe(200);
    expect(reply.body.message).toBe('Group retrieved');
    expect(reply.body.data?.groups).toEqual([created]);
    expect(created).toMatchObject({
      description: '',
      is_admin: false,
      permissions: [],
      users: [{ id: 'u-1003', username: 'carol' }],
    });
  });

  it('GET one of an unknown id is a 400 with the error body shape', async () => {
    const reply = await api.get('/api/v1/groups/999999');
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({
      status: 'error',
      message: 'Error retrieving group',
      errors: [expect.stringContaining('999999')],
    });
  });

  it('PUT is a partial update: omitted fields keep their value, kept permissions keep inserted_at', async () => {
    const created = await createGroup({
      name: 'partial',
      description: 'before',
      permissions: [{ permission_id: 2, service_id: '' }],
      user_ids: ['u-1004'],
    });
    const reply = await api.put<One>(`/api/v1/groups/${created.id}`, {
      attrs: {
        description: 'after',
        permissions: [
          { permission_id: 2, service_id: '' },
          { permission_id: 3, service_id: '' },
        ],
      },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.message).toBe('Group updated succesfully');
    const updated = reply.body.data?.group;
    expect(updated).toMatchObject({
      id: created.id,
      name: 'partial',
      description: 'after',
      users: created.users,
    });
    expect(updated?.created_at).toBe(created.created_at);
    expect(updated?.permissions?.map((p) => p.permission_id)).toEqual([2, 3]);
    expect(updated?.permissions?.[0]?.inserted_at).toBe(created.permissions?.[0]?.inserted_at);
    expect(Date.parse(updated?.updated_at ?? '')).toBeGreaterThanOrEqual(Date.parse(created.updated_at));
  });

  it('PUT can rename, toggle is_admin and replace the members', async () => {
    const created = await createGroup({ name: 'rename-me', user_ids: ['u-1001'] });
    const reply = await api.put<One>(`/api/v1/groups/${created.id}`, {
      attrs: { name: 'renamed', is_admin: true, user_ids: ['u-1005'] },
    });
    expect(reply.body.data?.group).toMatchObject({
      name: 'renamed',
      is_admin: true,
      users: [{ id: 'u-1005', username: 'erin' }],
    });
  });

  it.each([
    ['a missing name', { description: 'x' }],
    ['an empty name', { name: '' }],
    ['a duplicate name', { name: TAKEN }],
    ['an unknown user id', { name: 'g-unknown-user', user_ids: ['u-9999'] }],
    [
      'a permission id out of the catalog',
      { name: 'g-perm', permissions: [{ permission_id: 7, service_id: '' }] },
    ],
    ['a permission without service_id', { name: 'g-perm2', permissions: [{ permission_id: 1 }] }],
    ['a wrong type', { name: 'g-type', is_admin: 'yes' }],
    ['an unknown field', { name: 'g-field', users: ['u-1001'] }],
  ])('POST with %s is a 400 and creates nothing', async (_case, attrs) => {
    const before = await listGroups();
    const reply = await api.post('/api/v1/groups', { attrs });
    expect(reply.status).toBe(400);
    expect(reply.body.status).toBe('error');
    expect(reply.body.message).toBe('Error creating new group');
    expect(reply.body.errors?.length).toBeGreaterThan(0);
    expect(await listGroups()).toEqual(before);
  });

  it('POST with malformed JSON or without attrs is a 400', async () => {
    const malformed = await api.request('POST', '/api/v1/groups', { rawBody: '{"attrs": ' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toBe('Error creating new group');
    expect(malformed.body.errors?.[0]).toContain('malformed JSON');
    const bare = await api.post('/api/v1/groups', { name: 'no-attrs' });
    expect(bare.status).toBe(400);
    expect(bare.body.message).toBe('Error creating new group');
  });

  it.each([
    ['a duplicate name', { name: TAKEN }],
    ['an unknown user id', { user_ids: ['u-1001', 'nobody'] }],
    ['a wrong type', { description: 42 }],
    ['a bad permission', { permissions: [{ permission_id: -1, service_id: '' }] }],
  ])('PUT with %s is a 400 and changes nothing', async (_case, attrs) => {
    const created = await createGroup({
      name: `put-invalid-${Object.keys(attrs).join('-')}`,
      user_ids: ['u-1002'],
    });
    const reply = await api.put(`/api/v1/groups/${created.id}`, { attrs });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toBe('Error updating the group.');
    expect((await api.get<Many>(`/api/v1/groups/${created.id}`)).body.data?.groups).toEqual([created]);
  });

  it('PUT of an unknown id or with malformed JSON is a 400', async () => {
    const unknown = await api.put('/api/v1/groups/424242', { attrs: { description: 'x' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toBe('Error updating the group.');
    const created = await createGroup({ name: 'put-malformed' });
    const malformed = await api.request('PUT', `/api/v1/groups/${created.id}`, { rawBody: 'not json' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toBe('Error updating the group.');
  });

  it('DELETE needs Content-Type application/json, takes no body, and returns data.group', async () => {
    const created = await createGroup({ name: 'to-delete', user_ids: ['u-1006'] });
    const noType = await api.request('DELETE', `/api/v1/groups/${created.id}`);
    expect(noType.status).toBe(415);
    const reply = await api.request<One>('DELETE', `/api/v1/groups/${created.id}`, {
      contentType: 'application/json',
    });
    expect(reply.status).toBe(200);
    expect(reply.body.message).toBe('Group deleted succesfully');
    expect(reply.body.data?.group).toEqual(created);
    const again = await api.request('DELETE', `/api/v1/groups/${created.id}`, {
      contentType: 'application/json',
    });
    expect(again.status).toBe(400);
    expect(again.body.message).toBe('Error deleting the group.');
  });

  it('never reuses an id after a delete', async () => {
    const first = await createGroup({ name: 'reuse-1' });
    await api.request('DELETE', `/api/v1/groups/${first.id}`, { contentType: 'application/json', body: {} });
    const second = await createGroup({ name: 'reuse-1' });
    expect(second.id).not.toBe(first.id);
    expect(Number(second.id)).toBeGreaterThan(Number(first.id));
  });

  it('lists groups in creation order', async () => {
    const ids = (await listGroups()).map((g) => Number(g.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });
});
