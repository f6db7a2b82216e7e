/**
 * The registry of resource families, in the order plans and apply reports list them. Everything
 * that lists families is derived from it: the configuration's document and `manage` schemas,
 * `DesiredState`, the editor's JSON Schema, `get`, `--kind`, help texts, validation's per-family
 * passes, plan and report order.
 */
import type * as z from 'zod';
import { applicationRulesKind } from './application-rules.js';
import { groupsKind } from './groups.js';
import type { Kind } from './kind.js';
import { networkRuleSettingsKind } from './network-rule-settings.js';
import { notificationsKind } from './notifications.js';
import { schedulesKind } from './schedules.js';

const REGISTERED = [
  groupsKind,
  applicationRulesKind,
  notificationsKind,
  schedulesKind,
  networkRuleSettingsKind,
] as const;

type Registered = (typeof REGISTERED)[number];

/** The families, each as the engine sees one. */
export const KINDS: readonly Kind[] = REGISTERED;

/** A family's YAML section key: `groups`, `application_rules`, ... */
export type Section = Registered['section'];

/** Every section's objects, as the configuration declares them: `{ groups: Group[], ... }`. */
export type DesiredObjects = { [K in Registered as K['section']]: z.output<K['schema']>[] };

/** The zod schema of each section's object, by section (typed; KINDS has them as a list). */
export type SectionSchemas = { [K in Registered as K['section']]: K['schema'] };

/** The families' plan names, in the registry's order. */
export const KIND_NAMES: readonly string[] = KINDS.map((kind) => kind.name);

/**
 * The order of plans: the registry's, then families it does not list (a test's own) in the order
 * given. A stable sort, so that each family's changes keep the order they were planned in.
 */
export function inRegistryOrder<T>(items: readonly T[], nameOf: (item: T) => string): T[] {
  const rank = (item: T) => {
    const at = KIND_NAMES.indexOf(nameOf(item));
    return at === -1 ? KIND_NAMES.length : at;
  };
  return [...items].sort((a, b) => rank(a) - rank(b));
}

export type { FetchOptions, Kind, RemoteRecord } from './kind.js';
