/**
 * The network-rule settings: `GET /api/v1/settings/rules` and `PUT /api/v1/settings/rules`
 * (https://docs.seerbox.it/api/settings/network_rules). One object that always exists: it is read
 * and updated, never created or deleted. A PUT sends only the fields to change (`automation` may
 * hold only some of its fields) and answers the updated settings.
 */
import { z } from 'zod';
import { type ClientContext, call } from './context.js';
import { underKey } from './envelope.js';

export const networkRuleSettingsSchema = z.object({
  automation: z.object({
    default_duration_minutes: z.number(),
    enable: z.boolean(),
    update_firewall: z.boolean(),
    /** "List of IP addresses authorised to access services and resources" (addresses or CIDR networks). */
    whitelist: z.array(z.string()),
  }),
  /** What happens to a network rule when it expires (`delete`, `disable`). */
  expire_strategy: z.string(),
});
export type NetworkRuleSettings = z.output<typeof networkRuleSettingsSchema>;

/** A PUT's body: the fields to change. */
export interface NetworkRuleSettingsUpdate {
  automation?: Partial<NetworkRuleSettings['automation']>;
  expire_strategy?: string;
}

export interface NetworkRuleSettingsApi {
  get(): Promise<NetworkRuleSettings>;
  /** Resolves with the settings after the update. */
  update(changes: NetworkRuleSettingsUpdate): Promise<NetworkRuleSettings>;
}

const PATH = '/api/v1/settings/rules';
const settingsData = underKey('settings', networkRuleSettingsSchema);

/** The network-rule settings' endpoints (`/api/v1/settings/rules`). */
export function networkRuleSettingsApi(ctx: ClientContext): NetworkRuleSettingsApi {
  return {
    get: async () => call(ctx, { method: 'GET', path: PATH }, settingsData),
    update: async (changes) =>
      call(ctx, { method: 'PUT', path: PATH, contentType: 'application/json', body: changes }, settingsData),
  };
}
