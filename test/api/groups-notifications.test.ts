import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { answer, BASE, group, makeClient, notification, ok, TOKEN, useNock } from './helpers.js';

useNock();

const JSON_TYPE = 'application/json';
const groupInput = {
  name: 'soc-analysts',
  description: 'Tier-1 analysts',
  is_admin: false,
  permissions: [
    { permission_id: 0, service_id: 'svc-shop' },
    { permission_id: 2, service_id: '' },
  ],
  user_ids: ['u-1001'],
};

describe('groups', () => {
  it('lists from data.groups with the bearer token and no content type', async () => {
    const { client } = makeClient();
    const { permissions: _p, users: _u, ...summary } = group();
    const calls = answer(nock(BASE).get('/api/v1/groups'), 200, ok({ groups: [summary] }, 'List of groups'));

    const groups = await client.groups.list();

    expect(groups).toEqual([summary]);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.uri).toBe('/api/v1/groups');
    expect(calls[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(calls[0]?.headers['content-type']).toBeUndefined();
    expect(calls[0]?.body).toBeUndefined();
  });

  it('gets one from the documented one-element data.groups list', async () => {
    const { client } = makeClient();
    const calls = answer(
      nock(BASE).get('/api/v1/groups/42'),
      200,
      ok({ groups: [group()] }, 'Group retrieved'),
    );

    expect(await client.groups.get('42')).toEqual(group());
    expect(calls[0]?.method).toBe('GET');
  });

  it('creates with {attrs} as application/json and reads data.group', async () => {
    const { client } = makeClient();
    const calls = answer(
      nock(BASE).post('/api/v1/groups'),
      200,
      ok({ group: group() }, 'Group updated succesfully'),
    );

    const created = await client.groups.create(groupInput);

    expect(created.id).toBe('42');
    expect(created.users).toEqual([{ id: 'u-1001', username: 'alice' }]);
    expect(calls[0]?.headers['content-type']).toBe(JSON_TYPE);
    expect(calls[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(calls[0]?.body).toEqual({ attrs: groupInput });
  });

  it('updates with PUT /groups/{id} and {attrs}', async () => {
    const { client } = makeClient();
    const calls = answer(nock(BASE).put('/api/v1/groups/42'), 200, ok({ group: group({ name: 'renamed' }) }));

    const updated = await client.groups.update('42', { ...groupInput, name: 'renamed' });

    expect(updated.name).toBe('renamed');
    expect(calls[0]?.headers['content-type']).toBe(JSON_TYPE);
    expect(calls[0]?.body).toEqual({ attrs: { ...groupInput, name: 'renamed' } });
  });

  it('deletes with Content-Type application/json and no body, returning the deleted group', async () => {
    const { client } = makeClient();
    const calls = answer(nock(BASE).delete('/api/v1/groups/42'), 200, ok({ group: group() }));

    const deleted = await client.groups.delete('42');

    expect(deleted.id).toBe('42');
    expect(calls[0]?.method).toBe('DELETE');
    expect(calls[0]?.headers['content-type']).toBe(JSON_TYPE);
    expect(calls[0]?.headers['content-length'] ?? '0').toBe('0');
    expect(calls[0]?.body).toBeUndefined();
  });

  it('accepts data.group and data.groups, each as an object or a one-element array', async () => {
    const { client } = makeClient();
    const shapes = [{ group: group() }, { group: [group()] }, { groups: group() }, { groups: [group()] }];
    for (const data of shapes) answer(nock(BASE).get('/api/v1/groups/42'), 200, ok(data));

    for (const _ of shapes) expect((await client.groups.get('42')).name).toBe('soc-analysts');
  });

  it('encodes the id as one path segment', async () => {
    const { client } = makeClient();
    answer(nock(BASE).get('/api/v1/groups/a%2Fb%3F'), 200, ok({ groups: [group()] }));

    expect((await client.groups.get('a/b?')).id).toBe('42');
  });
});

describe('notifications', () => {
  it('lists from data.notifications', async () => {
    const { client } = makeClient();
    const calls = answer(
      nock(BASE).get('/api/v1/settings/notifications'),
      200,
      ok({ notifications: [notification()] }),
    );

    expect(await client.notifications.list()).toEqual([notification()]);
    expect(calls[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('gets one by name from data.notification', async () => {
    const { client } = makeClient();
    answer(
      nock(BASE).get('/api/v1/settings/notifications/splunk'),
      200,
      ok({ notification: notification() }),
    );

    expect(await client.notifications.get('splunk')).toEqual(notification());
  });

  it('creates with {notification} as application/json', async () => {
    const { client } = makeClient();
    const calls = answer(
      nock(BASE).post('/api/v1/settings/notifications'),
      200,
      ok({ notification: notification() }),
    );

    await client.notifications.create(notification());

    expect(calls[0]?.headers['content-type']).toBe(JSON_TYPE);
    expect(calls[0]?.body).toEqual({ notification: notification() });
  });

  it('updates by name with {attrs}', async () => {
    const { client } = makeClient();
    const attrs = { settings: { destination_address: '10.0.0.6', destination_port: 6514 } };
    const calls = answer(
      nock(BASE).put('/api/v1/settings/notifications/splunk'),
      200,
      ok({ notification: notification({ settings: { ...notification().settings, ...attrs.settings } }) }),
    );

    const updated = await client.notifications.update('splunk', attrs);

    expect(updated.settings.destination_port).toBe(6514);
    expect(calls[0]?.headers['content-type']).toBe(JSON_TYPE);
    expect(calls[0]?.body).toEqual({ attrs });
  });

  it('deletes by name without a body', async () => {
    const { client } = makeClient();
    const calls = answer(
      nock(BASE).delete('/api/v1/settings/notifications/splunk'),
      200,
      ok({ notification: notification() }),
    );

    expect((await client.notifications.delete('splunk')).name).toBe('splunk');
    expect(calls[0]?.body).toBeUndefined();
  });

  it('URL-encodes the name so it stays one path segment', async () => {
    const { client } = makeClient();
    const calls = answer(
      nock(BASE).get('/api/v1/settings/notifications/a%2Fb%20..%25'),
      200,
      ok({ notification: notification({ name: 'a/b ..%' }) }),
    );

    expect((await client.notifications.get('a/b ..%')).name).toBe('a/b ..%');
    expect(calls[0]?.uri).toBe('/api/v1/settings/notifications/a%2Fb%20..%25');
  });

  it.each(['..', '.', ''])(
    'refuses the name %j, which no encoding keeps inside its segment',
    async (name) => {
      const { client } = makeClient();
      // No interceptor: a request reaching the network would fail with a different error.
      await expect(client.notifications.get(name)).rejects.toMatchObject({ code: 'USAGE' });
      await expect(client.notifications.delete(name)).rejects.toThrow(/cannot be used in a URL path/);
    },
  );

  it('keeps names that merely contain dots', async () => {
    const { client } = makeClient();
    answer(nock(BASE).get('/api/v1/settings/notifications/...'), 200, ok({ notification: notification() }));
    answer(nock(BASE).get('/api/v1/settings/notifications/..a'), 200, ok({ notification: notification() }));

    await client.notifications.get('...');
    await client.notifications.get('..a');
  });
});
