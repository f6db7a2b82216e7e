/**
 * Who is calling and what they may do (contract: "Emulator privileges"). A seeded user's privileges
 * are computed from the groups of the CURRENT store on every request, so a group change takes
 * effect immediately. Privileges are never narrowed by a permission's service_id.
 */
import type { SeedUser } from './seed.js';
import type { Store } from './store.js';

export type Privilege =
  | 'rules:read'
  | 'application_rules:read'
  | 'application_rules:write'
  | 'groups'
  | 'notifications'
  | 'schedules:read'
  | 'schedules:write';

export type Caller = { kind: 'admin'; username: string } | { kind: 'user'; id: string; username: string };

const ADMIN_USERNAME = 'admin';
const BEARER = /^Bearer +(\S+) *$/i;

export const PERMISSION_EXPLORE_ALERTS = 0;
export const PERMISSION_HANDLE_RULES = 1;

export class Authenticator {
  private readonly users = new Map<string, SeedUser>();

  constructor(
    private readonly adminToken: string | undefined,
    users: readonly SeedUser[],
  ) {
    for (const user of users) if (user.token !== undefined) this.users.set(user.token, user);
  }

  /** The caller named by an `Authorization` header, or undefined for a missing/malformed/unknown token. */
  identify(header: string | undefined): Caller | undefined {
    const token = header === undefined ? undefined : BEARER.exec(header)?.[1];
    if (token === undefined) return undefined;
    if (this.adminToken !== undefined && token === this.adminToken) {
      return { kind: 'admin', username: ADMIN_USERNAME };
    }
    const user = this.users.get(token);
    return user === undefined ? undefined : { kind: 'user', id: user.id, username: user.username };
  }
}

export function isAllowed(caller: Caller, privilege: Privilege, store: Store): boolean {
  if (caller.kind === 'admin') return true;
  let isAdmin = false;
  const permissions = new Set<number>();
  for (const group of store.groups.values()) {
    if (!group.user_ids.includes(caller.id)) continue;
    isAdmin ||= group.is_admin;
    for (const permission of group.permissions) permissions.add(permission.permission_id);
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
  }
}
