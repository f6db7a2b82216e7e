/**
 * What the engine needs to know about one resource family. The planner, the applier, the
 * renderers, the configuration's schemas and `get` know no family; each family is one descriptor
 * implementing this interface, in one file, listed once in `index.ts` (docs/architecture.md,
 * "Adding a family").
 */
import * as z from 'zod';
import type { RawFilters } from '../api/filters.js';
import type { ApiClient } from '../api/index.js';
import { sameJson } from '../core/canonical.js';
import type { ImpactRule } from '../core/impact.js';
import type { Attributes, KindName } from '../core/model.js';
import { pick } from '../core/plan-document.js';
import { setOf } from '../core/set-schema.js';

/** A remote object, normalised into the same comparable shape as the desired one. */
export interface RemoteRecord<A extends Attributes = Attributes> {
  id: string;
  key: string;
  attributes: A;
  /** Creation time as the API reports it, when it does: picks the oldest of duplicates. */
  createdAt?: number | undefined;
  /**
   * Set when the server refuses every change to it (the built-in `admins` group): what it is, for
   * export's comment (`built in, read-only (members: admin)`). The planner never updates or deletes
   * it (nor lists it as unmanaged: it is built in), and export writes it as a comment, not as an object.
   */
  readOnly?: string | undefined;
  /**
   * Trailing comments export writes on values of the object: a path into `attributes`
   * (`['permissions', 0, 'permission']`) and the comment's text.
   */
  comments?: readonly ValueComment[] | undefined;
  /**
   * Who last changed it, as the record names them (an application rule's `username`); absent when the
   * record names nobody (groups): never guessed. Only drift reports read it (`changed_by`).
   */
  changedBy?: string | undefined;
  /**
   * When it was last changed, in UNIX milliseconds whatever the family's own unit (an application
   * rule's `timestamp_update` in microseconds, a group's `updated_at` ISO string); absent when the
   * record does not say or says something no date can hold. Drift reports (`changed_at`) and the
   * grace of a pending sync read it.
   */
  changedAt?: number | undefined;
  /**
   * Whether each of its actions reached its firewall (an application rule's actions' `sync_status`,
   * issue 44), one entry per action; absent for a family that has no such thing. Not an attribute:
   * it is never planned or compared, only judged by drift (src/plan/enforcement.ts).
   */
  enforcement?: readonly ActionSync[] | undefined;
  /**
   * The usernames the record itself gives the users its `userFields` hold, by id (a group's `users`
   * are `{id, username}`), where it gives one. Not an attribute (members are compared by id): refresh
   * checks the read-only object's expectation against them, so the default `admin` is found on a
   * server with no user listing, or none named admin, and members read by name without a listing.
   */
  usernames?: ReadonlyMap<string, string> | undefined;
}

/** One action's synchronization: its firewall, and its `sync_status` as the API gave it (if it did). */
export interface ActionSync {
  firewall: string;
  status: string | undefined;
}

/** A comment export writes after one value of an exported object. */
export interface ValueComment {
  path: readonly (string | number)[];
  text: string;
}

/** The attributes of the object the configuration declares under a key, if it declares one. */
export type DesiredLookup<A extends Attributes = Attributes> = (key: string) => A | undefined;

export interface FetchOptions<A extends Attributes = Attributes> {
  /** GET-one calls in flight at once while hydrating list rows. */
  concurrency: number;
  /**
   * The configuration's object of the family under a key. The families that can be large
   * (application rules) look each row up as it is read: an unchanged object's record holds the
   * desired object's attributes (`shared`), one copy instead of two, and the planner's comparison
   * becomes an identity check.
   */
  desired?: DesiredLookup<A>;
}

/** The desired attributes when `remote` equals them (deeply), else `remote`. */
export function shared<A extends Attributes>(desired: A | undefined, remote: A): A {
  return desired !== undefined && sameJson(desired, remote) ? desired : remote;
}

export const nonEmptyString = z.string().min(1);

/** The zod schema of one object of a family's YAML section (an object schema, strict). */
export type ObjectSchema = z.ZodObject;

/**
 * A family's object schema: its natural-key fields, its other fields, and the wafctl-only fields
 * every list family accepts. `ignore_changes` may name exactly the "other" fields: a natural key
 * changes only through `renamed_from`, and `protect`/`ignore_changes`/`renamed_from` are not sent to
 * the API.
 */
export function kindObject<K extends z.ZodRawShape, F extends z.ZodRawShape>(keyFields: K, fields: F) {
  const names = Object.keys(fields) as (keyof F & string)[];
  return z.strictObject({
    ...keyFields,
    ...fields,
    protect: z.boolean().default(false).meta({ description: 'wafctl only: refuse to delete or replace it.' }),
    ignore_changes: setOf(z.enum(names), 'field')
      .default([])
      .meta({ description: 'wafctl only: fields never updated after creation.' }),
    renamed_from: nonEmptyString.optional().meta({
      description:
        'wafctl only: the natural key the object had, as plans print it after the family (a name, or <rq_host>/<description>): the live object with that key is renamed, keeping its id, when no live object has the new key.',
    }),
  });
}

/** How the command line names a family: its section with dashes (`application-rules`), as the API's path. */
export const cliName = (kind: Pick<Kind, 'section'>): string => kind.section.replaceAll('_', '-');

/**
 * Every name a family answers to on the command line (`get KIND`, `--kind`): its section and its
 * plan name, each with dashes or underscores, the dashed section first.
 */
export function spellingsOf(kind: Pick<Kind, 'name' | 'section'>): string[] {
  return [...new Set([cliName(kind), kind.name.replaceAll('_', '-'), kind.section, kind.name])];
}

/** The natural key of an object from its key fields' values: `name`, or `<rq_host>/<description>`. */
export function naturalKeyOf(keyFields: readonly string[], object: Record<string, unknown>): string {
  return keyFields.map((field) => String(object[field] ?? '')).join('/');
}

export interface WriteContext {
  api: ApiClient;
  /** Sent as `username` when creating application rules. */
  username: string;
}

/** An update as a writer receives it: which object, the whole object after, and the fields that change. */
export interface Update<A extends Attributes = Attributes> {
  id: string;
  after: A;
  fields: readonly string[];
}

/** The changed fields' new values: what an API that updates part of an object is sent. */
export function changedValues<A extends Attributes>(update: Update<A>): Partial<A> {
  return pick(update.after, update.fields);
}

/**
 * How a family is written. The applier decides order, batching and recovery from these few facts
 * and calls; the calls only translate planned attributes into the API's request shapes. They are
 * typed with the family's own attribute type `A`: the engine hands a writer only objects the
 * family's `attributes` or `fetchAll` made.
 */
export interface Writer<A extends Attributes = Attributes> {
  /** The API creates many in one call (else one call per object). */
  bulkCreate: boolean;
  /** Updates with identical changed fields can share one call (else one call per object). */
  bulkUpdate: boolean;
  /** The API deletes many in one call (else one call per object). */
  bulkDelete: boolean;
  /**
   * Deletes run before creates: frees names for a rename. Application rules do the opposite, so a
   * replaced rule's successor is live before the old rule goes.
   */
  deletesFirst: boolean;
  /**
   * The write calls. Without the matching bulk flag the applier passes exactly one object, change
   * or id per call, so that a failure is always the failure of that one object.
   */
  /**
   * Returns the ids the API's answer gives the new objects, in any order (undefined: it gave none).
   * They are a claim: the applier proves each by re-reading it with `current`, and matches it to an
   * object sent by key and content; an id that is not new or not borne out makes the answer ambiguous.
   */
  create(ctx: WriteContext, objects: readonly A[]): Promise<readonly string[] | undefined>;
  /** With `bulkUpdate`, every change of one call has the same `after`. */
  update(ctx: WriteContext, changes: readonly Update<A>[]): Promise<void>;
  delete(ctx: WriteContext, ids: readonly string[]): Promise<void>;
  /** Re-read after an ambiguous create: the live ids of each of these keys. */
  idsByKey(ctx: WriteContext, objects: readonly A[]): Promise<Map<string, string[]>>;
  /**
   * The attributes (normalised as fetchAll does) of those of these ids that exist: the re-read that
   * proves a create, and the one after an ambiguous update or a failed delete.
   */
  current(ctx: WriteContext, ids: readonly string[]): Promise<Map<string, A>>;
}

/**
 * One resource family. `Section` is its YAML key and `Schema` the zod schema of one of its objects:
 * the registry's derived types (the document schema, `DesiredState`) follow from them.
 */
export interface Kind<
  Section extends string = string,
  Schema extends ObjectSchema = ObjectSchema,
  A extends Attributes = Attributes,
> {
  /** The name in plans and addresses (`group`, `application_rule`, ...). */
  name: KindName;
  /**
   * The top-level YAML key and `manage` key (`groups`, `application_rules`, ...). `get` and
   * `export --kind` also take it with dashes (`application-rules`), the API's path segment.
   */
  section: Section;
  /** The singular noun of messages (`group`, `application rule`); the plural is the section's words. */
  noun: string;
  /**
   * The natural key's fields, in order: the key is their values joined with `/` (`name`, or
   * `<rq_host>/<description>`). Every field but the last must not hold a `/`.
   */
  keyFields: readonly string[];
  /** One object of the YAML section: validation, the loaded model's type and the editor schema. */
  schema: Schema;
  /** Fields that cannot be updated in place: a change to one replaces the object. */
  immutable: readonly string[];
  /**
   * Key fields the API does not update (a notification's `name`, its path key; a rule's `rq_host`):
   * a rename (`renamed_from`) that changes one replaces the object, and the plan says why. Absent:
   * every key field is updated in place.
   */
  fixedKeyFields?: readonly string[];
  /** The desired object without wafctl-only fields, sets sorted: what is compared and shown. */
  attributes(desired: z.output<Schema>): A;
  /** Every remote object of the family, hydrated where the listing is incomplete, normalised. */
  fetchAll(api: ApiClient, options: FetchOptions<NoInfer<A>>): Promise<RemoteRecord<NoInfer<A>>[]>;
  /**
   * What a change of this family does to security: a small table of rows, each a class and the
   * reasons it finds (src/core/impact.ts runs them; the planner attaches the result).
   */
  impact: readonly ImpactRule[];
  writer: Writer<NoInfer<A>>;
  /** `wafctl get` of the family: its table, its listing and its lookup by id or name. */
  get: GetSpec;
  /**
   * A singleton section: the family is one object that always exists on the server (settings). Its
   * YAML section is that object (a mapping, not a list, without `protect`/`ignore_changes`), its key
   * is the section's name (`keyFields` is empty), it has no `manage` scope (nothing to prune or
   * match), and a configuration that leaves the section out does not manage it. `fetchAll` gives
   * exactly one record (id and key: the section), so the planner only ever updates it; the
   * writer's `create` and `delete` are never called.
   */
  singleton?: boolean;
  /**
   * List fields whose items are users, written by username or id (a group's `users`). Refresh turns
   * them into ids through the user directory before planning (kinds/users.ts), export writes
   * usernames, and the loader records where each item is, so an unknown one is named at its place.
   */
  userFields?: readonly string[];
  /**
   * A read-only object of the family (the built-in `admins` group) that a configuration may state
   * expectations of, in its own top-level section: checked against the live object, never written.
   * The section's fields are all optional; a field left out is not checked, except those `defaults`
   * gives (the default must catch the escalation that matters: an added administrator).
   */
  expectation?: ReadOnlyExpectation;
  /** The natural key, from an object's attributes (desired and remote share one shape). */
  keyOf(attributes: Attributes): string;
}

/** See `Kind.expectation`. */
export interface ReadOnlyExpectation {
  /** The configuration's top-level key: `admins`. */
  section: string;
  /** The read-only object's natural key. */
  key: string;
  /** The section's schema: a strict object of optional fields, in the family's file form. */
  schema: z.ZodObject;
  /** What is expected of the fields the section leaves out (file form: members by username). */
  defaults: Attributes;
  /** The section's fields (file form, validated) as compared: the family's attribute shape, sets sorted. */
  attributes(expected: Attributes): Attributes;
}

/** A descriptor as a family file writes it: everything but what is derived (`keyOf`). */
export type KindSpec<Section extends string, Schema extends ObjectSchema, A extends Attributes> = Omit<
  Kind<Section, Schema, A>,
  'keyOf'
>;

/** A family's descriptor, with what follows from its spec derived once, here. */
export function defineKind<Section extends string, Schema extends ObjectSchema, A extends Attributes>(
  spec: KindSpec<Section, Schema, A>,
): Kind<Section, Schema, A> {
  if (spec.singleton) return { ...spec, keyOf: () => spec.section };
  return { ...spec, keyOf: (attributes) => naturalKeyOf(spec.keyFields, attributes) };
}

/** One column of `wafctl get`'s table: a header, and the text of a row's cell. */
export interface Column<Row> {
  header: string;
  cell(row: Row): string;
}

/**
 * How `wafctl get` reads a family. `Row` is the API's record of the family (`Group`, ...): what the
 * listing yields, the table shows and JSON and YAML print whole.
 */
export interface GetSpec<Row extends object = object> {
  /**
   * The table's columns: first the id (or the name, for a family keyed by name), then the fields a
   * person recognises an object by, its state and its timestamps. JSON and YAML show everything.
   */
  columns: readonly Column<Row>[];
  /** The listing, page by page, with `--filter`'s NAME=VALUE filters (checked by the client). */
  list(api: ApiClient, filters: RawFilters): AsyncIterable<Row>;
  /**
   * A listed row made whole for JSON and YAML (a GET-one, where the listing leaves fields out).
   * Absent when the listing's rows are whole.
   */
  complete?(api: ApiClient, row: Row): Promise<Row>;
  /** `wafctl get KIND ID_OR_NAME`. */
  find: {
    /** What the GET-one takes: an id, or the name of a family keyed by name. */
    by: 'id' | 'name';
    /** The GET-one; the API answers an unknown id (or name) with a 400 or a 404. */
    one(api: ApiClient, idOrName: string): Promise<Row>;
    /** When no object has that id: the object with exactly this name, if one has it. */
    named?(api: ApiClient, name: string): Promise<Row | undefined>;
  };
}

/**
 * A family's `get`, typed with its API record (`defineGet<Group>({ ... })`); the registry holds it
 * as a `GetSpec` of any record.
 */
export function defineGet<Row extends object>(spec: GetSpec<Row>): GetSpec<Row> {
  return spec;
}

/**
 * The re-read by key of a family keyed by name whose listing is cheap to read whole (groups,
 * notifications, schedules: a page or two, against thousands of rules).
 */
export function idsByName<A extends Attributes>(
  list: (api: ApiClient) => Promise<{ id: string; key: string }[]>,
): Pick<Writer<A>, 'idsByKey'> {
  return {
    async idsByKey({ api }, objects) {
      return indexIds(await list(api), new Set(objects.map((o) => String(o.name))));
    },
  };
}

/** Hydrating GET-ones in flight during a re-read (rare: only after an ambiguous answer). */
export const REREAD_CONCURRENCY = 8;

/** The attributes of those `records` whose id is one of `ids`, for `current`. */
export function attributesById<A extends Attributes>(
  records: readonly RemoteRecord<A>[],
  ids: readonly string[],
): Map<string, A> {
  const wanted = new Set(ids);
  return new Map(records.filter((r) => wanted.has(r.id)).map((r) => [r.id, r.attributes]));
}

/** Groups ids by key, for `idsByKey`. */
export function indexIds(
  records: readonly { id: string; key: string }[],
  keys: ReadonlySet<string>,
): Map<string, string[]> {
  const byKey = new Map<string, string[]>();
  for (const { id, key } of records) {
    if (!keys.has(key)) continue;
    byKey.set(key, [...(byKey.get(key) ?? []), id]);
  }
  return byKey;
}
