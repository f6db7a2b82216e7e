/**
 * /api/v1/users, read only (https://docs.seerbox.it/api/authentication/users): the user directory
 * the store holds (the seed's users, else the demo directory, with the built-in `admin`). A user is
 * shown with `id`, `username` and the groups holding it (`groups`, as `{id, name}`); the store keeps
 * nothing else (never a token or a password: the seed's are not stored), so the vendor's other fields
 * (names, email, auth type, ...) are absent.
 *
 * Who may read it: administrators, and a non-admin whose group holds the vendor's "Handle users"
 * permission (a seeded permission outside the spec's catalog with that name: auth.ts).
 */
import { GROUPS, USERS } from '../collections.js';
import type { User } from '../records.js';
import { fail, ok, type Route } from '../router.js';
import type { Store } from '../store.js';

const MESSAGES = {
  list: 'List of users',
  retrieved: 'User retrieved',
  retrieveError: 'Error retrieving user',
} as const;

function shown(user: User, store: Store): Record<string, unknown> {
  const groups = [...store.collection(GROUPS).values()]
    .filter((group) => group.user_ids.includes(user.id))
    .map((group) => ({ id: group.id, name: group.name }));
  return { id: user.id, username: user.username, groups };
}

export const userRoutes: Route[] = [
  {
    method: 'GET',
    template: '/api/v1/users',
    privilege: 'users:read',
    body: 'none',
    errorMessage: MESSAGES.retrieveError,
    handle: ({ store }) =>
      ok(MESSAGES.list, { users: [...store.collection(USERS).values()].map((u) => shown(u, store)) }),
  },
  {
    method: 'GET',
    template: '/api/v1/users/{id}',
    privilege: 'users:read',
    body: 'none',
    errorMessage: MESSAGES.retrieveError,
    handle: ({ store, params }) => {
      const user = store.collection(USERS).get(params.id ?? '');
      if (user === undefined) return fail(MESSAGES.retrieveError, [`id: no user with id '${params.id}'`]);
      return ok(MESSAGES.retrieved, { user: shown(user, store) });
    },
  },
];
