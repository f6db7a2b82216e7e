/**
 * The emulator's collection table: one entry per collection the store keeps. Everything that knows
 * the collections derives from it: the store's Maps (store.ts), the state file's and the journal's
 * schemas (table.ts, handed to persistence/), the invariants a loaded state and each replayed journal
 * line must satisfy (invariants.ts), and who may call the routes that work on a collection (auth.ts).
 *
 * A new family's emulator side is one entry here and one route file under routes/ (listed in
 * routes/index.ts). A test may add both without touching src/: `startEmulator({ extraCollections,
 * extraRoutes })` (test/kinds/toy/ does it for the toy family).
 */
import type { z } from 'zod';
import type { CollectionChange } from './collection.js';
import {
  ADMINS_ONLY,
  ANY_USER,
  type Grant,
  PERMISSION_EXPLORE_ALERTS,
  PERMISSION_HANDLE_RULES,
  PERMISSION_LOAD_NETWORK_RULES,
} from './permissions.js';
import type { JournalRecord } from './persistence/journal.js';
import {
  applicationRuleSchema,
  DEFAULT_RULE_SETTINGS,
  groupSchema,
  notificationSchema,
  ruleSchema,
  ruleSettingsSchema,
  scheduleSchema,
  userSchema,
} from './records.js';

/** A stored record's schema: an object, whatever a seed may leave out of it. */
export type RecordSchema = z.ZodType<object>;

/**
 * One collection. Typed by `defineCollection`, which checks the field names against the schema and
 * keeps the literal names (the state's, the counters' and the privileges' types are made of them).
 */
export interface CollectionSpec<
  S extends RecordSchema = RecordSchema,
  N extends string = string,
  P extends string = string,
  C extends string = string,
> {
  /** Its name in the state file and in the journal's `changes`, as the API names the records. */
  readonly name: N;
  /** One record, in messages: `a group named 'x' exists already`. */
  readonly noun: string;
  /** A record as stored, and as read back from the state file and the journal. */
  readonly schema: S;
  /** The field that keys it (unique; the key of the store's Map): an id, a notification's name. */
  readonly key: string;
  /** The counter of `next_ids` its ids are handed out from, when the API numbers them. */
  readonly counter?: C;
  /** Ids inside each record handed out from a counter: `record[field][i].id` (a rule's conditions). */
  readonly innerIds?: { readonly field: string; readonly counter: C };
  /** Fields the API's writes keep unique besides the key (a group's name). */
  readonly unique?: readonly string[];
  /** A collection of exactly one record (settings that always exist): the record a fresh store holds. */
  readonly singleton?: z.output<S>;
  /**
   * Added after state format 1 came out: a state file without it loads (as a fresh store has it) and
   * its counter then starts at 1. Every collection added from now on sets it.
   */
  readonly addedLater?: boolean;
  /** The privileges its routes name, and which non-administrators have each (permissions.ts). */
  readonly privileges: Readonly<Record<P, Grant>>;
}

/** The names of a record's string fields (what a key or a unique field may be). */
type StringField<R> = { [F in keyof R]-?: R[F] extends string ? F : never }[keyof R] & string;
/** The names of a record's fields that hold a list of records with ids. */
type IdListField<R> = { [F in keyof R]-?: R[F] extends readonly { id: string }[] ? F : never }[keyof R] &
  string;

/** An entry of the table, its field names checked against its schema. */
export function defineCollection<
  S extends RecordSchema,
  const N extends string,
  const P extends string,
  const C extends string = never,
>(
  spec: CollectionSpec<S, N, P, C> & {
    readonly key: StringField<z.output<S>>;
    readonly unique?: readonly StringField<z.output<S>>[];
    readonly innerIds?: { readonly field: IdListField<z.output<S>>; readonly counter: C };
  },
): CollectionSpec<S, N, P, C> {
  return spec;
}

/** Read rules, and application rules: who handles rules, or explores alerts. */
const readsRules: Grant = ({ permissions }) =>
  permissions.has(PERMISSION_HANDLE_RULES) || permissions.has(PERMISSION_EXPLORE_ALERTS);

export const USERS = defineCollection({
  name: 'users',
  noun: 'user',
  schema: userSchema,
  key: 'id',
  privileges: { 'users:read': ({ handlesUsers }) => handlesUsers },
});

export const RULES = defineCollection({
  name: 'rules',
  noun: 'rule',
  schema: ruleSchema,
  key: 'id',
  privileges: { 'rules:read': readsRules },
});

export const GROUPS = defineCollection({
  name: 'groups',
  noun: 'group',
  schema: groupSchema,
  key: 'id',
  counter: 'group',
  unique: ['name'],
  privileges: { groups: ADMINS_ONLY },
});

export const APPLICATION_RULES = defineCollection({
  name: 'application_rules',
  noun: 'application rule',
  schema: applicationRuleSchema,
  key: 'id',
  counter: 'application_rule',
  innerIds: { field: 'conditions', counter: 'condition' },
  privileges: {
    'application_rules:read': readsRules,
    'application_rules:write': ({ permissions }) => permissions.has(PERMISSION_HANDLE_RULES),
  },
});

/** Keyed by name: the name is the notification's path key (it has no id). */
export const NOTIFICATIONS = defineCollection({
  name: 'notifications',
  noun: 'notification',
  schema: notificationSchema,
  key: 'name',
  privileges: { notifications: ADMINS_ONLY },
});

export const SCHEDULES = defineCollection({
  name: 'schedules',
  noun: 'schedule',
  schema: scheduleSchema,
  key: 'id',
  counter: 'schedule',
  unique: ['name'],
  privileges: { 'schedules:read': ANY_USER, 'schedules:write': ADMINS_ONLY },
});

/** The network-rule settings: one record, under RULE_SETTINGS_ID (always present). */
export const RULE_SETTINGS = defineCollection({
  name: 'rule_settings',
  noun: 'network-rule settings',
  schema: ruleSettingsSchema,
  key: 'id',
  singleton: DEFAULT_RULE_SETTINGS,
  addedLater: true,
  privileges: { rule_settings: ({ permissions }) => permissions.has(PERMISSION_LOAD_NETWORK_RULES) },
});

/** The built-in table, in the state file's order. */
export const COLLECTIONS = [
  USERS,
  RULES,
  GROUPS,
  APPLICATION_RULES,
  NOTIFICATIONS,
  SCHEDULES,
  RULE_SETTINGS,
] as const;

type BuiltIn = (typeof COLLECTIONS)[number];
type RecordOf<T extends CollectionSpec> = z.output<T['schema']>;
type CounterOf<T> = T extends CollectionSpec<RecordSchema, string, string, infer C> ? C : never;
type PrivilegeOf<T> = T extends CollectionSpec<RecordSchema, string, infer P, string> ? P : never;

/** The privileges the built-in collections' routes name. */
export type CollectionPrivilege = PrivilegeOf<BuiltIn>;

/** The id counters (per kind, they only grow: an id is never handed out twice, even after a delete). */
export type NextIds = Record<CounterOf<BuiltIn>, number>;

/** The whole store, as written to the state file (tokens are never part of it). */
export type StoreState = { format_version: 1 } & { [T in BuiltIn as T['name']]: RecordOf<T>[] } & {
  next_ids: NextIds;
};

/** What one write did to each collection it touched (named as in the state file). */
export type StoreChanges = { [T in BuiltIn as T['name']]?: CollectionChange<RecordOf<T>> };

/** A journal line of the store. */
export type StoreRecord = JournalRecord<StoreChanges, NextIds>;
