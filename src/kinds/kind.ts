/**
 * What the engine needs to know about one resource family. The planner, the applier and the
 * renderers know no family; each family is one object implementing this interface, in one file.
 * Adding a fifth family means one file here and one line in `index.ts`.
 */
import type { ApiClient } from '../api/index.js';
import type { DesiredState, KindName as Section } from '../config/schema.js';
import type { Attributes, KindName } from '../plan/model.js';

/** A remote object, normalised into the same comparable shape as the desired one. */
export interface RemoteRecord {
  id: string;
  key: string;
  attributes: Attributes;
}

export interface FetchOptions {
  /** GET-one calls in flight at once while hydrating list rows. */
  concurrency: number;
}

export type DesiredOf<S extends Section> = DesiredState[S][number];

export interface Kind<S extends Section = Section> {
  /** The name in plans (`group`, `application_rule`, ...). */
  name: KindName;
  /** The top-level YAML key and `manage` key (`groups`, `application_rules`, ...). */
  section: S;
  /** Fields that cannot be updated in place: a change to one replaces the object. */
  immutable: readonly string[];
  key(desired: DesiredOf<S>): string;
  /** The desired object without wafctl-only fields, sets sorted: what is compared and shown. */
  attributes(desired: DesiredOf<S>): Attributes;
  /** Every remote object of the family, hydrated where the listing is incomplete, normalised. */
  fetchAll(api: ApiClient, options: FetchOptions): Promise<RemoteRecord[]>;
}
