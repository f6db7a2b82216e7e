/**
 * What the engine needs to know about one resource family. The planner, the applier and the
 * renderers know no family; each family is one object implementing this interface, in one file.
 * Adding a fifth family means one file here and one line in `index.ts`.
 */
import type { ApiClient } from '../api/index.js';
import type { DesiredState, KindName as Section } from '../config/schema.js';
import { sameJson } from '../core/canonical.js';
import type { ImpactRule } from '../core/impact.js';
import type { Attributes, KindName, UpdateChange } from '../core/model.js';

/** A remote object, normalised into the same comparable shape as the desired one. */
export interface RemoteRecord {
  id: string;
  key: string;
  attributes: Attributes;
  /** Creation time as the API reports it, when it does: picks the oldest of duplicates. */
  createdAt?: number | undefined;
}

/** The attributes of the object the configuration declares under a key, if it declares one. */
export type DesiredLookup = (key: string) => Attributes | undefined;

export interface FetchOptions {
  /** GET-one calls in flight at once while hydrating list rows. */
  concurrency: number;
  /**
   * The configuration's object of the family under a key. The families that can be large
   * (application rules) look each row up as it is read: an unchanged object's record holds the
   * desired object's attributes (`shared`), one copy instead of two, and the planner's comparison
   * becomes an identity check.
   */
  desired?: DesiredLookup;
}

/** The desired attributes when `remote` equals them (deeply), else `remote`. */
export function shared(desired: Attributes | undefined, remote: Attributes): Attributes {
  return desired !== undefined && sameJson(desired, remote) ? desired : remote;
}

export type DesiredOf<S extends Section> = DesiredState[S][number];

export interface WriteContext {
  api: ApiClient;
  /** Sent as `username` when creating application rules. */
  username: string;
}

/**
 * How a family is written. The applier decides order, batching and recovery from these few facts
 * and calls; the calls only translate planned attributes into the API's request shapes.
 */
export interface Writer {
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
  create(ctx: WriteContext, objects: readonly Attributes[]): Promise<void>;
  /** With `bulkUpdate`, every change of one call has the same `after`. */
  update(ctx: WriteContext, changes: readonly UpdateChange[]): Promise<void>;
  delete(ctx: WriteContext, ids: readonly string[]): Promise<void>;
  /** Re-read after an ambiguous create: the live ids of each of these keys. */
  idsByKey(ctx: WriteContext, objects: readonly Attributes[]): Promise<Map<string, string[]>>;
  /**
   * Re-read after an ambiguous update or a failed delete: the attributes (normalised as fetchAll
   * does) of those of these ids that exist.
   */
  current(ctx: WriteContext, ids: readonly string[]): Promise<Map<string, Attributes>>;
}

export interface Kind<S extends Section = Section> {
  /** The name in plans (`group`, `application_rule`, ...). */
  name: KindName;
  /** The top-level YAML key and `manage` key (`groups`, `application_rules`, ...). */
  section: S;
  /** Fields that cannot be updated in place: a change to one replaces the object. */
  immutable: readonly string[];
  /** The desired object without wafctl-only fields, sets sorted: what is compared and shown. */
  attributes(desired: DesiredOf<S>): Attributes;
  /** Every remote object of the family, hydrated where the listing is incomplete, normalised. */
  fetchAll(api: ApiClient, options: FetchOptions): Promise<RemoteRecord[]>;
  /** The natural key, from an object's attributes (desired and remote share one shape). */
  keyOf(attributes: Attributes): string;
  /**
   * What a change of this family does to security: a small table of rows, each a class and the
   * reasons it finds (src/core/impact.ts runs them; the planner attaches the result).
   */
  impact: readonly ImpactRule[];
  writer: Writer;
}

/**
 * The re-read by key of a family keyed by name whose listing is cheap to read whole (groups,
 * notifications, schedules: a page or two, against thousands of rules).
 */
export function idsByName(
  list: (api: ApiClient) => Promise<{ id: string; key: string }[]>,
): Pick<Writer, 'idsByKey'> {
  return {
    async idsByKey({ api }, objects) {
      return indexIds(await list(api), new Set(objects.map((o) => String(o.name))));
    },
  };
}

/** Hydrating GET-ones in flight during a re-read (rare: only after an ambiguous answer). */
export const REREAD_CONCURRENCY = 8;

/** The attributes of those `records` whose id is one of `ids`, for `current`. */
export function attributesById(
  records: readonly RemoteRecord[],
  ids: readonly string[],
): Map<string, Attributes> {
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
