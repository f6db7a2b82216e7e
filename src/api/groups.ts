import { z } from 'zod';
import { type ClientContext, call } from './context.js';
import { oneRecord, underEitherKey, underKey } from './envelope.js';
import { type Group, groupSchema } from './records.js';
import { pathSegment } from './url.js';

/** The body's `attrs` for a group create or update. */
export interface GroupInput {
  name: string;
  description?: string;
  is_admin?: boolean;
  /** `service_id` is `""` for "all services" (and for permissions 2 and 3). */
  permissions: { permission_id: number; service_id: string }[];
  user_ids: string[];
}

export interface GroupsApi {
  /** Without permissions and users (the list does not return them). */
  list(): Promise<Group[]>;
  get(id: string): Promise<Group>;
  create(attrs: GroupInput): Promise<Group>;
  /** Same shape as create: the spec does not say whether omitted fields are kept, so none are omitted. */
  update(id: string, attrs: GroupInput): Promise<Group>;
  /** Resolves with the deleted group. */
  delete(id: string): Promise<Group>;
}

const BASE = '/api/v1/groups';
const groupPath = (id: string) => `${BASE}/${pathSegment(id, 'group id')}`;

const listData = underKey('groups', z.array(groupSchema));
// The examples show `data.groups` as a list for get-one and `data.group` for writes; accept both
// keys, each as an object or a one-element array.
const oneData = underEitherKey('group', 'groups', oneRecord(groupSchema));

/** The groups' endpoints (`/api/v1/groups`). */
export function groupsApi(ctx: ClientContext): GroupsApi {
  return {
    list: async () => call(ctx, { method: 'GET', path: BASE }, listData),
    get: async (id) => call(ctx, { method: 'GET', path: groupPath(id) }, oneData),
    create: async (attrs) =>
      call(ctx, { method: 'POST', path: BASE, contentType: 'application/json', body: { attrs } }, oneData),
    update: async (id, attrs) =>
      call(
        ctx,
        { method: 'PUT', path: groupPath(id), contentType: 'application/json', body: { attrs } },
        oneData,
      ),
    // Documented: Content-Type application/json is required although there is no body.
    delete: async (id) =>
      call(ctx, { method: 'DELETE', path: groupPath(id), contentType: 'application/json' }, oneData),
  };
}
