/**
 * The desired-state format, once: these zod schemas are the types of the loaded model, the
 * validation of every file, and (through `json-schema.ts`) the editor schema. Objects are strict so a
 * typo is an error, not a silently ignored field.
 */
import * as z from 'zod';
import {
  isEmail,
  isIpAddress,
  isPort,
  isTimezone,
  NOTIFICATION_FORMATS,
  NOTIFICATION_PROTOCOLS,
  NOTIFICATION_TYPES,
  PERMISSIONS,
  permissionById,
  permissionByName,
  permissionName,
} from '../core/domain.js';
import type { FirewallActions } from '../core/firewall-actions.js';
import type { ManageScope } from '../core/scope.js';
import { SECRET_VARIABLES, VARIABLE_NAME, VARIABLE_PREFIX } from './env.js';
import { firewallActionsSchema } from './firewall-actions.js';
import { setOf } from './set-schema.js';
import { didYouMean } from './suggest.js';

const nonEmptyString = z.string().min(1);

const PERMISSION_NAMES = PERMISSIONS.map((p) => p.name);
const PERMISSION_IDS = PERMISSIONS.map((p) => p.id);
const MIN_ID = PERMISSION_IDS.reduce<number>((a, b) => Math.min(a, b), Number.POSITIVE_INFINITY);
const MAX_ID = PERMISSION_IDS.reduce<number>((a, b) => Math.max(a, b), Number.NEGATIVE_INFINITY);
const ID_RANGE = `${MIN_ID}..${MAX_ID}`;

function unknownPermission(value: string | number): string {
  if (typeof value === 'number') {
    return `unknown permission id ${value}: expected ${ID_RANGE}`;
  }
  const suggestion = didYouMean(value, PERMISSION_NAMES);
  if (suggestion) return `unknown permission "${value}" (did you mean "${suggestion}"?)`;
  return `unknown permission "${value}": expected one of ${PERMISSION_NAMES.join(', ')}, or an id ${ID_RANGE}`;
}

/** A catalog name or id in the file; always the integer id in the loaded model. */
const permissionRef = z
  .union([z.string(), z.int()], { error: `expected a permission name or an id ${ID_RANGE}` })
  .transform((value, ctx) => {
    const found = typeof value === 'number' ? permissionById(value) : permissionByName(value);
    if (found) return found.id;
    ctx.addIssue({ code: 'custom', message: unknownPermission(value), input: value });
    return z.NEVER;
  })
  // The union above is loose so that a typo gets a "did you mean"; editors get the exact choices.
  .meta({
    description: 'A permission of the catalog, by name or by id.',
    anyOf: [
      { type: 'string', enum: PERMISSION_NAMES },
      { type: 'integer', minimum: MIN_ID, maximum: MAX_ID },
    ],
  });

const permissionEntry = z.strictObject({
  permission: permissionRef,
  service_id: z.string().default('').meta({ description: 'Service the permission applies to; "" for all.' }),
});

/**
 * Builds a kind's object: its natural-key fields, its other fields, and the two wafctl-only fields
 * every kind accepts. `ignore_changes` may name exactly the "other" fields: a natural key never
 * changes in place, and `protect`/`ignore_changes` are not sent to the API.
 */
function kindObject<K extends z.ZodRawShape, F extends z.ZodRawShape>(keyFields: K, fields: F) {
  const names = Object.keys(fields) as (keyof F & string)[];
  return z.strictObject({
    ...keyFields,
    ...fields,
    protect: z.boolean().default(false).meta({ description: 'wafctl only: refuse to delete or replace it.' }),
    ignore_changes: setOf(z.enum(names), 'field')
      .default([])
      .meta({ description: 'wafctl only: fields never updated after creation.' }),
  });
}

export const groupSchema = kindObject(
  { name: nonEmptyString.meta({ description: 'Group name (natural key).' }) },
  {
    description: z.string().default(''),
    is_admin: z.boolean().default(false),
    permissions: setOf(permissionEntry, 'permission', {
      label: (p) =>
        `"${permissionName(p.permission)}"${p.service_id === '' ? '' : ` for service "${p.service_id}"`}`,
    }).default([]),
    users: setOf(nonEmptyString, 'user').default([]).meta({ description: 'User ids of the members.' }),
  },
);

const condition = z.strictObject({
  operator: nonEmptyString,
  not_op: z.boolean().default(false),
  expressions: setOf(nonEmptyString, 'expression', { min: 1 }),
  targets: setOf(nonEmptyString, 'target', { min: 1 }).meta({
    description: 'e.g. path, query, request:<header>, request_body:x-www-form-urlencoded:<name>.',
  }),
});

const action = z.strictObject({ firewall_action: nonEmptyString, firewall_name: nonEmptyString });

/**
 * Characters no host name (nor `host:port`, IP literal or IDN) can hold: `/`, which would also make
 * the natural key `<rq_host>/<description>` ambiguous (`a/b` + `c` and `a` + `b/c`), whitespace and
 * control characters. Globs (`*.example.com`) and ports stay allowed. The same pattern goes into the
 * editor schema.
 */
const NOT_IN_HOST_CHARS = String.raw`/\s\x00-\x1f\x7f-\x9f`;
const NOT_IN_HOST = new RegExp(`[${NOT_IN_HOST_CHARS}]`, 'u');
/** Also the editor schema's `pattern`: its source reads the same with or without the `u` flag. */
const HOST_PATTERN = new RegExp(`^[^${NOT_IN_HOST_CHARS}]*$`, 'u');

const hex = (c: string) => (c.codePointAt(0) ?? 0).toString(16).padStart(4, '0');

function notInHost(host: string): string {
  const found = NOT_IN_HOST.exec(host)?.[0] ?? '';
  const code = `U+${hex(found).toUpperCase()}`;
  const what =
    found === '/'
      ? "'/'"
      : found === ' '
        ? 'spaces'
        : /\s/u.test(found)
          ? `whitespace (${code})`
          : `control characters (${code})`;
  // JSON.stringify leaves DEL, C1 controls and Unicode spaces as they are: invisible on a terminal.
  const got = [...JSON.stringify(host)]
    .map((c) => (c !== ' ' && c !== '/' && NOT_IN_HOST.test(c) ? `\\u${hex(c)}` : c))
    .join('');
  return `rq_host must be a host name: it cannot contain ${what}, got ${got}`;
}

const rqHost = nonEmptyString.regex(HOST_PATTERN, { error: (issue) => notInHost(String(issue.input)) }).meta({
  description:
    "Host header (natural key, with description): a host name, optionally with a port or * globs; no '/', whitespace or control characters.",
});

export const applicationRuleSchema = kindObject(
  {
    rq_host: rqHost,
    description: nonEmptyString.meta({ description: 'Unique per rq_host (natural key, with rq_host).' }),
  },
  {
    priority: nonEmptyString,
    enabled: z.boolean().default(true),
    duration: z.int().min(0).nullable().default(null),
    start_time: z.int().min(0).nullable().default(null).meta({ description: 'UNIX microseconds.' }),
    conditions: setOf(condition, 'condition', { min: 1 }).meta({
      description: 'Immutable: a change replaces the rule.',
    }),
    actions: setOf(action, 'action', {
      min: 1,
      label: (a) => `"${a.firewall_action}" on "${a.firewall_name}"`,
    }).meta({ description: 'Immutable: a change replaces the rule.' }),
  },
);

const ipAddress = z
  .string()
  .refine(isIpAddress, {
    error: (issue) => `expected an IPv4 or IPv6 address, got ${JSON.stringify(issue.input)}`,
  })
  .meta({ description: 'IPv4 or IPv6 address the logs are sent to.' });
const port = z
  .int()
  .refine(isPort, {
    error: (issue) => `expected a port number between 1 and 65535, got ${String(issue.input)}`,
  })
  .meta({ minimum: 1, maximum: 65535 });

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

const email = z
  .string()
  .refine(isEmail, { error: (issue) => `expected an e-mail address, got ${JSON.stringify(issue.input)}` })
  .meta({ format: 'email' });
const timezone = z
  .string()
  .refine(isTimezone, {
    error: (issue) => {
      const input = String(issue.input);
      const suggestion = didYouMean(input, Intl.supportedValuesOf('timeZone'));
      return `unknown timezone ${JSON.stringify(input)}${suggestion ? ` (did you mean "${suggestion}"?)` : ''}`;
    },
  })
  .meta({ description: 'IANA timezone name, e.g. Europe/Paris.' });

/**
 * A report covers hosts, services (domain groups), or both: `hosts: []` is fine when `services` lists
 * one (the API takes such a schedule), but a report on nothing is refused, at `hosts`. Checked even
 * when another field is wrong, so that every problem is reported at once; hence the type guards.
 */
const reportsOnSomething = z.superRefine<{ hosts?: unknown; services?: unknown }>(
  (schedule, ctx) => {
    const { hosts, services } = schedule;
    if (!Array.isArray(hosts) || hosts.length > 0) return;
    if (Array.isArray(services) ? services.length > 0 : services !== null && services !== undefined) return;
    ctx.addIssue({
      code: 'custom',
      path: ['hosts'],
      input: hosts,
      message: `a schedule must report on at least one host or service: hosts is empty and services is ${Array.isArray(services) ? 'empty' : 'null'}`,
    });
  },
  { when: () => true },
);

export const scheduleSchema = kindObject(
  { name: nonEmptyString.meta({ description: 'Schedule name (natural key).' }) },
  {
    hosts: setOf(nonEmptyString, 'host').meta({
      description: 'Hosts reported on; may be [] when services lists at least one.',
    }),
    services: setOf(nonEmptyString, 'service')
      .nullable()
      .default(null)
      .meta({ description: 'Services (domain groups) reported on; null or [] for none.' }),
    type: nonEmptyString,
    schedule: nonEmptyString,
    send_to: setOf(email, 'recipient', { min: 1 }),
    send_via: nonEmptyString,
    timezone,
  },
)
  .check(reportsOnSomething)
  // For editors: at least one host, or at least one service.
  .meta({
    anyOf: [
      { properties: { hosts: { minItems: 1 } }, required: ['hosts'] },
      { properties: { services: { type: 'array', minItems: 1 } }, required: ['services'] },
    ],
  });

/** The four resource families, by their top-level key. */
export const KIND_SCHEMAS = {
  groups: groupSchema,
  application_rules: applicationRuleSchema,
  notifications: notificationSchema,
  schedules: scheduleSchema,
} as const;

export type KindName = keyof typeof KIND_SCHEMAS;
export const KIND_NAMES = Object.keys(KIND_SCHEMAS) as KindName[];

/** `manage.<kind>.match` may only name a kind's scalar string fields: those are what a glob can match. */
export function matchableFields(kind: KindName): string[] {
  return Object.entries(KIND_SCHEMAS[kind].shape)
    .filter(([, field]) => {
      let inner: z.ZodType = field;
      while (inner instanceof z.ZodDefault || inner instanceof z.ZodOptional)
        inner = inner.unwrap() as z.ZodType;
      return inner instanceof z.ZodString || inner instanceof z.ZodEnum;
    })
    .map(([name]) => name);
}

const globList = setOf(nonEmptyString, 'pattern', { min: 1 }).meta({
  description: 'Globs: * any run, ? one character.',
});

function manageScope(kind: KindName) {
  const match = Object.fromEntries(matchableFields(kind).map((field) => [field, globList.optional()]));
  return z.strictObject({
    prune: z
      .boolean()
      .default(false)
      .meta({ description: 'Delete in-scope remote objects no file declares.' }),
    match: z
      .strictObject(match)
      .default({})
      .meta({ description: 'field -> globs; every listed field must match. Default: everything.' }),
  });
}

export const manageSchema = z.strictObject({
  groups: manageScope('groups').optional(),
  application_rules: manageScope('application_rules').optional(),
  notifications: manageScope('notifications').optional(),
  schedules: manageScope('schedules').optional(),
});

export const settingsSchema = z.strictObject({
  username: nonEmptyString
    .optional()
    .meta({ description: 'Sent as `username` on rule creation; default WAF_USERNAME, else "wafctl".' }),
  safety: z
    .strictObject({
      max_delete_percent: z.number().min(0).max(100).default(30),
      min_existing: z.int().min(0).default(10),
    })
    .prefault({}),
  firewall_actions: firewallActionsSchema,
});

/** Lists from every file are concatenated; a name declared twice (in one file or two) is harmless. */
const variablesSchema = z
  .array(
    z
      .string()
      .regex(VARIABLE_NAME, {
        error: 'expected a variable name: letters, digits and _, not starting with a digit',
      })
      .refine((name) => !SECRET_VARIABLES.has(name), {
        error: (issue) => `${String(issue.input)} holds a credential of wafctl's and cannot be declared`,
      }),
  )
  .meta({
    description: `Environment variables that \${NAME} may read besides ${VARIABLE_PREFIX}* ones; any other name is an error.`,
  });

/** One YAML document. Every key is optional: a configuration is usually split over several files. */
export const documentSchema = z
  .strictObject({
    variables: variablesSchema.optional(),
    groups: z.array(groupSchema).optional(),
    application_rules: z.array(applicationRuleSchema).optional(),
    notifications: z.array(notificationSchema).optional(),
    schedules: z.array(scheduleSchema).optional(),
    manage: manageSchema.optional(),
    settings: settingsSchema.optional(),
  })
  .meta({ title: 'wafctl desired state', description: 'One document of a wafctl configuration.' });

export type Group = z.output<typeof groupSchema>;
export type ApplicationRule = z.output<typeof applicationRuleSchema>;
export type Notification = z.output<typeof notificationSchema>;
export type Schedule = z.output<typeof scheduleSchema>;
export type DesiredDocument = z.output<typeof documentSchema>;

export interface DesiredState {
  groups: Group[];
  application_rules: ApplicationRule[];
  notifications: Notification[];
  schedules: Schedule[];
  manage: Record<KindName, ManageScope>;
  settings: {
    username: string;
    safety: { max_delete_percent: number; min_existing: number };
    /** Resolved: every list present, a given list in place of its default. */
    firewall_actions: FirewallActions;
  };
}
