/** /api/v1/settings/notifications: administrators only; the name is the path key and never changes. */
import { z } from 'zod';
import { NOTIFICATION_FORMATS, NOTIFICATION_PROTOCOLS, NOTIFICATION_TYPES } from '../../core/domain.js';
import { NOTIFICATIONS } from '../collections.js';
import type { Notification } from '../records.js';
import { changed, fail, ok, type Route, type RouteContext, type RouteResult } from '../router.js';
import { ipAddress, nameText, paramProblems, parseWith, port } from '../validation.js';

const MESSAGES = {
  list: 'List of notifications',
  retrieved: 'Notification retrieved',
  retrieveError: 'Error retrieving notifications',
  created: 'Notification created',
  createError: 'Error creating notification',
  updated: 'Notification updated',
  updateError: 'Error updating notification',
  deleted: 'Notification deleted',
  deleteError: 'Error deleting notification',
} as const;

const settingsSchema = z.strictObject({
  destination_address: ipAddress,
  destination_port: port,
  format: z.enum(NOTIFICATION_FORMATS),
  protocol: z.enum(NOTIFICATION_PROTOCOLS),
});
const createBody = z.strictObject({
  notification: z.strictObject({
    name: nameText,
    enabled: z.boolean(),
    type: z.enum(NOTIFICATION_TYPES),
    settings: settingsSchema,
  }),
});
const updateBody = z.strictObject({
  attrs: z
    .strictObject({
      name: nameText,
      enabled: z.boolean(),
      type: z.enum(NOTIFICATION_TYPES),
      settings: settingsSchema.partial(),
    })
    .partial(),
});

function create({ body, store }: RouteContext): RouteResult {
  const parsed = parseWith(createBody, body);
  if (!parsed.ok) return fail(MESSAGES.createError, parsed.errors);
  const notification: Notification = parsed.value.notification;
  if (store.collection(NOTIFICATIONS).has(notification.name)) {
    return fail(MESSAGES.createError, [
      `notification.name: a notification named '${notification.name}' exists`,
    ]);
  }
  store.collection(NOTIFICATIONS).set(notification.name, notification);
  return changed(MESSAGES.created, { notification });
}

function update({ body, store, params }: RouteContext): RouteResult {
  const name = params.notification_name ?? '';
  const malformed = paramProblems('notification_name', name);
  if (malformed.length > 0) return fail(MESSAGES.updateError, malformed);
  const current = store.collection(NOTIFICATIONS).get(name);
  if (current === undefined)
    return fail(MESSAGES.updateError, [`notification_name: no notification named '${name}'`]);
  const parsed = parseWith(updateBody, body);
  if (!parsed.ok) return fail(MESSAGES.updateError, parsed.errors);
  const attrs = parsed.value.attrs;
  if (attrs.name !== undefined && attrs.name !== name) {
    return fail(MESSAGES.updateError, ['attrs.name: the name is the path key and cannot be changed']);
  }
  const updated: Notification = {
    name,
    enabled: attrs.enabled ?? current.enabled,
    type: attrs.type ?? current.type,
    // JSON has no `undefined`, so a field absent from attrs.settings keeps its current value.
    settings: { ...current.settings, ...attrs.settings },
  };
  store.collection(NOTIFICATIONS).set(name, updated);
  return changed(MESSAGES.updated, { notification: updated });
}

const COLLECTION = '/api/v1/settings/notifications';
const ONE = `${COLLECTION}/{notification_name}`;

export const notificationRoutes: Route[] = [
  {
    method: 'GET',
    template: COLLECTION,
    privilege: 'notifications',
    body: 'none',
    errorMessage: MESSAGES.retrieveError,
    handle: ({ store }) =>
      ok(MESSAGES.list, { notifications: [...store.collection(NOTIFICATIONS).values()] }),
  },
  {
    method: 'GET',
    template: ONE,
    privilege: 'notifications',
    body: 'none',
    errorMessage: MESSAGES.retrieveError,
    handle: ({ store, params }) => {
      const name = params.notification_name ?? '';
      const malformed = paramProblems('notification_name', name);
      if (malformed.length > 0) return fail(MESSAGES.retrieveError, malformed);
      const notification = store.collection(NOTIFICATIONS).get(name);
      if (notification === undefined) {
        return fail(MESSAGES.retrieveError, [`notification_name: no notification named '${name}'`]);
      }
      return ok(MESSAGES.retrieved, { notification });
    },
  },
  {
    method: 'POST',
    template: COLLECTION,
    privilege: 'notifications',
    body: 'json',
    errorMessage: MESSAGES.createError,
    handle: create,
  },
  {
    method: 'PUT',
    template: ONE,
    privilege: 'notifications',
    body: 'json',
    errorMessage: MESSAGES.updateError,
    handle: update,
  },
  {
    method: 'DELETE',
    template: ONE,
    privilege: 'notifications',
    body: 'none',
    errorMessage: MESSAGES.deleteError,
    handle: ({ store, params }) => {
      const name = params.notification_name ?? '';
      const malformed = paramProblems('notification_name', name);
      if (malformed.length > 0) return fail(MESSAGES.deleteError, malformed);
      const notification = store.collection(NOTIFICATIONS).get(name);
      if (notification === undefined) {
        return fail(MESSAGES.deleteError, [`notification_name: no notification named '${name}'`]);
      }
      store.collection(NOTIFICATIONS).delete(name);
      return changed(MESSAGES.deleted, { notification });
    },
  },
];
