/** Notification systems: keyed by name, which is also their path key in the API (they have no id). */
import * as z from 'zod';
import type { ApiClient, Notification } from '../api/index.js';
import {
  isIpAddress,
  NOTIFICATION_FORMATS,
  NOTIFICATION_PROTOCOLS,
  NOTIFICATION_TYPES,
} from '../core/domain.js';
import { differs, type ImpactRule, type ImpactSubject, reasonIf, shown, turned } from '../core/impact.js';
import type { Attributes } from '../core/model.js';
import { endpoint, flag } from './cells.js';
import {
  attributesById,
  changedValues,
  defineGet,
  defineKind,
  idsByName,
  kindObject,
  nonEmptyString,
  type RemoteRecord,
} from './kind.js';

const ipAddress = z
  .string()
  .refine(isIpAddress, {
    error: (issue) => `expected an IPv4 or IPv6 address, got ${JSON.stringify(issue.input)}`,
  })
  .meta({ description: 'IPv4 or IPv6 address the logs are sent to.' });
// Bounds zod knows (not a refinement): validation says `expected an integer from 1 to 65535, got
// 70000`, once per value, and the editor schema carries them.
const port = z.int().min(1).max(65535);

export const notificationSchema = kindObject(
  {
    name: nonEmptyString
      // The name is the notification's path segment, and URL parsers resolve these even encoded.
      .refine((name) => name !== '.' && name !== '..', {
        error: (issue) =>
          `${JSON.stringify(issue.input)} cannot name a notification: the API addresses notifications by name in the URL path, where it means a directory`,
      })
      .meta({ description: 'Notification name (natural key); not "." or "..".' }),
  },
  {
    type: z.enum(NOTIFICATION_TYPES).default('siem'),
    enabled: z.boolean().default(true),
    settings: z.strictObject({
      destination_address: ipAddress,
      destination_port: port,
      format: z.enum(NOTIFICATION_FORMATS),
      protocol: z.enum(NOTIFICATION_PROTOCOLS),
    }),
  },
);

type NotificationFields = Pick<Notification, 'name' | 'type' | 'enabled' | 'settings'>;

/** A notification as compared and shown: the API's fields, settings without server extras. */
type NotificationAttributes = ReturnType<typeof attributesOf>;

function attributesOf(n: NotificationFields) {
  const { destination_address, destination_port, format, protocol } = n.settings;
  return {
    name: n.name,
    type: n.type,
    enabled: n.enabled,
    settings: { destination_address, destination_port, format, protocol },
  };
}

async function fetchAll(api: ApiClient): Promise<RemoteRecord<NotificationAttributes>[]> {
  const listed = await api.notifications.list();
  return listed.map((n) => ({ id: n.name, key: n.name, attributes: attributesOf(n) }));
}

/** A disabled notification sends nothing: deleting or redirecting it loses no audit trail. */
const isEnabled = (n: Attributes | undefined): n is Attributes => n !== undefined && n.enabled !== false;

/** Where the logs go; `format` only changes how they read, so it is not here. */
const DESTINATION = ['destination_address', 'destination_port', 'protocol'] as const;
const setting = (n: Attributes, field: string): unknown =>
  (n.settings as Record<string, unknown> | undefined)?.[field];

/** `redirected: destination_address 10.0.0.5 -> 10.0.0.9`, one reason per field that moved. */
function redirected(subject: ImpactSubject): string[] {
  const { before, after } = subject;
  if (!isEnabled(before) || !isEnabled(after)) return [];
  return DESTINATION.filter((field) => differs(subject, (n) => setting(n, field))).map(
    (field) => `redirected: ${field} ${shown(setting(before, field))} -> ${shown(setting(after, field))}`,
  );
}

/** What a notification change does to the audit trail the SIEM receives. */
const notificationImpact: readonly ImpactRule[] = [
  {
    class: 'reduces_audit',
    reasons: (s) => reasonIf(s.action === 'delete' && isEnabled(s.before), 'deleted'),
  },
  {
    class: 'reduces_audit',
    reasons: (s) => reasonIf(turned(s, 'enabled', true, false), 'disabled (enabled: true -> false)'),
  },
  { class: 'reduces_audit', reasons: redirected },
];

export const notificationsKind = defineKind({
  name: 'notification',
  section: 'notifications',
  noun: 'notification',
  keyFields: ['name'],
  schema: notificationSchema,
  immutable: [],
  // The name is the path key: PUT .../notifications/{notification_name} takes attrs without it.
  fixedKeyFields: ['name'],
  attributes: attributesOf,
  fetchAll,
  impact: notificationImpact,
  writer: {
    bulkCreate: false,
    bulkUpdate: false,
    bulkDelete: false,
    deletesFirst: true,
    async create({ api }, objects) {
      // A notification's id is its name (the path key).
      const ids: string[] = [];
      for (const object of objects) ids.push((await api.notifications.create(object)).name);
      return ids;
    },
    async update({ api }, changes) {
      // Only the changed fields; `settings` is sent whole (as planned), never half of it.
      for (const change of changes) await api.notifications.update(change.id, changedValues(change));
    },
    async delete({ api }, ids) {
      for (const name of ids) await api.notifications.delete(name);
    },
    ...idsByName(fetchAll),
    current: async ({ api }, names) => attributesById(await fetchAll(api), names),
  },
  get: defineGet<Notification>({
    columns: [
      { header: 'NAME', cell: (n) => n.name },
      { header: 'TYPE', cell: (n) => n.type },
      { header: 'ENABLED', cell: (n) => flag(n.enabled) },
      {
        header: 'DESTINATION',
        cell: (n) => endpoint(n.settings.destination_address, n.settings.destination_port),
      },
      { header: 'FORMAT', cell: (n) => n.settings.format },
      { header: 'PROTOCOL', cell: (n) => n.settings.protocol },
    ],
    list: (api, filters) => api.iterateWithFilters('notifications', filters),
    // Keyed by name: the name is the only way to address one.
    find: { by: 'name', one: (api, name) => api.notifications.get(name) },
  }),
});
