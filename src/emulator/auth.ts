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
import type { SeedUser } from './seed.js';
import type { Store } from './store.js';

export type Privilege =
  | 'signin'
  | 'rules:read'
  | 'application_rules:read'
  | 'application_rules:write'
  | 'groups'
  | 'notifications'
  | 'schedules:read'
  | 'schedules:write'
  | 'rule_settings'
  | 'users:read';

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

export const PERMISSION_EXPLORE_ALERTS = 0;
export const PERMISSION_HANDLE_RULES = 1;
/**
 * `Load source rules` in the spec's catalog: the vendor calls it "Load network rules", "translation
 * and sending of network rules to the enabled firewall"
 * (https://docs.seerbox.it/main/configuration/authentication-and-authorization). It is what a
 * non-admin needs for /api/v1/settings/rules (see routes/network-rule-settings.ts).
 */
export const PERMISSION_LOAD_NETWORK_RULES = 3;
/**
 * The vendor's "Handle users" permission has no id in the spec's catalog: a seeded permission outside
 * the catalog carrying this name (`permission_name`, compared without case) is it, and lets a
 * non-admin read /api/v1/users (routes/users.ts).
 */
export const HANDLE_USERS_NAME = 'handle users';

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

export function isAllowed(caller: Caller, privilege: Privilege, store: Store): boolean {
  if (privilege === 'signin') return true;
  if (caller.kind === 'anonymous') return false;
  if (caller.kind === 'admin') return true;
  let isAdmin = false;
  const permissions = new Set<number>();
  let handlesUsers = false;
  for (const group of store.groups.values()) {
    if (!group.user_ids.includes(caller.id)) continue;
    isAdmin ||= group.is_admin;
    for (const permission of group.permissions) {
      permissions.add(permission.permission_id);
      handlesUsers ||= permission.permission_name?.trim().toLowerCase() === HANDLE_USERS_NAME;
    }
  }
  if (isAdmin) return true;
  const handlesRules = permissions.has(PERMISSION_HANDLE_RULES);
  switch (privilege) {
    case 'rules:read':
    case 'application_rules:read':
      return handlesRules || permissions.has(PERMISSION_EXPLORE_ALERTS);
    case 'application_rules:write':
      return handlesRules;
    case 'schedules:read':
      return true;
    case 'groups':
    case 'notifications':
    case 'schedules:write':
      return false;
    case 'rule_settings':
      return permissions.has(PERMISSION_LOAD_NETWORK_RULES);
    case 'users:read':
      return handlesUsers;
  }
}
