/**
 * The emulator's in-memory records: one Collection per entry of the collection table (collections.ts),
 * reached with `store.collection(GROUPS)`. Maps keep insertion order, which is creation order, so
 * listings are stable without sorting. Route handlers validate first and mutate second, so a failed
 * request never leaves a half-applied change behind. Each request runs inside a write
 * (beginWrite/endWrite): its effect is what the state file journals, and its undo is how a write
 * that could not be saved is taken back.
 */
import type { z } from 'zod';
import { Collection, type CollectionChange } from './collection.js';
import {
  type CollectionSpec,
  GROUPS,
  type NextIds,
  type RecordSchema,
  RULES,
  type StoreChanges,
  type StoreRecord,
  type StoreState,
  USERS,
} from './collections.js';
import { counterValue, issueAfterReplay, issueBeforeReplay } from './invariants.js';
import type { StateIssue, WriteEffect } from './persistence/format.js';
import type { Group, Rule, User } from './records.js';
import { type CollectionTable, STATE_FORMAT_VERSION } from './table.js';

/** What one write did: enough to replay it (changes, counters) and to take it back (undo). */
type StoreEffect = WriteEffect<StoreChanges, NextIds>;

type Fields = Readonly<Record<string, unknown>>;

/**
 * The emulator's time: UNIX milliseconds. Injectable so that tests move it forward instead of
 * sleeping (a sync delay, timestamps); the API client's `Clock` fits it.
 */
export interface EmulatorClock {
  now(): number;
}

export const SYSTEM_CLOCK: EmulatorClock = { now: () => Date.now() };

export class Store {
  /** By collection name, in table order. */
  private readonly collections = new Map<string, Collection<Fields>>();
  private readonly nextIds: Record<string, number>;
  private lastMicros = 0;
  private idsBeforeWrite: Record<string, number> | undefined;

  private constructor(
    readonly table: CollectionTable,
    nextIds: NextIds,
    private readonly clock: EmulatorClock,
  ) {
    this.nextIds = { ...nextIds };
    for (const spec of table.specs) this.collections.set(spec.name, new Collection<Fields>());
  }

  /**
   * A fresh store: the directory, and each singleton's record. Groups without an id are numbered by
   * the group counter, in order; the counter starts above every numeric id a group was given, so the
   * API never hands one out twice.
   */
  static fromDirectory(
    table: CollectionTable,
    users: readonly User[],
    rules: readonly Rule[],
    groups: readonly (Omit<Group, 'id'> & { id?: string })[] = [],
    clock: EmulatorClock = SYSTEM_CLOCK,
  ): Store {
    const firstIds = table.firstIds();
    const given = groups.flatMap((g) => {
      const n = g.id === undefined ? undefined : counterValue(g.id);
      return n === undefined ? [] : [n];
    });
    const first = given.reduce((next, n) => Math.max(next, n + 1), firstIds.group);
    const store = new Store(
      table,
      { ...firstIds, group: Number.isSafeInteger(first) ? first : firstIds.group },
      clock,
    );
    // Only id and username: a seed user's token must never reach the state file.
    for (const { id, username } of users) store.collection(USERS).set(id, { id, username });
    for (const rule of rules) store.collection(RULES).set(rule.id, rule);
    for (const group of groups) {
      const id = group.id ?? store.nextId('group');
      store.collection(GROUPS).set(id, { ...group, id });
    }
    store.fillSingletons();
    return store;
  }

  /** The store a state file holds (its invariants were checked as it loaded: invariants.ts). */
  static fromState(table: CollectionTable, state: StoreState, clock: EmulatorClock = SYSTEM_CLOCK): Store {
    const store = new Store(table, state.next_ids, clock);
    const lists = state as unknown as Readonly<Record<string, readonly Fields[] | undefined>>;
    for (const spec of table.specs) {
      const collection = store.collection(spec);
      for (const record of lists[spec.name] ?? []) collection.set(keyOf(spec, record), record);
    }
    store.fillSingletons();
    return store;
  }

  /** A collection of the table, typed by its entry. */
  collection<S extends RecordSchema>(spec: CollectionSpec<S>): Collection<z.output<S>> {
    const collection = this.collections.get(spec.name);
    if (collection === undefined) throw new Error(`the store has no collection '${spec.name}'`);
    return collection as Collection<z.output<S>>;
  }

  /** The id counters as they stand. */
  counters(): NextIds {
    return { ...this.nextIds } as NextIds;
  }

  /** The next id of a counter of the table (`group`, `application_rule`, `condition`, ...). */
  nextId(counter: string): string {
    const id = this.nextIds[counter];
    if (id === undefined) throw new Error(`the collection table has no id counter '${counter}'`);
    this.nextIds[counter] = id + 1;
    return String(id);
  }

  /** UNIX microseconds, strictly increasing, so records created in one request still sort apart. */
  nowMicros(): number {
    this.lastMicros = Math.max(this.lastMicros + 1, this.clockMicros());
    return this.lastMicros;
  }

  /**
   * The clock in UNIX microseconds as it is (not bumped like `nowMicros`): what a delay is measured
   * on, so that a delay of D ms has passed exactly when the clock has moved D ms.
   */
  clockMicros(): number {
    return Math.floor(this.clock.now() * 1000);
  }

  nowIso(): string {
    return new Date(this.clock.now()).toISOString();
  }

  usernameOf(userId: string): string {
    return this.collection(USERS).get(userId)?.username ?? userId;
  }

  /** Starts recording changes; every request runs inside one write (requests never interleave in it). */
  beginWrite(): void {
    if (this.idsBeforeWrite !== undefined) throw new Error('a store write is already open');
    this.idsBeforeWrite = { ...this.nextIds };
    for (const collection of this.collections.values()) collection.beginWrite();
  }

  /** Ends the write; undefined when it changed nothing (counters included). */
  endWrite(): StoreEffect | undefined {
    const idsBefore = this.idsBeforeWrite ?? this.nextIds;
    this.idsBeforeWrite = undefined;
    const changes: Record<string, CollectionChange<Fields>> = {};
    const undos: (() => void)[] = [];
    for (const [name, collection] of this.collections) {
      const { change, undo } = collection.endWrite();
      if (change === undefined) continue;
      changes[name] = change;
      undos.push(undo);
    }
    const idsChanged = Object.keys(idsBefore).some((kind) => idsBefore[kind] !== this.nextIds[kind]);
    if (undos.length === 0 && !idsChanged) return undefined;
    return {
      changes: changes as StoreChanges,
      next_ids: this.counters(),
      undo: () => {
        for (const undo of undos) undo();
        Object.assign(this.nextIds, idsBefore);
      },
    };
  }

  /** Replays a journaled write: deletions first, then upserts in their recorded order. */
  applyChanges(changes: StoreChanges, nextIds: NextIds): void {
    const byName = changes as Readonly<Record<string, CollectionChange<Fields> | undefined>>;
    for (const spec of this.table.specs) {
      const change = byName[spec.name];
      if (change === undefined) continue;
      const collection = this.collection(spec);
      for (const key of change.delete) collection.delete(key);
      for (const value of change.upsert) collection.set(keyOf(spec, value), value);
    }
    Object.assign(this.nextIds, nextIds);
  }

  /**
   * Applies one journal record, checked against the store before (counters, keys upserted twice)
   * and after (counted ids, unique fields: invariants.ts): its first problem, or undefined.
   */
  replay(record: StoreRecord): StateIssue | undefined {
    const before = issueBeforeReplay(this.table.specs, record, this.nextIds);
    if (before !== undefined) return before;
    this.applyChanges(record.changes, record.next_ids);
    return issueAfterReplay(this.table.specs, record, (spec) => this.collection(spec).values());
  }

  /** The whole store as the state file holds it: the collections in table order, then the counters. */
  snapshot(): StoreState {
    const state: Record<string, unknown> = { format_version: STATE_FORMAT_VERSION };
    for (const [name, collection] of this.collections) state[name] = [...collection.values()];
    state.next_ids = this.counters();
    return state as StoreState;
  }

  /** A singleton collection left empty (a fresh store, a state file from before it) gets its record. */
  private fillSingletons(): void {
    for (const spec of this.table.specs) {
      const collection = this.collection(spec);
      if (spec.singleton !== undefined && collection.size === 0) {
        collection.set(keyOf(spec, spec.singleton), spec.singleton);
      }
    }
  }
}

/** The key of a record in its collection (the schemas make it a string). */
function keyOf(spec: CollectionSpec, record: object): string {
  return String((record as Fields)[spec.key] ?? '');
}
