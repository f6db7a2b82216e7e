/**
 * /api/v1/users, read only (https://docs.seerbox.it/api/authentication/users): the user directory,
 * which lets a configuration name group members by username. The listing is not paginated
 * (`data.users`); the documented GET-one answers `data.user`, accepted, like the other modules, also
 * under the other key and as an object or a one-element array.
 */
import { z } from 'zod';
import { type ClientContext, call } from './context.js';
import { oneRecord, underEitherKey, underKey } from './envelope.js';
import { type User, userSchema } from './records.js';
import { pathSegment } from './url.js';

export interface UsersApi {
  list(): Promise<User[]>;
  get(id: string): Promise<User>;
}

const BASE = '/api/v1/users';
const userPath = (id: string) => `${BASE}/${pathSegment(id, 'user id')}`;

const listData = underKey('users', z.array(userSchema));
const oneData = underEitherKey('user', 'users', oneRecord(userSchema));

/** The users' endpoints (`/api/v1/users`), read only. */
export function usersApi(ctx: ClientContext): UsersApi {
  return {
    list: async () => call(ctx, { method: 'GET', path: BASE }, listData),
    get: async (id) => call(ctx, { method: 'GET', path: userPath(id) }, oneData),
  };
}
