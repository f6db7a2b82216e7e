/**
 * Groups: keyed by name. The list endpoint returns groups without permissions and members, so every
 * group costs one GET-one to hydrate: the API offers nothing cheaper.
 *
 * Two facts of the real Seer Box (https://docs.seerbox.it/main/configuration/authentication-and-authorization):
 *
 * - The `admins` group is created on first start-up, holds the `admin` user, "cannot be edited or
 *   deleted" and gives its members maximum privileges. wafctl never manages it: a file may not
 *   declare it (a validation error at its name), the live group is read-only (`readOnly`: the planner
 *   leaves it alone as unmanaged, even under prune) and export writes it as a comment.
 * - The vendor lists more permissions than the spec's catalog of four (Handle assets, Handle
 *   traffic sources, Handle users, Handle groups, Handle firewalls, Handle notifications, Load
 *   network rules, and per-domain-group ones) but gives no ids for them, so the catalog stays the
 *   spec's. A permission id outside it is kept as the integer (`permission: 7`), compared exactly,
 *   sent back as it is, and exported with the server's name in a trailing comment. A known id
 *   written as an integer (`permission: 0`) is normalised to its name, so it plans equal to
 *   `permission: Explore alerts`, and export writes the name.
 */
import * as z from 'zod';
import type { ApiClient, Group, GroupInput } from '../api/index.js';
import { PERMISSIONS, permissionById, permissionByName, permissionName } from '../core/domain.js';
import { added, becomes, type ImpactRule, listed, listField, reasonIf } from '../core/impact.js';
import { setOf } from '../core/set-schema.js';
import { didYouMean } from '../core/suggest.js';
import { flag, fromIso, text } from './cells.js';
import {
  attributesById,
  defineGet,
  defineKind,
  idsByName,
  kindObject,
  nonEmptyString,
  REREAD_CONCURRENCY,
  type RemoteRecord,
  type ValueComment,
} from './kind.js';
import { mapLimited, sortedSet } from './normalize.js';

const PERMISSION_NAMES = PERMISSIONS.map((p) => p.name);
const PERMISSION_IDS = PERMISSIONS.map((p) => p.id);
const MIN_ID = PERMISSION_IDS.reduce<number>((a, b) => Math.min(a, b), Number.POSITIVE_INFINITY);
const MAX_ID = PERMISSION_IDS.reduce<number>((a, b) => Math.max(a, b), Number.NEGATIVE_INFINITY);
const ID_RANGE = `${MIN_ID}..${MAX_ID}`;

/** The group Seer Box creates on first start-up and refuses to edit or delete. */
export const ADMINS_GROUP = 'admins';

const ADMINS_REFUSED = `the ${ADMINS_GROUP} group is built into Seer Box and cannot be managed: the server refuses to edit or delete it (its members are administrators); remove it from the file (export lists it as a comment)`;

function unknownPermission(value: string): string {
  const suggestion = didYouMean(value, PERMISSION_NAMES);
  if (suggestion) return `unknown permission "${value}" (did you mean "${suggestion}"?)`;
  return `unknown permission "${value}": expected one of ${PERMISSION_NAMES.join(', ')}, or an integer id (${ID_RANGE} are those names; another id is kept as it is)`;
}

/**
 * A permission as compared, shown and written: the catalog name of a known id, else the id itself
 * (an integer: the server knows permissions the spec does not name).
 */
export type PermissionKey = string | number;

/** The key a permission id is written with: its name when the spec names it, else the id. */
export function permissionKey(id: number): PermissionKey {
  return permissionById(id)?.name ?? id;
}

/** The id to send for a permission key. */
function permissionIdOf(key: PermissionKey): number {
  if (typeof key === 'number') return key;
  const found = permissionByName(key);
  if (found === undefined) throw new Error(`unknown permission name "${key}" in planned attributes`);
  return found.id;
}

/** A catalog name or any id in the file; always the integer id in the loaded model. */
const permissionRef = z
  .union([z.string(), z.int().min(0)], { error: 'expected a permission name or an integer id >= 0' })
  .transform((value, ctx) => {
    if (typeof value === 'number') return value;
    const found = permissionByName(value);
    if (found) return found.id;
    ctx.addIssue({ code: 'custom', message: unknownPermission(value), input: value });
    return z.NEVER;
  })
  // The union above is loose so that a typo gets a "did you mean"; editors get the exact choices.
  .meta({
    description: `A permission, by catalog name or by id (ids ${ID_RANGE} are the named ones; another id is one the server knows and wafctl does not, kept as it is).`,
    anyOf: [
      { type: 'string', enum: PERMISSION_NAMES },
      { type: 'integer', minimum: 0 },
    ],
  });

const permissionEntry = z.strictObject({
  permission: permissionRef,
  service_id: z.string().default('').meta({ description: 'Service the permission applies to; "" for all.' }),
});

/** A set of permissions, a duplicate named by its permission and service. */
const permissionSet = setOf(permissionEntry, 'permission', {
  label: (p) =>
    `"${permissionName(p.permission)}"${p.service_id === '' ? '' : ` for service "${p.service_id}"`}`,
});

const groupName = nonEmptyString
  .refine((name) => name !== ADMINS_GROUP, { message: ADMINS_REFUSED, abort: true })
  .meta({ description: 'Group name (natural key); not "admins", which is built in and read-only.' });

export const groupSchema = kindObject(
  { name: groupName },
  {
    description: z.string().default(''),
    is_admin: z.boolean().default(false),
    permissions: permissionSet.default([]),
    users: setOf(nonEmptyString, 'user').default([]).meta({
      description:
        "The members, by username or user id (a known id wins); resolved to ids through the server's user listing before planning.",
    }),
  },
);

/**
 * A group as compared and shown: permissions by catalog name (or id, unknown ones), members by user
 * id (a file's usernames are resolved by refresh before planning: `userFields`), both sets.
 */
interface GroupAttributes {
  [field: string]: unknown;
  name: string;
  description: string;
  is_admin: boolean;
  permissions: PermissionEntry[];
  users: string[];
}

interface PermissionEntry {
  permission: PermissionKey;
  service_id: string;
}

/** A file's permissions as compared: by catalog name (or id, unknown ones), sorted. */
function permissionAttributes(permissions: readonly z.output<typeof permissionEntry>[]): PermissionEntry[] {
  return sortedSet(
    permissions.map((p) => ({ permission: permissionKey(p.permission), service_id: p.service_id })),
  );
}

function normalize(group: Group): GroupAttributes {
  return {
    name: group.name,
    description: group.description ?? '',
    is_admin: group.is_admin ?? false,
    permissions: sortedSet(
      (group.permissions ?? []).map((p) => ({
        permission: permissionKey(p.permission_id),
        service_id: p.service_id,
      })),
    ),
    users: sortedSet((group.users ?? []).map((u) => u.id)),
  };
}

/**
 * The server's names of the permissions wafctl does not know, as trailing comments
 * (`permission: 7 # Handle firewalls`), at their index in the sorted attributes.
 */
function unknownPermissionComments(group: Group, attributes: GroupAttributes): ValueComment[] {
  const comments: ValueComment[] = [];
  attributes.permissions.forEach((entry, index) => {
    if (typeof entry.permission !== 'number') return;
    const served = (group.permissions ?? []).find(
      (p) => p.permission_id === entry.permission && p.service_id === entry.service_id,
    );
    const name = served?.permission_name?.trim();
    const text = name ? `${name} (not in wafctl's catalog)` : "not in wafctl's catalog";
    comments.push({ path: ['permissions', index, 'permission'], text });
  });
  return comments;
}

/** `built in, read-only (members: admin)`: what export says of the admins group. */
function builtInNote(group: Group): string {
  const members = (group.users ?? []).map((u) => u.username || u.id).sort();
  return `built in, read-only (${members.length === 0 ? 'no members' : `members: ${members.join(', ')}`})`;
}

/** The usernames the group's record gives its members, by id (RemoteRecord `usernames`), if it gives any. */
function usernamesOf(group: Group): { usernames?: ReadonlyMap<string, string> } {
  const named = (group.users ?? []).filter((user) => user.username !== '');
  return named.length === 0 ? {} : { usernames: new Map(named.map((user) => [user.id, user.username])) };
}

/** Planned attributes -> the API's group body (the whole group: PUT has the same shape as POST). */
function toInput(a: GroupAttributes): GroupInput {
  return {
    name: a.name,
    description: a.description,
    is_admin: a.is_admin,
    permissions: a.permissions.map((p) => ({
      permission_id: permissionIdOf(p.permission),
      service_id: p.service_id,
    })),
    user_ids: a.users,
  };
}

/**
 * ISO 8601 -> UNIX milliseconds; undefined when absent or unreadable (then ids decide which is oldest,
 * and a drift report says nothing of when it changed).
 */
function epochMs(iso: string | undefined): number | undefined {
  const ms = iso === undefined ? Number.NaN : Date.parse(iso);
  return Number.isNaN(ms) ? undefined : ms;
}

/** The groups `listed`, each hydrated with a GET-one (the list has no permissions or members). */
async function hydrate(
  api: ApiClient,
  listed: readonly Group[],
  concurrency: number,
): Promise<RemoteRecord<GroupAttributes>[]> {
  const hydrated = await mapLimited(listed, concurrency, (row) => api.groups.get(row.id));
  return hydrated.map((group) => {
    const attributes = normalize(group);
    const comments = unknownPermissionComments(group, attributes);
    return {
      id: group.id,
      key: group.name,
      attributes,
      createdAt: epochMs(group.created_at),
      // A group names nobody as its last editor: only when (`updated_at`) is known.
      changedAt: epochMs(group.updated_at),
      ...(group.name === ADMINS_GROUP ? { readOnly: builtInNote(group) } : {}),
      ...(comments.length > 0 ? { comments } : {}),
      ...usernamesOf(group),
    };
  });
}

/**
 * `Handle rules (service svc-shop)`, or `(all services)` for the empty service id; an id wafctl
 * does not know is `permission 7 (all services)`.
 */
const permissionLabel = (p: PermissionEntry) =>
  `${typeof p.permission === 'number' ? `permission ${p.permission}` : p.permission} (${p.service_id === '' ? 'all services' : `service ${p.service_id}`})`;

/**
 * What a group change does to access: more power for its members, or more members (said to be added
 * to an administrator group when the group is one after the change: they become administrators).
 * Losing members or permissions, and deleting a group, take access away: neutral.
 */
const groupImpact: readonly ImpactRule[] = [
  { class: 'broadens_access', reasons: (s) => reasonIf(becomes(s, 'is_admin', true), 'made administrator') },
  {
    class: 'broadens_access',
    reasons: (s) =>
      listed(
        'permission added',
        'permissions added',
        added(s, (g) => listField<PermissionEntry>(g, 'permissions')).map(permissionLabel),
      ),
  },
  {
    class: 'broadens_access',
    // Why it matters: a member of an administrator group is an administrator.
    reasons: (s, context) => {
      const admin = s.after?.is_admin === true ? ' to an administrator group' : '';
      const label = context.userLabel ?? ((id: string) => id);
      return listed(
        `member added${admin}`,
        `members added${admin}`,
        added(s, (g) => listField<string>(g, 'users')).map(label),
      );
    },
  },
];

/**
 * `admins:` (a top-level section): what the built-in administrators group is expected to be. Checked
 * by plan, drift and compare (a difference is read-only drift; a member added broadens access),
 * never written. Without it, the group is expected to hold the built-in `admin` user alone, so a
 * user added by hand is caught.
 */
const adminsExpectation = z
  .strictObject({
    users: setOf(nonEmptyString, 'user').optional().meta({
      description:
        'The expected administrators, by username or user id; default: the built-in admin user alone.',
    }),
    description: z.string().optional(),
    permissions: permissionSet.optional(),
  })
  .meta({
    description:
      'What the built-in admins group is expected to hold: checked by plan, drift and compare (read-only drift), never written.',
  });

/** The user Seer Box creates with the `admins` group, its only member on a new firewall. */
const BUILT_IN_ADMIN = 'admin';

export const groupsKind = defineKind({
  name: 'group',
  section: 'groups',
  noun: 'group',
  keyFields: ['name'],
  schema: groupSchema,
  immutable: [],
  userFields: ['users'],
  expectation: {
    section: ADMINS_GROUP,
    key: ADMINS_GROUP,
    schema: adminsExpectation,
    defaults: { users: [BUILT_IN_ADMIN] },
    attributes: (expected) => {
      const { users, description, permissions } = adminsExpectation.parse(expected);
      return {
        ...(users === undefined ? {} : { users: sortedSet(users) }),
        ...(description === undefined ? {} : { description }),
        ...(permissions === undefined ? {} : { permissions: permissionAttributes(permissions) }),
      };
    },
  },
  attributes: (group): GroupAttributes => ({
    name: group.name,
    description: group.description,
    is_admin: group.is_admin,
    permissions: permissionAttributes(group.permissions),
    users: sortedSet(group.users),
  }),
  fetchAll: async (api, { concurrency }) => hydrate(api, await api.groups.list(), concurrency),
  impact: groupImpact,
  writer: {
    bulkCreate: false,
    bulkUpdate: false,
    bulkDelete: false,
    deletesFirst: true,
    async create({ api }, objects) {
      const ids: string[] = [];
      for (const object of objects) ids.push((await api.groups.create(toInput(object))).id);
      return ids;
    },
    async update({ api }, changes) {
      for (const change of changes) await api.groups.update(change.id, toInput(change.after));
    },
    async delete({ api }, ids) {
      for (const id of ids) await api.groups.delete(id);
    },
    ...idsByName(async (api) => (await api.groups.list()).map((g) => ({ id: g.id, key: g.name }))),
    async current({ api }, ids) {
      // Listed first: a GET-one of a deleted group is a 400 like any other refusal.
      const wanted = new Set(ids);
      const listed = (await api.groups.list()).filter((g) => wanted.has(g.id));
      return attributesById(await hydrate(api, listed, REREAD_CONCURRENCY), ids);
    },
  },
  get: defineGet<Group>({
    columns: [
      { header: 'ID', cell: (g) => g.id },
      { header: 'NAME', cell: (g) => g.name },
      { header: 'ADMIN', cell: (g) => flag(g.is_admin) },
      { header: 'DESCRIPTION', cell: (g) => text(g.description) },
      { header: 'CREATED', cell: (g) => fromIso(g.created_at) },
      { header: 'UPDATED', cell: (g) => fromIso(g.updated_at) },
    ],
    list: (api, filters) => api.iterateWithFilters('groups', filters),
    // The listing has no permissions and no members.
    complete: (api, row) => api.groups.get(row.id),
    find: {
      by: 'id',
      one: (api, id) => api.groups.get(id),
      named: async (api, name) => {
        const group = (await api.groups.list()).find((g) => g.name === name);
        return group === undefined ? undefined : api.groups.get(group.id);
      },
    },
  }),
});
