import { z } from 'zod';
import { type ClientContext, call } from './context.js';
import { underKey } from './envelope.js';
import { type Notification, notificationSchema } from './records.js';
import { pathSegment } from './url.js';

export interface NotificationSettingsInput {
  destination_address: string;
  destination_port: number;
  format: string;
  protocol: string;
}

export interface NotificationInput {
  name: string;
  enabled: boolean;
  type: string;
  settings: NotificationSettingsInput;
}

/** The name is the path key and is not changed by an update. */
export interface NotificationUpdate {
  enabled?: boolean;
  type?: string;
  settings?: Partial<NotificationSettingsInput>;
}

export interface NotificationsApi {
  list(): Promise<Notification[]>;
  get(name: string): Promise<Notification>;
  create(notification: NotificationInput): Promise<Notification>;
  update(name: string, attrs: NotificationUpdate): Promise<Notification>;
  /** Resolves with the deleted notification. */
  delete(name: string): Promise<Notification>;
}

const BASE = '/api/v1/settings/notifications';
const namePath = (name: string) => `${BASE}/${pathSegment(name, 'notification name')}`;

const listData = underKey('notifications', z.array(notificationSchema));
const oneData = underKey('notification', notificationSchema);

/** The notifications' endpoints (`/api/v1/settings/notifications`). */
export function notificationsApi(ctx: ClientContext): NotificationsApi {
  return {
    list: async () => call(ctx, { method: 'GET', path: BASE }, listData),
    get: async (name) => call(ctx, { method: 'GET', path: namePath(name) }, oneData),
    create: async (notification) =>
      call(
        ctx,
        { method: 'POST', path: BASE, contentType: 'application/json', body: { notification } },
        oneData,
      ),
    update: async (name, attrs) =>
      call(
        ctx,
        { method: 'PUT', path: namePath(name), contentType: 'application/json', body: { attrs } },
        oneData,
      ),
    delete: async (name) => call(ctx, { method: 'DELETE', path: namePath(name) }, oneData),
  };
}
