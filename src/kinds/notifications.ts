/** Notification systems: keyed by name, which is also their path key in the API (they have no id). */
import type { ApiClient, Notification, NotificationInput, NotificationUpdate } from '../api/index.js';
import { differs, type ImpactRule, type ImpactSubject, reasonIf, shown, turned } from '../core/impact.js';
import type { Attributes } from '../core/model.js';
import { attributesById, idsByName, type Kind, type RemoteRecord } from './kind.js';

type NotificationFields = Pick<Notification, 'name' | 'type' | 'enabled' | 'settings'>;

function attributesOf(n: NotificationFields) {
  const { destination_address, destination_port, format, protocol } = n.settings;
  return {
    name: n.name,
    type: n.type,
    enabled: n.enabled,
    settings: { destination_address, destination_port, format, protocol },
  };
}

async function fetchAll(api: ApiClient): Promise<RemoteRecord[]> {
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

export const notificationsKind: Kind<'notifications'> = {
  name: 'notification',
  section: 'notifications',
  immutable: [],
  attributes: attributesOf,
  fetchAll,
  keyOf: (attributes) => String(attributes.name),
  impact: notificationImpact,
  writer: {
    bulkCreate: false,
    bulkUpdate: false,
    bulkDelete: false,
    deletesFirst: true,
    async create({ api }, objects) {
      for (const object of objects)
        await api.notifications.create(attributesOf(object as unknown as NotificationInput));
    },
    async update({ api }, changes) {
      // Only the changed fields; `settings` is sent whole (as planned), never half of it.
      for (const change of changes)
        await api.notifications.update(change.id, change.after as NotificationUpdate);
    },
    async delete({ api }, ids) {
      for (const name of ids) await api.notifications.delete(name);
    },
    ...idsByName(fetchAll),
    current: async ({ api }, names) => attributesById(await fetchAll(api), names),
  },
};
