import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { ApiError, InvalidResponseError } from '../../src/api/index.js';
import { answer, BASE, makeClient, ok, TOKEN, useNock } from './helpers.js';

useNock();

// As documented (https://docs.seerbox.it/api/authentication/users): ids are UUIDs.
const alice = {
  id: 'a8a2c6e5-1f2b-4768-9c3d-699e4f1908ab',
  username: 'alice',
  first_name: 'Alice',
  last_name: 'Liddell',
  auth_type: 'basic',
  email: 'alice@example.com',
  groups: [],
  is_disabled: false,
  is_first_access: true,
  inserted_at: '2024-01-17T13:11:41Z',
  access_limits: null,
};

describe('users', () => {
  it('lists from data.users with the bearer token', async () => {
    const { client } = makeClient();
    const calls = answer(nock(BASE).get('/api/v1/users'), 200, ok({ users: [alice] }, 'List of users'));

    const users = await client.users.list();

    expect(users).toHaveLength(1);
    expect(users[0]).toMatchObject({ id: alice.id, username: 'alice', email: 'alice@example.com' });
    expect(calls[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('gets one from data.user, also accepting data.users and a one-element array', async () => {
    const { client } = makeClient();
    const path = `/api/v1/users/${alice.id}`;
    answer(nock(BASE).get(path), 200, ok({ user: alice }, 'User retrieved'));
    answer(nock(BASE).get(path), 200, ok({ users: [alice] }, 'User retrieved'));

    expect((await client.users.get(alice.id)).username).toBe('alice');
    expect((await client.users.get(alice.id)).username).toBe('alice');
  });

  it('refuses a user without a username', async () => {
    const { client } = makeClient();
    answer(nock(BASE).get('/api/v1/users'), 200, ok({ users: [{ id: alice.id }] }));

    const error = await client.users.list().catch((e: unknown) => e);

    expect(error).toBeInstanceOf(InvalidResponseError);
    expect(String(error)).toContain('data.users[0].username');
  });

  it('reports a 404 (a server without the endpoint) as an ApiError with its status', async () => {
    const { client } = makeClient();
    answer(nock(BASE).get('/api/v1/users'), 404, { status: 'error', message: 'Not found' });

    const error = await client.users.list().catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(404);
  });
});
