/**
 * Who is calling and what they may do (contract: "Emulator privileges"). A seeded user's privileges
 * are computed from the groups of the CURRENT store on every request, so a group change takes
 * effect immediately. Privileges are never narrowed by a permission's service_id.
 *
 * Sign-in (`POST /api/v1/signin`) is the one request that needs no token: a caller without a known
 * token is `anonymous`, allowed the `signin` privilege and nothing else (so it still gets the same
 * 403 `Forbidden` everywhere else). Every caller carries `signIn`, the desk that checks a seeded
 * user's password and hands out a fresh token: the route has no other way to reach the
 * authenticator, and a client may well send a stale token along with its sign-in.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { registerSecret } from '../core/secrets.js';
import { type CollectionPrivilege, GROUPS } from './collections.js';
import { HANDLE_USERS_NAME, type Holdings } from './permissions.js';
import type { SeedUser } from './seed.js';
import type { Store } from './store.js';
import { SIGNIN_PRIVILEGE } from './table.js';

/** What a built-in route may name (a test's routes may name the privileges of its collections). */
export type Privilege = typeof SIGNIN_PRIVILEGE | CollectionPrivilege;

/** A fresh token for this username and password, or undefined when they do not match a seeded user. */
export type SignIn = (username: string, password: string) => string | undefined;

export type Caller = (
  | { kind: 'admin'; username: string }
  | { kind: 'user'; id: string; username: string }
  | { kind: 'anonymous'; username: string }
) & { readonly signIn: SignIn };

const ADMIN_USERNAME = 'admin';
const ANONYMOUS_USERNAME = 'anonymous';
const BEARER = /^Bearer +(\S+) *$/i;

/** Compared as digests, in constant time: how long a comparison takes says nothing of the password. */
function samePassword(expected: string, given: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(expected), digest(given));
}

export class Authenticator {
  /** Seeded tokens, then tokens handed out by sign-in: both name a seeded user. */
  private readonly users = new Map<string, SeedUser>();
  /** Users that may sign in, by username (the seed refuses two with the same name). */
  private readonly withPassword = new Map<string, SeedUser>();
  private readonly signIn: SignIn = (username, password) => this.signInAs(username, password);

  constructor(
    private readonly adminToken: string | undefined,
    users: readonly SeedUser[],
  ) {
    for (const user of users) {
      if (user.token !== undefined) this.users.set(user.token, user);
      if (user.password !== undefined) this.withPassword.set(user.username, user);
    }
  }

  /** The caller named by an `Authorization` header; anonymous for a missing/malformed/unknown token. */
  identify(header: string | undefined): Caller {
    const token = header === undefined ? undefined : BEARER.exec(header)?.[1];
    const { signIn } = this;
    if (this.adminToken !== undefined && token === this.adminToken) {
      return { kind: 'admin', username: ADMIN_USERNAME, signIn };
    }
    const user = token === undefined ? undefined : this.users.get(token);
    if (user === undefined) return { kind: 'anonymous', username: ANONYMOUS_USERNAME, signIn };
    return { kind: 'user', id: user.id, username: user.username, signIn };
  }

  /**
   * A fresh random token, valid for this user's privileges until the emulator stops. It lives in
   * memory only (never in the state file) and is registered as a secret before anyone sees it.
   */
  private signInAs(username: string, password: string): string | undefined {
    const user = this.withPassword.get(username);
    if (user?.password === undefined || !samePassword(user.password, password)) return undefined;
    const token = randomBytes(24).toString('hex');
    registerSecret(token);
    this.users.set(token, user);
    return token;
  }
}

/** What a user holds through its groups in the current store; 'admin' for a member of an admin group. */
function holdingsOf(userId: string, store: Store): Holdings | 'admin' {
  const permissions = new Set<number>();
  let handlesUsers = false;
  for (const group of store.collection(GROUPS).values()) {
    if (!group.user_ids.includes(userId)) continue;
    if (group.is_admin) return 'admin';
    for (const permission of group.permissions) {
      permissions.add(permission.permission_id);
      handlesUsers ||= permission.permission_name?.trim().toLowerCase() === HANDLE_USERS_NAME;
    }
  }
  return { permissions, handlesUsers };
}

/**
 * Sign-in is allowed to anyone; anything else to administrators, and to a user whose holdings the
 * privilege's grant accepts (the collection table says which: collections.ts). A privilege no
 * collection names is refused (the emulator checks its routes' privileges at start).
 */
export function isAllowed(caller: Caller, privilege: string, store: Store): boolean {
  if (privilege === SIGNIN_PRIVILEGE) return true;
  if (caller.kind === 'anonymous') return false;
  if (caller.kind === 'admin') return true;
  const grant = store.table.grant(privilege);
  if (grant === undefined) return false;
  const holdings = holdingsOf(caller.id, store);
  return holdings === 'admin' || grant(holdings);
}
