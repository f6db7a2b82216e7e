/** Notification systems: keyed by name, which is also their path key in the API (they have no id). */
import type { Notification } from '../api/index.js';
import type { Kind } from './kind.js';

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

export const notificationsKind: Kind<'notifications'> = {
  name: 'notification',
  section: 'notifications',
  immutable: [],
  key: (notification) => notification.name,
  attributes: attributesOf,
  async fetchAll(api) {
    const listed = await api.notifications.list();
    return listed.map((n) => ({ id: n.name, key: n.name, attributes: attributesOf(n) }));
  },
};
