/**
 * Groups: keyed by name. The list endpoint returns groups without permissions and members, so every
 * group costs one GET-one to hydrate: the API offers nothing cheaper.
 */
import type { Group } from '../api/index.js';
import { permissionById } from '../domain.js';
import type { Kind } from './kind.js';
import { mapLimited, sortedSet } from './normalize.js';

/** Permissions are shown by catalog name: a reviewer reads "Handle rules", not 1. */
const permissionName = (id: number): string => permissionById(id)?.name ?? String(id);

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

export const groupsKind: Kind<'groups'> = {
  name: 'group',
  section: 'groups',
  immutable: [],
  key: (group) => group.name,
  attributes: (group) => ({
    name: group.name,
    description: group.description,
    is_admin: group.is_admin,
    permissions: sortedSet(
      group.permissions.map((p) => ({ permission: permissionName(p.permission), service_id: p.service_id })),
    ),
    users: sortedSet(group.users),
  }),
  async fetchAll(api, { concurrency }) {
    const listed = await api.groups.list();
    const hydrated = await mapLimited(listed, concurrency, (row) => api.groups.get(row.id));
    return hydrated.map((group) => ({ id: group.id, key: group.name, attributes: normalize(group) }));
  },
};
