/**
 * Groups: keyed by name. The list endpoint returns groups without permissions and members, so every
 * group costs one GET-one to hydrate: the API offers nothing cheaper.
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
} from './kind.js';
import { mapLimited, sortedSet } from './normalize.js';

const PERMISSION_NAMES = PERMISSIONS.map((p) => p.name);
const PERMISSION_IDS = PERMISSIONS.map((p) => p.id);
const MIN_ID = PERMISSION_IDS.reduce<number>((a, b) => Math.min(a, b), Number.POSITIVE_INFINITY);
const MAX_ID = PERMISSION_IDS.reduce<number>((a, b) => Math.max(a, b), Number.NEGATIVE_INFINITY);
const ID_RANGE = `${MIN_ID}..${MAX_ID}`;

function unknownPermission(value: string | number): string {
  if (typeof value === 'number') {
    return `unknown permission id ${value}: expected ${ID_RANGE}`;
  }
  const suggestion = didYouMean(value, PERMISSION_NAMES);
  if (suggestion) return `unknown permission "${value}" (did you mean "${suggestion}"?)`;
  return `unknown permission "${value}": expected one of ${PERMISSION_NAMES.join(', ')}, or an id ${ID_RANGE}`;
}

/** A catalog name or id in the file; always the integer id in the loaded model. */
const permissionRef = z
  .union([z.string(), z.int()], { error: `expected a permission name or an id ${ID_RANGE}` })
  .transform((value, ctx) => {
    const found = typeof value === 'number' ? permissionById(value) : permissionByName(value);
    if (found) return found.id;
    ctx.addIssue({ code: 'custom', message: unknownPermission(value), input: value });
    return z.NEVER;
  })
  // The union above is loose so that a typo gets a "did you mean"; editors get the exact choices.
  .meta({
    description: 'A permission of the catalog, by name or by id.',
    anyOf: [
      { type: 'string', enum: PERMISSION_NAMES },
      { type: 'integer', minimum: MIN_ID, maximum: MAX_ID },
    ],
  });

const permissionEntry = z.strictObject({
  permission: permissionRef,
  service_id: z.string().default('').meta({ description: 'Service the permission applies to; "" for all.' }),
});

export const groupSchema = kindObject(
  { name: nonEmptyString.meta({ description: 'Group name (natural key).' }) },
  {
    description: z.string().default(''),
    is_admin: z.boolean().default(false),
    permissions: setOf(permissionEntry, 'permission', {
      label: (p) =>
        `"${permissionName(p.permission)}"${p.service_id === '' ? '' : ` for service "${p.service_id}"`}`,
    }).default([]),
    users: setOf(nonEmptyString, 'user').default([]).meta({ description: 'User ids of the members.' }),
  },
);

/** A group as compared and shown: permissions by catalog name, members by user id, both sets. */
type GroupAttributes = ReturnType<typeof normalize>;

function normalize(group: Group) {
  return {
    name: group.name,
    description: group.description ?? '',
    is_admin: group.is_admin ?? false,
    permissions: sortedSet(
      (group.permissions ?? []).map((p) => ({
        permission: permissionName(p.permission_id),
        service_id: p.service_id,
      })),
    ),
    users: sortedSet((group.users ?? []).map((u) => u.id)),
  };
}

/** Planned attributes -> the API's group body (the whole group: PUT has the same shape as POST). */
function toInput(a: GroupAttributes): GroupInput {
  return {
    name: a.name,
    description: a.description,
    is_admin: a.is_admin,
    permissions: a.permissions.map((p) => ({
      permission_id: permissionByName(p.permission)?.id ?? Number(p.permission),
      service_id: p.service_id,
    })),
    user_ids: a.users,
  };
}

/** ISO 8601 -> milliseconds; undefined when absent or unreadable (then ids decide which is oldest). */
function createdAt(iso: string | undefined): number | undefined {
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
  return hydrated.map((group) => ({
    id: group.id,
    key: group.name,
    attributes: normalize(group),
    createdAt: createdAt(group.created_at),
  }));
}

type PermissionEntry = GroupAttributes['permissions'][number];

/** `Handle rules (service svc-shop)`, or `(all services)` for the empty service id. */
const permissionLabel = (p: PermissionEntry) =>
  `${p.permission} (${p.service_id === '' ? 'all services' : `service ${p.service_id}`})`;

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
    reasons: (s) => {
      const admin = s.after?.is_admin === true ? ' to an administrator group' : '';
      return listed(
        `member added${admin}`,
        `members added${admin}`,
        added(s, (g) => listField<string>(g, 'users')),
      );
    },
  },
];

export const groupsKind = defineKind({
  name: 'group',
  section: 'groups',
  noun: 'group',
  keyFields: ['name'],
  schema: groupSchema,
  immutable: [],
  attributes: (group): GroupAttributes => ({
    name: group.name,
    description: group.description,
    is_admin: group.is_admin,
    permissions: sortedSet(
      group.permissions.map((p) => ({ permission: permissionName(p.permission), service_id: p.service_id })),
    ),
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
      for (const object of objects) await api.groups.create(toInput(object));
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
