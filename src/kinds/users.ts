/**
 * The user directory (`GET /api/v1/users`, https://docs.seerbox.it/api/authentication/users), read
 * once per run: it lets a configuration name group members by username (ids are UUIDs on a real
 * server, so `users: [u-1001]` does not carry between environments). The engine compares ids only:
 * refresh turns names into ids before planning, export turns ids into names when it writes.
 */
import { type ApiClient, ApiError, type User } from '../api/index.js';
import type { Attributes } from '../core/model.js';
import { didYouMean } from '../core/suggest.js';
import type { Kind } from './kind.js';
import { sortedSet } from './normalize.js';

/** Said once on stderr when the server has no `/users` (a 404): members are then ids as written. */
export const NO_USER_LISTING_NOTE =
  'the server has no user listing (GET /api/v1/users answered 404): group members are taken as user ids, as written, and exported as ids';

export class UserDirectory {
  private readonly ids = new Set<string>();
  private readonly byUsername = new Map<string, string[]>();

  constructor(users: readonly User[]) {
    for (const user of users) {
      this.ids.add(user.id);
      if (user.username === '') continue;
      const same = this.byUsername.get(user.username);
      if (same) same.push(user.id);
      else this.byUsername.set(user.username, [user.id]);
    }
  }

  /** Whether `value` is a user's id. */
  isId(value: string): boolean {
    return this.ids.has(value);
  }

  /**
   * The id a member names: a known id as it is (ids win), else the id of the one user with that
   * username; a problem's message otherwise (no such user, or a username two users share). An id
   * that is also another user's username resolves to the id, with a `note` that says which is which.
   */
  resolve(member: string): { id: string; note?: string } | { problem: string } {
    if (this.ids.has(member)) {
      const others = (this.byUsername.get(member) ?? []).filter((id) => id !== member);
      if (others.length === 0) return { id: member };
      const users = others.length === 1 ? `user ${others[0]}` : `users ${others.join(', ')}`;
      return {
        id: member,
        note: `"${member}" is the id of user ${member} and also the username of ${users}: taken as the id (ids win); write ${others.join(' or ')} to name the other`,
      };
    }
    const named = this.byUsername.get(member) ?? [];
    if (named.length === 1) return { id: named[0] as string };
    if (named.length > 1) {
      return {
        problem: `username "${member}" names ${named.length} users (ids ${named.join(', ')}): write the id`,
      };
    }
    const suggestion = didYouMean(member, [...this.byUsername.keys()]);
    return {
      problem: `unknown user "${member}": neither a username nor a user id the server knows${suggestion ? ` (did you mean "${suggestion}"?)` : ''}`,
    };
  }

  /**
   * How a member is written: its username when that names it and only it when read back (one user
   * holds it, and it is no user's id), else the id.
   */
  nameOf(id: string): string {
    for (const [username, ids] of this.byUsername) {
      if (ids.length === 1 && ids[0] === id) return this.ids.has(username) ? id : username;
    }
    return id;
  }
}

/**
 * The directory, or undefined when the server has no `/users` (404): members are then ids. Not
 * `readFamilies`' rule (read-families.ts): the directory is no family of the configuration, and its
 * 403 stays an error, since usernames it cannot resolve would be sent as ids.
 */
export async function readUserDirectory(api: ApiClient): Promise<UserDirectory | undefined> {
  try {
    return new UserDirectory(await api.users.list());
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return undefined;
    throw error;
  }
}

/** `attributes` with the members of the kind's `userFields` written as `nameOf` writes them (export, pull). */
export function withUsernames(kind: Kind, attributes: Attributes, directory: UserDirectory): Attributes {
  const named: Attributes = { ...attributes };
  for (const field of kind.userFields ?? []) {
    const ids = named[field];
    if (Array.isArray(ids)) named[field] = sortedSet((ids as string[]).map((id) => directory.nameOf(id)));
  }
  return named;
}

/** Reads the directory at most once per run, for every part of the run that needs it. */
export function userDirectoryOnce(api: ApiClient): () => Promise<UserDirectory | undefined> {
  let read: Promise<UserDirectory | undefined> | undefined;
  return () => {
    read ??= readUserDirectory(api);
    return read;
  };
}
