/**
 * The documented list filters, one table per listing. The tables are the single source: the typed
 * filter objects are derived from them, the query encoding reads them, and `wafctl get --filter`
 * validates and converts its NAME=VALUE strings with them.
 */
import { usageError } from '../core/errors.js';
import type { QueryParams, QueryValue } from './url.js';

export type FilterType = 'string' | 'string[]' | 'integer' | 'boolean';
export type FilterTable = Readonly<Record<string, FilterType>>;

type FilterValue<T extends FilterType> = T extends 'string'
  ? string
  : T extends 'string[]'
    ? readonly string[]
    : T extends 'integer'
      ? number
      : boolean;

export type FiltersOf<T extends FilterTable> = { readonly [K in keyof T]?: FilterValue<T[K]> };

export const RULE_FILTERS = {
  id: 'string',
  id_list: 'string[]',
  kind: 'string',
  pattern: 'string',
  rq_host: 'string',
  rq_host_list: 'string[]',
  rq_host_search: 'string',
  target: 'string',
  target_list: 'string[]',
  target_search: 'string',
  action: 'string',
  action_list: 'string[]',
  not_action_list: 'string[]',
  network_only: 'boolean',
  alert_id: 'string',
  alert_id_list: 'string[]',
  attack_code: 'string',
  attack_code_list: 'string[]',
  timestamp: 'integer',
  timestamp_start: 'integer',
  timestamp_end: 'integer',
  username: 'string',
  username_list: 'string[]',
  username_search: 'string',
} as const satisfies FilterTable;

export const APPLICATION_RULE_FILTERS = {
  id: 'string',
  id_list: 'string[]',
  rq_host: 'string',
  rq_host_list: 'string[]',
  rq_host_search: 'string',
  timestamp_create: 'integer',
  timestamp_create_start: 'integer',
  timestamp_create_end: 'integer',
  timestamp_update: 'integer',
  timestamp_update_start: 'integer',
  timestamp_update_end: 'integer',
  username: 'string',
  username_list: 'string[]',
  username_search: 'string',
  service: 'string',
  service_list: 'string[]',
  service_search: 'string',
  rule_set: 'string',
  rule_set_id: 'string',
  enabled: 'boolean',
} as const satisfies FilterTable;

export const SCHEDULE_FILTERS = {
  // Documented as integer, but record ids are strings: a string is sent either way.
  id: 'string',
  id_list: 'string[]',
  name: 'string',
  type: 'string',
  schedule: 'string',
  scheduled_at_start: 'integer',
  // Sic: the documented name of the "scheduled before" bound.
  scheduled_by_end: 'integer',
  scheduled_by: 'string',
} as const satisfies FilterTable;

export type RuleFilters = FiltersOf<typeof RULE_FILTERS>;
export type ApplicationRuleFilters = FiltersOf<typeof APPLICATION_RULE_FILTERS>;
export type ScheduleFilters = FiltersOf<typeof SCHEDULE_FILTERS>;

/** The `wafctl get` kind names and their filter tables (groups and notifications have none). */
export const FILTERS_BY_KIND = {
  groups: {},
  rules: RULE_FILTERS,
  'application-rules': APPLICATION_RULE_FILTERS,
  notifications: {},
  schedules: SCHEDULE_FILTERS,
  'network-rule-settings': {},
} as const satisfies Record<string, FilterTable>;

export type ListKind = keyof typeof FILTERS_BY_KIND;

function typeOf(table: FilterTable, kind: string, name: string): FilterType {
  const type = Object.hasOwn(table, name) ? table[name] : undefined;
  if (type !== undefined) return type;
  const names = Object.keys(table).sort();
  const valid = names.length === 0 ? `${kind} takes no filters` : `valid filters: ${names.join(', ')}`;
  throw usageError(`unknown filter "${name}" for ${kind}; ${valid}`);
}

/** Typed filters → query parameters; names and values are checked at run time too. */
export function filtersToQuery(
  table: FilterTable,
  kind: string,
  filters: object,
): Record<string, QueryValue> {
  const query: Record<string, QueryValue> = {};
  for (const [name, value] of Object.entries(filters)) {
    if (value === undefined) continue;
    const type = typeOf(table, kind, name);
    const ok =
      type === 'string[]'
        ? Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string')
        : type === 'integer'
          ? Number.isSafeInteger(value)
          : typeof value === type;
    // An empty list would be dropped from the query and silently widen the listing to everything.
    if (!ok)
      throw usageError(
        `filter ${name} for ${kind}: expected ${type === 'string[]' ? 'a non-empty list' : type}`,
      );
    query[name] = value;
  }
  return query;
}

/** NAME -> the text of each `--filter NAME=VALUE` given for it, in order. */
export type RawFilters = Readonly<Record<string, string | readonly string[]>>;

/**
 * NAME=VALUE strings (from `wafctl get --filter`) → typed filters. A list filter takes
 * comma-separated values, and a name given several times adds its values; any other filter takes
 * exactly one value (never the first or the last one silently).
 */
export function parseFilterStrings(kind: ListKind, raw: RawFilters): QueryParams {
  const table: FilterTable = FILTERS_BY_KIND[kind];
  const parsed: Record<string, QueryValue> = {};
  for (const [name, given] of Object.entries(raw)) {
    const type = typeOf(table, kind, name);
    const texts = typeof given === 'string' ? [given] : given;
    if (type === 'string[]') {
      const items = texts.flatMap((text) =>
        text
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== ''),
      );
      if (items.length === 0) throw usageError(`filter ${name} for ${kind}: expected a comma-separated list`);
      parsed[name] = items;
      continue;
    }
    const [text = ''] = texts;
    if (texts.length > 1) {
      throw usageError(
        `filter ${name} for ${kind} takes one value, got ${texts.length}: ${texts.join(', ')}`,
      );
    }
    if (type === 'string') parsed[name] = text;
    else if (type === 'integer') {
      const value = Number(text.trim());
      if (!/^-?\d+$/.test(text.trim()) || !Number.isSafeInteger(value)) {
        throw usageError(`filter ${name} for ${kind}: expected an integer, got "${text}"`);
      }
      parsed[name] = value;
    } else {
      if (text !== 'true' && text !== 'false')
        throw usageError(`filter ${name} for ${kind}: expected true or false`);
      parsed[name] = text === 'true';
    }
  }
  return parsed;
}
