/**
 * The records the API returns, as zod schemas (the runtime check) and their TypeScript types (what
 * the rest of wafctl sees). Unknown fields are dropped; a documented field that wafctl relies on and
 * that is missing or of the wrong type makes the whole response invalid. Fields only shown, never
 * relied on, are optional but type-checked when present. Where the spec contradicts itself, both
 * documented forms are accepted and normalised to one.
 */
import { z } from 'zod';

const int = z.number().int();
const optionalString = z.string().optional();
const nullableInt = int.nullable().optional();
const nullableString = z.string().nullable().optional();

export const groupPermissionSchema = z.object({
  permission_id: int,
  service_id: z.string(),
  permission_name: optionalString,
  permission_description: optionalString,
  service_name: optionalString,
  inserted_at: optionalString,
  expired_at: nullableString,
});

export const groupSchema = z.object({
  id: z.string(),
  name: z.string(),
  // The attribute list calls it boolean, the examples carry a string: the examples win.
  description: nullableString,
  is_admin: z.boolean().optional(),
  created_at: optionalString,
  updated_at: optionalString,
  // Returned by create, update and get-one; absent from the list.
  permissions: z.array(groupPermissionSchema).optional(),
  users: z.array(z.object({ id: z.string(), username: z.string() })).optional(),
});

/** Read-only rules are only displayed, so only `id` is required. */
export const ruleSchema = z.object({
  id: z.string(),
  action: optionalString,
  alert_id: nullableString,
  attack_category: nullableString,
  attack_code: nullableString,
  attack_name: nullableString,
  case_sensitive: z.boolean().optional(),
  deleted: z.boolean().optional(),
  description: nullableString,
  duration: nullableInt,
  enabled: z.boolean().optional(),
  expression: z.object({ type: optionalString, values: z.array(z.string()).optional() }).optional(),
  kind: optionalString,
  loaded: optionalString,
  matching_method: optionalString,
  network_only: z.boolean().optional(),
  pattern: nullableString,
  priority: optionalString,
  rq_host: optionalString,
  spec_values: z.record(z.string(), z.unknown()).optional(),
  start_time: nullableInt,
  target: optionalString,
  timestamp: int.optional(),
  username: optionalString,
});

export const actionSchema = z.object({
  firewall_action: z.string(),
  firewall_name: z.string(),
  application_rule_id: optionalString,
  /**
   * Any value is read (the spec lists none): a string as it is, a number or boolean as text, null
   * as absent. src/core/sync-status.ts says what it means; an unknown value is not enforced.
   */
  sync_status: z
    .unknown()
    .transform((value) =>
      typeof value === 'string'
        ? value
        : typeof value === 'number' || typeof value === 'boolean'
          ? String(value)
          : undefined,
    )
    .optional(),
});

export const conditionSchema = z.object({
  id: optionalString,
  application_rule_id: optionalString,
  operator: z.string(),
  not_op: z.boolean().optional(),
  expressions: z.array(z.object({ expression: z.string(), condition_id: optionalString })),
  targets: z.array(z.object({ target: z.string(), condition_id: optionalString })),
});

/**
 * List rows document a single `action` object, single retrieval an `actions` array; rows may also
 * lack `conditions`. Both are normalised to arrays, and `complete` says whether the row carried the
 * full `actions` array and `conditions`: an incomplete row must be hydrated with a GET-one before
 * anyone compares it (the client reports, the caller hydrates).
 */
export const applicationRuleSchema = z
  .object({
    id: z.string(),
    rq_host: z.string(),
    description: z.string().nullable(),
    priority: z.string(),
    enabled: z.boolean(),
    duration: nullableInt,
    start_time: nullableInt,
    username: optionalString,
    alert_set_ids: z.array(z.string()).optional(),
    rule_set: nullableString,
    rule_set_id: nullableString,
    service: nullableString,
    timestamp_create: int.optional(),
    timestamp_update: int.optional(),
    actions: z.array(actionSchema).optional(),
    action: actionSchema.nullable().optional(),
    conditions: z.array(conditionSchema).optional(),
  })
  // `action`, when sent, is kept as the API gave it. Not `({ action, ...rest })`: V8 copies object
  // rest through a slow runtime path, ~40 ms of a 10,000-rule refresh (BENCHMARKS.md). Nor a spread
  // into a new object: zod's output is already a fresh object of ours, completed in place (same
  // keys in the same order), so a listing of 100,000 rules is not copied once more.
  .transform((rule) =>
    Object.assign(rule, {
      duration: rule.duration ?? null,
      start_time: rule.start_time ?? null,
      actions: rule.actions ?? (rule.action ? [rule.action] : []),
      conditions: rule.conditions ?? [],
      complete: rule.actions !== undefined && rule.conditions !== undefined,
    }),
  );

export const notificationSchema = z.object({
  name: z.string(),
  enabled: z.boolean(),
  type: z.string(),
  settings: z.object({
    destination_address: z.string(),
    destination_port: int,
    format: z.string(),
    protocol: z.string(),
  }),
});

export const scheduleSchema = z.object({
  id: z.string(),
  name: z.string(),
  hosts: z.array(z.string()),
  services: z.array(z.string()).nullable().optional(),
  type: z.string(),
  // The attribute list says integer, the examples carry a string: accept both, keep a string.
  schedule: z.union([z.string(), int]).transform(String),
  // The attribute list says string, the examples carry an array: accept both, keep an array.
  send_to: z.union([z.array(z.string()), z.string()]).transform((v) => (typeof v === 'string' ? [v] : v)),
  send_via: z.string(),
  timezone: z.string(),
  scheduled_by: optionalString,
  scheduled_at: int.optional(),
  start_timestamp: nullableInt,
  end_timestamp: nullableInt,
});

export type GroupPermission = z.output<typeof groupPermissionSchema>;
export type Group = z.output<typeof groupSchema>;
export type Rule = z.output<typeof ruleSchema>;
export type Action = z.output<typeof actionSchema>;
export type Condition = z.output<typeof conditionSchema>;
export type ApplicationRule = z.output<typeof applicationRuleSchema>;
export type Notification = z.output<typeof notificationSchema>;
export type Schedule = z.output<typeof scheduleSchema>;
export type User = z.output<typeof userSchema>;

/**
 * A user of the directory (https://docs.seerbox.it/api/authentication/users): wafctl relies on `id`
 * (a UUID on a real server) and `username`, to write group members by name; the rest is shown only.
 */
export const userSchema = z.object({
  id: z.string(),
  username: z.string(),
  first_name: nullableString,
  last_name: nullableString,
  email: nullableString,
  auth_type: nullableString,
  is_disabled: z.boolean().optional(),
  is_first_access: z.boolean().optional(),
  inserted_at: nullableString,
});
