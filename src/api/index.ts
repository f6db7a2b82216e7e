/**
 * The typed client of the WAF management API: one namespace per resource family, one function per
 * documented endpoint. It never prints: debug lines go to the `log` callback, failures are
 * WafctlErrors (ApiError, InvalidResponseError and its ResponseTooLargeError and UnconfirmedWriteError,
 * ApiNetworkError, RedirectError, IncompleteListingError, ListingTooLargeError, SecretInRequestError).
 */
import { WafctlError } from '../core/errors.js';
import { registerSecret } from '../core/secrets.js';
import { type ApplicationRulesApi, applicationRulesApi } from './application-rules.js';
import type { ClientContext } from './context.js';
import { type ListKind, parseFilterStrings, type RawFilters } from './filters.js';
import { type GroupsApi, groupsApi } from './groups.js';
import { createHttp } from './http.js';
import {
  DEFAULT_MAX_LISTING_BYTES,
  DEFAULT_MAX_ROWS,
  MAX_LISTING_BYTES_ENV,
  MAX_ROWS_ENV,
} from './limits.js';
import {
  type NetworkRuleSettings,
  type NetworkRuleSettingsApi,
  networkRuleSettingsApi,
} from './network-rule-settings.js';
import { type NotificationsApi, notificationsApi } from './notifications.js';
import type { ApplicationRule, Group, Notification, Rule, Schedule } from './records.js';
import {
  type Clock,
  DEFAULT_RETRY_POLICY,
  DEFAULT_TIMEOUT_SECONDS,
  type RetryPolicy,
  SYSTEM_CLOCK,
} from './retry.js';
import { type RulesApi, rulesApi } from './rules.js';
import { type SchedulesApi, schedulesApi } from './schedules.js';
import { type UsersApi, usersApi } from './users.js';

export interface ApiClientOptions {
  /** `http(s)://host[:port][/prefix]`, with or without a trailing slash; `/api/v1/...` is appended. */
  baseUrl: string;
  token: string;
  /**
   * Whole-response deadline of one attempt (connect, headers and the whole body), in seconds; a
   * fraction is fine. Default DEFAULT_TIMEOUT_SECONDS (60). A missed deadline is not retried.
   */
  timeoutSeconds?: number;
  /** Retries of GET, PUT and DELETE (POST is never retried). */
  retry?: Partial<RetryPolicy>;
  /** Rows asked for per page (the server may cap it). Default 1000. */
  pageSize?: number;
  /** Pages fetched at once. Default 8. */
  concurrency?: number;
  /** The largest decoded response body read, in bytes. Default DEFAULT_MAX_RESPONSE_BYTES (256 MiB). */
  maxResponseBytes?: number;
  /** The most rows one paginated listing may hold. Default DEFAULT_MAX_ROWS (1,000,000). */
  maxRows?: number;
  /** The most bytes of bodies one listing may read. Default DEFAULT_MAX_LISTING_BYTES (256 MiB). */
  maxListingBytes?: number;
  /** One line per request, response and retry (method, path with query, status, duration). */
  log?: (line: string) => void;
  /** Where the token came from (`WAF_TOKEN`, ...), carried by a 401 or 403 error for its hint. */
  credential?: string;
  /** Time and randomness; tests replace `sleep` so that no test waits for real. */
  clock?: Partial<Clock>;
}

export interface RecordsByKind {
  groups: Group;
  rules: Rule;
  'application-rules': ApplicationRule;
  notifications: Notification;
  schedules: Schedule;
  /** A singleton: its listing is the one object. */
  'network-rule-settings': NetworkRuleSettings;
}

export interface ApiClient {
  groups: GroupsApi;
  rules: RulesApi;
  applicationRules: ApplicationRulesApi;
  notifications: NotificationsApi;
  schedules: SchedulesApi;
  /** The network-rule settings (`/api/v1/settings/rules`): one object, read and updated. */
  networkRuleSettings: NetworkRuleSettingsApi;
  /** The user directory (`/api/v1/users`), read only: group members by username. */
  users: UsersApi;
  /**
   * For `wafctl get KIND --filter NAME=VALUE`: checks each name against the documented filters of
   * KIND (an unknown one throws a USAGE error listing the valid names), converts the values, and
   * yields the rows page by page, so a caller that stops early reads no further pages.
   */
  iterateWithFilters<K extends ListKind>(kind: K, filters: RawFilters): AsyncIterable<RecordsByKind[K]>;
}

/** The rows of a listing that is not paginated, as an iterable like the paginated ones. */
async function* rowsOf<T>(rows: Promise<T[]>): AsyncGenerator<T> {
  yield* await rows;
}

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  const chosen = value ?? fallback;
  if (!Number.isSafeInteger(chosen) || chosen < 1) {
    throw new WafctlError('USAGE', `${name} must be a positive integer, got ${chosen}`, { userFault: true });
  }
  return chosen;
}

/** The API client of one server and token, its options checked (a USAGE error when one is out of range). */
export function createApiClient(options: ApiClientOptions): ApiClient {
  if (options.token === '') throw new WafctlError('CONNECTION', 'no API token given', { userFault: true });
  registerSecret(options.token);
  const retry: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  positiveInteger('retry attempts', retry.attempts, 1);
  for (const [name, value] of Object.entries(retry)) {
    if (!Number.isFinite(value) || value < 0) {
      throw new WafctlError('USAGE', `retry ${name} must be a non-negative number, got ${value}`, {
        userFault: true,
      });
    }
  }
  const ctx: ClientContext = {
    http: createHttp({
      baseUrl: options.baseUrl,
      token: options.token,
      timeoutSeconds: options.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS, // checked by createHttp
      retry,
      clock: { ...SYSTEM_CLOCK, ...options.clock },
      log: options.log,
      maxResponseBytes: options.maxResponseBytes, // checked by createHttp
      credential: options.credential,
    }),
    pageSize: positiveInteger('page size', options.pageSize, 1000),
    concurrency: positiveInteger('concurrency', options.concurrency, 8),
    maxRows: positiveInteger(`the row limit (${MAX_ROWS_ENV})`, options.maxRows, DEFAULT_MAX_ROWS),
    maxListingBytes: positiveInteger(
      `the listing byte limit (${MAX_LISTING_BYTES_ENV})`,
      options.maxListingBytes,
      DEFAULT_MAX_LISTING_BYTES,
    ),
  };
  const client = {
    groups: groupsApi(ctx),
    rules: rulesApi(ctx),
    applicationRules: applicationRulesApi(ctx),
    notifications: notificationsApi(ctx),
    schedules: schedulesApi(ctx),
    networkRuleSettings: networkRuleSettingsApi(ctx),
    users: usersApi(ctx),
  };
  // Filters were checked against the kind's own table, so handing them on as that kind's type is sound.
  const iterators: { [K in ListKind]: (filters: object) => AsyncIterable<RecordsByKind[K]> } = {
    groups: () => rowsOf(client.groups.list()),
    rules: (filters) => client.rules.iterate(filters),
    'application-rules': (filters) => client.applicationRules.iterate(filters),
    notifications: () => rowsOf(client.notifications.list()),
    schedules: (filters) => client.schedules.iterate(filters),
    'network-rule-settings': () => rowsOf(client.networkRuleSettings.get().then((settings) => [settings])),
  };
  return {
    ...client,
    // A generator, so that a bad filter surfaces where the rows are read, like any other failure.
    async *iterateWithFilters(kind, filters) {
      yield* iterators[kind](parseFilterStrings(kind, filters));
    },
  };
}

export type { ApplicationRuleInput, ApplicationRuleUpdate } from './application-rules.js';
export {
  ApiError,
  type ApiErrorDetails,
  ApiNetworkError,
  type HttpMethod,
  IncompleteListingError,
  InvalidResponseError,
  ListingTooLargeError,
  RedirectError,
  type RedirectProblem,
  ResponseTooLargeError,
  SecretInRequestError,
  UnconfirmedWriteError,
} from './errors.js';
export {
  APPLICATION_RULE_FILTERS,
  type ApplicationRuleFilters,
  FILTERS_BY_KIND,
  type FilterTable,
  type FilterType,
  type ListKind,
  RULE_FILTERS,
  type RuleFilters,
  SCHEDULE_FILTERS,
  type ScheduleFilters,
} from './filters.js';
export type { GroupInput } from './groups.js';
export {
  DEFAULT_MAX_LISTING_BYTES,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_MAX_ROWS,
  limitsFromEnv,
  MAX_LISTING_BYTES_ENV,
  MAX_RESPONSE_BYTES_ENV,
  MAX_ROWS_ENV,
  type ResponseLimits,
} from './limits.js';
export type {
  NetworkRuleSettings,
  NetworkRuleSettingsApi,
  NetworkRuleSettingsUpdate,
} from './network-rule-settings.js';
export type { NotificationInput, NotificationSettingsInput, NotificationUpdate } from './notifications.js';
export type {
  Action,
  ApplicationRule,
  Condition,
  Group,
  GroupPermission,
  Notification,
  Rule,
  Schedule,
  User,
} from './records.js';
export { type Clock, DEFAULT_TIMEOUT_SECONDS, MAX_TIMEOUT_SECONDS, type RetryPolicy } from './retry.js';
export type { ScheduleInput } from './schedules.js';
export { SIGNIN_PATH, SignInError, type SignInOptions, signIn } from './signin.js';
export type { ApplicationRulesApi, GroupsApi, NotificationsApi, RulesApi, SchedulesApi, UsersApi };
