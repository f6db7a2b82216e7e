/**
 * /api/v1/groups: administrators only. Members must exist in the user directory.
 *
 * The built-in `admins` group (seed.ts) "cannot be edited or deleted"
 * (https://docs.seerbox.it/main/configuration/authentication-and-authorization). The vendor does not
 * say how its API answers such a write; the spec answers every failed group write with a 400 and the
 * endpoint's message, so a PUT or DELETE of it gets that: 400 `Error updating the group.` / `Error
 * deleting the group.`, with the reason in `errors`.
 *
 * Permission ids: the spec's catalog (0..3), and any id a group of the store already holds (a
 * seeded permission the spec does not name, as the real server has more), shown with the name it
 * was seeded with.
 */
import { z } from 'zod';
import { permissionById } from '../../core/domain.js';
import { GROUPS, USERS } from '../collections.js';
import type { Group, StoredPermission } from '../records.js';
import { changed, fail, ok, type Route, type RouteContext, type RouteResult } from '../router.js';
import type { Store } from '../store.js';
import { MAX_LENGTH, nameText, nonEmptyString, parseWith, shortText, text } from '../validation.js';

const MESSAGES = {
  list: 'List of groups',
  retrieved: 'Group retrieved',
  retrieveError: 'Error retrieving group',
  created: 'Group created succesfully',
  createError: 'Error creating new group',
  updated: 'Group updated succesfully',
  updateError: 'Error updating the group.',
  deleted: 'Group deleted succesfully',
  deleteError: 'Error deleting the group.',
} as const;

const permissionInput = z.strictObject({ permission_id: z.int().min(0), service_id: shortText });

export const ADMINS_GROUP = 'admins';

const isBuiltIn = (group: Group) => group.name === ADMINS_GROUP;

function builtInRefusal(group: Group, verb: 'edited' | 'deleted'): string {
  return `id: the ${ADMINS_GROUP} group (id '${group.id}') is built in and cannot be ${verb}`;
}

/**
 * The name of a permission id the server knows: the catalog's, or the one a stored group holds it
 * with (a seeded permission outside the catalog); undefined for an id the server does not know.
 */
function knownPermission(store: Store, id: number): { name: string; description: string } | undefined {
  const catalog = permissionById(id);
  if (catalog) return { name: catalog.name, description: catalog.description };
  for (const group of store.collection(GROUPS).values()) {
    const held = group.permissions.find((p) => p.permission_id === id);
    if (held) return { name: held.permission_name ?? '', description: '' };
  }
  return undefined;
}

const attrsShape = {
  name: nameText,
  description: text(MAX_LENGTH.description),
  is_admin: z.boolean(),
  permissions: z.array(permissionInput),
  user_ids: z.array(nonEmptyString),
};
const createBody = z.strictObject({
  attrs: z.strictObject({
    ...attrsShape,
    description: attrsShape.description.default(''),
    is_admin: attrsShape.is_admin.default(false),
    permissions: attrsShape.permissions.default([]),
    user_ids: attrsShape.user_ids.default([]),
  }),
});
const updateBody = z.strictObject({ attrs: z.strictObject(attrsShape).partial() });

type PermissionInput = z.output<typeof permissionInput>;

function summary(group: Group): Record<string, unknown> {
  const { id, name, description, is_admin, created_at, updated_at } = group;
  return { id, name, description, is_admin, created_at, updated_at };
}

function detail(group: Group, store: Store): Record<string, unknown> {
  return {
    ...summary(group),
    permissions: group.permissions.map((p) => ({
      permission_id: p.permission_id,
      permission_name: permissionById(p.permission_id)?.name ?? p.permission_name ?? '',
      permission_description: permissionById(p.permission_id)?.description ?? '',
      service_id: p.service_id,
      service_name: p.service_id === '' ? 'default' : p.service_id,
      inserted_at: p.inserted_at,
      expired_at: p.expired_at,
    })),
    users: group.user_ids.map((id) => ({ id, username: store.usernameOf(id) })),
  };
}

/** Problems with a group's name, members and permissions; `selfId` is the group being updated, if any. */
function checkReferences(
  store: Store,
  name: string | undefined,
  userIds: readonly string[],
  permissions: readonly PermissionInput[],
  selfId?: string,
) {
  const errors: string[] = [];
  if (name !== undefined) {
    for (const group of store.collection(GROUPS).values()) {
      if (group.name === name && group.id !== selfId)
        errors.push(`attrs.name: a group named '${name}' exists`);
    }
  }
  const users = store.collection(USERS);
  for (const id of userIds) if (!users.has(id)) errors.push(`attrs.user_ids: unknown user id '${id}'`);
  permissions.forEach((p, index) => {
    if (knownPermission(store, p.permission_id) === undefined) {
      errors.push(`attrs.permissions.${index}.permission_id: unknown permission id ${p.permission_id}`);
    }
  });
  return errors;
}

/** Same permission on the same service twice is one permission; entries kept keep their inserted_at. */
function mergePermissions(
  store: Store,
  old: readonly StoredPermission[],
  wanted: readonly PermissionInput[],
  now: string,
) {
  const result: StoredPermission[] = [];
  const key = (p: PermissionInput) => `${p.permission_id}\u0000${p.service_id}`;
  const seen = new Set<string>();
  for (const p of wanted) {
    if (seen.has(key(p))) continue;
    seen.add(key(p));
    const kept = old.find((o) => key(o) === key(p));
    if (kept) {
      result.push(kept);
      continue;
    }
    const fresh: StoredPermission = {
      permission_id: p.permission_id,
      service_id: p.service_id,
      inserted_at: now,
      expired_at: null,
    };
    // Outside the catalog: keep the server's name for it (checkReferences made sure it has one).
    if (permissionById(p.permission_id) === undefined) {
      fresh.permission_name = knownPermission(store, p.permission_id)?.name ?? '';
    }
    result.push(fresh);
  }
  return result;
}

function create({ body, store }: RouteContext): RouteResult {
  const parsed = parseWith(createBody, body);
  if (!parsed.ok) return fail(MESSAGES.createError, parsed.errors);
  const attrs = parsed.value.attrs;
  const errors = checkReferences(store, attrs.name, attrs.user_ids, attrs.permissions);
  if (errors.length > 0) return fail(MESSAGES.createError, errors);
  const now = store.nowIso();
  const group: Group = {
    id: store.nextId('group'),
    name: attrs.name,
    description: attrs.description,
    is_admin: attrs.is_admin,
    created_at: now,
    updated_at: now,
    permissions: mergePermissions(store, [], attrs.permissions, now),
    user_ids: [...new Set(attrs.user_ids)],
  };
  store.collection(GROUPS).set(group.id, group);
  return changed(MESSAGES.created, { group: detail(group, store) });
}

function update({ body, store, params }: RouteContext): RouteResult {
  const group = store.collection(GROUPS).get(params.id ?? '');
  if (group === undefined) return fail(MESSAGES.updateError, [`id: no group with id '${params.id}'`]);
  if (isBuiltIn(group)) return fail(MESSAGES.updateError, [builtInRefusal(group, 'edited')]);
  const parsed = parseWith(updateBody, body);
  if (!parsed.ok) return fail(MESSAGES.updateError, parsed.errors);
  const attrs = parsed.value.attrs;
  const errors = checkReferences(store, attrs.name, attrs.user_ids ?? [], attrs.permissions ?? [], group.id);
  if (errors.length > 0) return fail(MESSAGES.updateError, errors);
  const now = store.nowIso();
  const updated: Group = {
    ...group,
    name: attrs.name ?? group.name,
    description: attrs.description ?? group.description,
    is_admin: attrs.is_admin ?? group.is_admin,
    permissions: attrs.permissions
      ? mergePermissions(store, group.permissions, attrs.permissions, now)
      : group.permissions,
    user_ids: attrs.user_ids ? [...new Set(attrs.user_ids)] : group.user_ids,
    updated_at: now,
  };
  store.collection(GROUPS).set(group.id, updated);
  return changed(MESSAGES.updated, { group: detail(updated, store) });
}

export const groupRoutes: Route[] = [
  {
    method: 'GET',
    template: '/api/v1/groups',
    privilege: 'groups',
    body: 'none',
    errorMessage: MESSAGES.retrieveError,
    handle: ({ store }) => ok(MESSAGES.list, { groups: [...store.collection(GROUPS).values()].map(summary) }),
  },
  {
    method: 'GET',
    template: '/api/v1/groups/{id}',
    privilege: 'groups',
    body: 'none',
    errorMessage: MESSAGES.retrieveError,
    handle: ({ store, params }) => {
      const group = store.collection(GROUPS).get(params.id ?? '');
      if (group === undefined) return fail(MESSAGES.retrieveError, [`id: no group with id '${params.id}'`]);
      return ok(MESSAGES.retrieved, { groups: [detail(group, store)] });
    },
  },
  {
    method: 'POST',
    template: '/api/v1/groups',
    privilege: 'groups',
    body: 'json',
    errorMessage: MESSAGES.createError,
    handle: create,
  },
  {
    method: 'PUT',
    template: '/api/v1/groups/{id}',
    privilege: 'groups',
    body: 'json',
    errorMessage: MESSAGES.updateError,
    handle: update,
  },
  {
    method: 'DELETE',
    template: '/api/v1/groups/{id}',
    privilege: 'groups',
    body: 'json-ignored',
    errorMessage: MESSAGES.deleteError,
    handle: ({ store, params }) => {
      const group = store.collection(GROUPS).get(params.id ?? '');
      if (group === undefined) return fail(MESSAGES.deleteError, [`id: no group with id '${params.id}'`]);
      if (isBuiltIn(group)) return fail(MESSAGES.deleteError, [builtInRefusal(group, 'deleted')]);
      store.collection(GROUPS).delete(group.id);
      return changed(MESSAGES.deleted, { group: detail(group, store) });
    },
  },
];
