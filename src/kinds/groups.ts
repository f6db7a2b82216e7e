/**
 * Groups: keyed by name. The list endpoint returns groups without permissions and members, so every
 * group costs one GET-one to hydrate: the API offers nothing cheaper.
 */
import type { ApiClient, Group, GroupInput } from '../api/index.js';
import { permissionByName, permissionName } from '../core/domain.js';
import { added, becomes, type ImpactRule, listed, listField, reasonIf } from '../core/impact.js';
import type { Attributes } from '../core/model.js';
import { attributesById, idsByName, type Kind, REREAD_CONCURRENCY, type RemoteRecord } from './kind.js';
import { mapLimited, sortedSet } from './normalize.js';

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
function toInput(attributes: Attributes): GroupInput {
  const a = attributes as ReturnType<typeof normalize>;
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
): Promise<RemoteRecord[]> {
  const hydrated = await mapLimited(listed, concurrency, (row) => api.groups.get(row.id));
  return hydrated.map((group) => ({
    id: group.id,
    key: group.name,
    attributes: normalize(group),
    createdAt: createdAt(group.created_at),
  }));
}

type GroupAttributes = ReturnType<typeof normalize>;
type PermissionEntry = GroupAttributes['permissions'][number];

/** `Handle rules (service svc-shop)`, or `(all services)` for the empty service id. */
const permissionLabel = (p: PermissionEntry) =>
  `${p.permission} (${p.service_id === '' ? 'all services' : `service ${p.service_id}`})`;

/**
 * What a group change does to access: more power for its members, or more members. Losing members
 * or permissions, and deleting a group, take access away: neutral.
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
    reasons: (s) =>
      listed(
        'member added',
        'members added',
        added(s, (g) => listField<string>(g, 'users')),
      ),
  },
];

export const groupsKind: Kind<'groups'> = {
  name: 'group',
  section: 'groups',
  immutable: [],
  attributes: (group) => ({
    name: group.name,
    description: group.description,
    is_admin: group.is_admin,
    permissions: sortedSet(
      group.permissions.map((p) => ({ permission: permissionName(p.permission), service_id: p.service_id })),
    ),
    users: sortedSet(group.users),
  }),
  fetchAll: async (api, { concurrency }) => hydrate(api, await api.groups.list(), concurrency),
  keyOf: (attributes) => String(attributes.name),
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
      for (const change of changes) await api.groups.update(change.id, toInput(change.target));
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
};
