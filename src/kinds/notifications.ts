/** Notification systems: keyed by name, which is also their path key in the API (they have no id). */
import type { ApiClient, Notification, NotificationInput, NotificationUpdate } from '../api/index.js';
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

export const notificationsKind: Kind<'notifications'> = {
  name: 'notification',
  section: 'notifications',
  immutable: [],
  attributes: attributesOf,
  fetchAll,
  keyOf: (attributes) => String(attributes.name),
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
