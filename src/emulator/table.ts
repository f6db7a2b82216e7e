/**
 * The collection table made whole: the built-in entries (collections.ts) and any a test adds, checked
 * once, with what is derived from them: the id counters, the privileges, and the state format that
 * persistence/ keeps (the state file's schema, a journal line's `changes` and `next_ids`, and the
 * invariants a loaded state must satisfy).
 *
 * The format is the one the state file has always had: `format_version: 1`, then each collection as
 * an array of records, in table order, then `next_ids`. A collection added later (`addedLater`) may be
 * absent from a file, and so may its counter: such a file still loads.
 */
import { z } from 'zod';
import type { CollectionChange } from './collection.js';
import {
  COLLECTIONS,
  type CollectionSpec,
  type NextIds,
  type StoreChanges,
  type StoreState,
} from './collections.js';
import { stateIssues } from './invariants.js';
import type { Grant } from './permissions.js';
import type { StateFormat } from './persistence/format.js';
import { issueLines } from './validation.js';

export const STATE_FORMAT_VERSION = 1;

/** Names the state file uses for itself: no collection may take one. */
const RESERVED_NAMES = new Set(['format_version', 'next_ids', 'journal_seq']);
/** The privilege of sign-in, which needs no token: no collection's (auth.ts). */
export const SIGNIN_PRIVILEGE = 'signin';

/** One counter of `next_ids`, and whether a state file may lack it. */
interface Counter {
  name: string;
  addedLater: boolean;
}

export class CollectionTable {
  /** The collections, in the state file's order. */
  readonly specs: readonly CollectionSpec[];
  /** The counters of `next_ids`, in the order of their collections. */
  readonly counters: readonly string[];
  /** What persistence keeps, and checks when it reads it back. */
  readonly format: StateFormat<StoreState, StoreChanges, NextIds>;
  private readonly grants = new Map<string, Grant>();

  constructor(specs: readonly CollectionSpec[]) {
    const names = new Set<string>();
    const counters: Counter[] = [];
    for (const spec of specs) {
      if (names.has(spec.name) || RESERVED_NAMES.has(spec.name)) {
        throw new Error(`collection table: the name '${spec.name}' is taken`);
      }
      names.add(spec.name);
      for (const counter of [spec.counter, spec.innerIds?.counter]) {
        if (counter === undefined) continue;
        if (counters.some((c) => c.name === counter)) {
          throw new Error(`collection table: the id counter '${counter}' is used twice`);
        }
        counters.push({ name: counter, addedLater: spec.addedLater === true });
      }
      for (const [privilege, grant] of Object.entries<Grant>(spec.privileges)) {
        if (this.grants.has(privilege) || privilege === SIGNIN_PRIVILEGE) {
          throw new Error(`collection table: the privilege '${privilege}' is named twice`);
        }
        this.grants.set(privilege, grant);
      }
    }
    this.specs = specs;
    this.counters = counters.map((c) => c.name);
    this.format = {
      state: stateSchema(specs, counters),
      stateIssues: (state) => stateIssues(specs, state),
      changes: changesSchema(specs),
      nextIds: nextIdsSchema(counters),
      explain: issueLines,
    };
  }

  /** Which non-administrators have a privilege; undefined when no collection names it. */
  grant(privilege: string): Grant | undefined {
    return this.grants.get(privilege);
  }

  /** Every counter at 1: a fresh store's. */
  firstIds(): NextIds {
    return Object.fromEntries(this.counters.map((name) => [name, 1])) as NextIds;
  }
}

function nextIdsSchema(counters: readonly Counter[]): z.ZodType<NextIds> {
  const counter = z.int().min(1);
  const shape = Object.fromEntries(
    counters.map(({ name, addedLater }) => [name, addedLater ? counter.default(1) : counter]),
  );
  return z.strictObject(shape) as unknown as z.ZodType<NextIds>;
}

function stateSchema(specs: readonly CollectionSpec[], counters: readonly Counter[]) {
  const shape: Record<string, z.ZodType> = { format_version: z.literal(STATE_FORMAT_VERSION) };
  for (const spec of specs) {
    const records = z.array(spec.schema);
    const bounded = spec.singleton === undefined ? records : records.max(1);
    shape[spec.name] = spec.addedLater ? bounded.default([]) : bounded;
  }
  shape.next_ids = nextIdsSchema(counters);
  return z.strictObject(shape);
}

/** A journal line's changes: for each collection the write touched, its upserts and deletes. */
function changesSchema(specs: readonly CollectionSpec[]): z.ZodType<StoreChanges> {
  const change = (record: z.ZodType<object>): z.ZodType<CollectionChange<object>> =>
    z.strictObject({ upsert: z.array(record), delete: z.array(z.string().min(1)) });
  const shape = Object.fromEntries(specs.map((spec) => [spec.name, change(spec.schema).optional()]));
  return z.strictObject(shape) as unknown as z.ZodType<StoreChanges>;
}

/** The built-in table: what the emulator keeps when no test adds to it. */
const BUILT_IN_TABLE = new CollectionTable(COLLECTIONS);

/** The built-in table, plus `extra` collections after it (a test's). */
export function tableWith(extra: readonly CollectionSpec[]): CollectionTable {
  return extra.length === 0 ? BUILT_IN_TABLE : new CollectionTable([...COLLECTIONS, ...extra]);
}
