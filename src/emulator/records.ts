/**
 * The records the emulator stores, as zod schemas so that one definition gives the TypeScript types,
 * validates seed files, and validates a state file read back from disk (each is a collection's
 * `schema` in the collection table, collections.ts, from which the state file's schema is made).
 * Request bodies have their own (narrower) schemas next to their routes: what a client may send is
 * not what the server stores.
 */
import { z } from 'zod';
import { NOTIFICATION_FORMATS, NOTIFICATION_PROTOCOLS, NOTIFICATION_TYPES } from '../core/domain.js';

const text = z.string().min(1);
const nullableText = z.string().nullable();
const micros = z.int().min(0);

export const userSchema = z.strictObject({ id: text, username: text });
export type User = z.output<typeof userSchema>;

/** Read-only rules. Seed files may omit the descriptive fields; the defaults make a plausible rule. */
export const ruleSchema = z.strictObject({
  id: text,
  action: text,
  alert_id: nullableText.default(null),
  attack_category: nullableText.default(null),
  attack_code: nullableText.default(null),
  attack_name: nullableText.default(null),
  case_sensitive: z.boolean().default(false),
  deleted: z.boolean().default(false),
  description: nullableText.default(null),
  duration: z.int().nullable().default(null),
  enabled: z.boolean().default(true),
  expression: z.strictObject({ type: text, values: z.array(z.string()) }),
  kind: text,
  loaded: z.string().default('false'),
  matching_method: z.string().default('regex'),
  network_only: z.boolean().default(false),
  pattern: nullableText.default(null),
  priority: z.string().default('medium'),
  rq_host: text,
  spec_values: z.record(z.string(), z.unknown()).default({}),
  start_time: micros.nullable().default(null),
  target: text,
  timestamp: micros.default(() => Date.now() * 1000),
  username: z.string().default('seed'),
});
export type Rule = z.output<typeof ruleSchema>;
export type SeedRule = z.input<typeof ruleSchema>;

/**
 * A permission of a group. The id is the spec's catalog (0..3) or a permission the real server has
 * and the spec does not name (seeded, see seed.ts): then `permission_name` is the name the server
 * shows for it (the catalog's name is shown for a catalog id).
 */
export const storedPermissionSchema = z.strictObject({
  permission_id: z.int().min(0),
  service_id: z.string(),
  inserted_at: text,
  expired_at: nullableText,
  permission_name: z.string().optional(),
});
export type StoredPermission = z.output<typeof storedPermissionSchema>;

/** Members are stored by id; usernames are looked up in the directory when a group is shown. */
export const groupSchema = z.strictObject({
  id: text,
  name: text,
  description: z.string(),
  is_admin: z.boolean(),
  created_at: text,
  updated_at: text,
  permissions: z.array(storedPermissionSchema),
  user_ids: z.array(text),
});
export type Group = z.output<typeof groupSchema>;

/**
 * `sync_status` is the outcome of the action's sync; `sync_due`, when the outcome is reached (until
 * then the API shows `pending`; never shown itself). Absent in records written before it, and when
 * there is no sync delay: the outcome stands (sync.ts).
 */
export const ruleActionSchema = z.strictObject({
  application_rule_id: text,
  firewall_action: text,
  firewall_name: text,
  sync_status: text,
  sync_due: micros.optional(),
});
export type RuleAction = z.output<typeof ruleActionSchema>;

export const ruleConditionSchema = z.strictObject({
  id: text,
  application_rule_id: text,
  operator: text,
  not_op: z.boolean(),
  expressions: z.array(z.strictObject({ expression: z.string(), condition_id: text })),
  targets: z.array(z.strictObject({ target: text, condition_id: text })),
});
export type RuleCondition = z.output<typeof ruleConditionSchema>;

export const applicationRuleSchema = z.strictObject({
  id: text,
  actions: z.array(ruleActionSchema),
  conditions: z.array(ruleConditionSchema),
  alert_set_ids: z.array(z.string()),
  description: nullableText,
  duration: z.int().nullable(),
  enabled: z.boolean(),
  priority: z.string(),
  rq_host: text,
  rule_set: nullableText,
  rule_set_id: nullableText,
  service: nullableText,
  start_time: micros.nullable(),
  timestamp_create: micros,
  timestamp_update: micros,
  username: z.string(),
});
export type ApplicationRule = z.output<typeof applicationRuleSchema>;

export const notificationSchema = z.strictObject({
  name: text,
  enabled: z.boolean(),
  type: z.enum(NOTIFICATION_TYPES),
  settings: z.strictObject({
    destination_address: text,
    destination_port: z.int(),
    format: z.enum(NOTIFICATION_FORMATS),
    protocol: z.enum(NOTIFICATION_PROTOCOLS),
  }),
});
export type Notification = z.output<typeof notificationSchema>;

export const scheduleSchema = z.strictObject({
  id: text,
  name: text,
  hosts: z.array(z.string()),
  services: z.array(z.string()).nullable(),
  type: text,
  schedule: text,
  send_to: z.array(z.string()),
  send_via: text,
  timezone: text,
  scheduled_by: z.string(),
  scheduled_at: micros,
  start_timestamp: micros.nullable(),
  end_timestamp: micros.nullable(),
});
export type Schedule = z.output<typeof scheduleSchema>;

/**
 * The network-rule settings (`/api/v1/settings/rules`): one record, stored under the fixed id
 * `rules` (the id is the emulator's, never sent by the API). Values as the vendor documents them
 * (https://docs.seerbox.it/api/settings/network_rules); `whitelist` holds IP addresses and CIDR
 * networks, checked by the route.
 */
export const RULE_SETTINGS_ID = 'rules';
export const ruleSettingsSchema = z.strictObject({
  id: z.literal(RULE_SETTINGS_ID),
  automation: z.strictObject({
    default_duration_minutes: z.int().min(0),
    enable: z.boolean(),
    update_firewall: z.boolean(),
    whitelist: z.array(z.string()),
  }),
  expire_strategy: z.string(),
});
export type RuleSettings = z.output<typeof ruleSettingsSchema>;

/** What a fresh server answers: the vendor's example response. */
export const DEFAULT_RULE_SETTINGS: RuleSettings = {
  id: RULE_SETTINGS_ID,
  automation: { default_duration_minutes: 1440, enable: false, update_firewall: false, whitelist: [] },
  expire_strategy: 'delete',
};
