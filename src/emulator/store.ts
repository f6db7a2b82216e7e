/**
 * The emulator's in-memory records. Maps keep insertion order, which is creation order, so listings
 * are stable without sorting. Route handlers validate first and mutate second, so a failed request
 * never leaves a half-applied change behind. Each request runs inside a write (beginWrite/endWrite):
 * its effect is what the state file journals, and its undo is how a write that could not be saved
 * is taken back.
 */
import { Collection, type CollectionChange } from './collection.js';
import {
  type ApplicationRule,
  DEFAULT_RULE_SETTINGS,
  type Group,
  type NextIds,
  type Notification,
  RULE_SETTINGS_ID,
  type Rule,
  type RuleSettings,
  type Schedule,
  STATE_FORMAT_VERSION,
  type StoreState,
  type User,
} from './records.js';

const FIRST_IDS: NextIds = { group: 1, application_rule: 1, condition: 1, schedule: 1 };

/** One write's changes, by collection (named as in the state file); untouched collections are absent. */
export interface StoreChanges {
  users?: CollectionChange<User>;
  rules?: CollectionChange<Rule>;
  groups?: CollectionChange<Group>;
  application_rules?: CollectionChange<ApplicationRule>;
  notifications?: CollectionChange<Notification>;
  schedules?: CollectionChange<Schedule>;
  rule_settings?: CollectionChange<RuleSettings>;
}

/** What one write did: enough to replay it (changes, counters) and to take it back (undo). */
export interface WriteEffect {
  changes: StoreChanges;
  next_ids: NextIds;
  undo(): void;
}

export class Store {
  readonly users = new Collection<User>();
  readonly rules = new Collection<Rule>();
  readonly groups = new Collection<Group>();
  readonly applicationRules = new Collection<ApplicationRule>();
  /** Keyed by name: the name is the notification's path key. */
  readonly notifications = new Collection<Notification>();
  readonly schedules = new Collection<Schedule>();
  /** The network-rule settings: one record, under RULE_SETTINGS_ID (always present). */
  readonly ruleSettings = new Collection<RuleSettings>();
  private readonly nextIds: NextIds;
  private lastMicros = 0;
  private idsBeforeWrite: NextIds | undefined;

  private constructor(nextIds: NextIds) {
    this.nextIds = { ...nextIds };
  }

  /**
   * A fresh store. Groups without an id are numbered by the group counter, in order; the counter
   * starts above every numeric id a group was given, so the API never hands one out twice.
   */
  static fromDirectory(
    users: readonly User[],
    rules: readonly Rule[],
    groups: readonly (Omit<Group, 'id'> & { id?: string })[] = [],
  ): Store {
    const given = groups.flatMap((g) =>
      g.id !== undefined && /^(?:0|[1-9][0-9]*)$/.test(g.id) ? [Number(g.id)] : [],
    );
    const first = given.reduce((next, n) => Math.max(next, n + 1), FIRST_IDS.group);
    const store = new Store({ ...FIRST_IDS, group: Number.isSafeInteger(first) ? first : FIRST_IDS.group });
    // Only id and username: a seed user's token must never reach the state file.
    for (const { id, username } of users) store.users.set(id, { id, username });
    for (const rule of rules) store.rules.set(rule.id, rule);
    store.ruleSettings.set(RULE_SETTINGS_ID, DEFAULT_RULE_SETTINGS);
    for (const group of groups) {
      const id = group.id ?? store.nextId('group');
      store.groups.set(id, { ...group, id });
    }
    return store;
  }

  static fromState(state: StoreState): Store {
    const store = new Store(state.next_ids);
    for (const user of state.users) store.users.set(user.id, user);
    for (const rule of state.rules) store.rules.set(rule.id, rule);
    for (const group of state.groups) store.groups.set(group.id, group);
    for (const rule of state.application_rules) store.applicationRules.set(rule.id, rule);
    for (const notification of state.notifications) store.notifications.set(notification.name, notification);
    for (const schedule of state.schedules) store.schedules.set(schedule.id, schedule);
    store.ruleSettings.set(RULE_SETTINGS_ID, state.rule_settings[0] ?? DEFAULT_RULE_SETTINGS);
    // Keys unique, every id below its counter: checked when the file was loaded (invariants.ts).
    return store;
  }

  /** The id counters as they stand (replay checks that a journal record never sets them back). */
  counters(): NextIds {
    return { ...this.nextIds };
  }

  nextId(kind: keyof NextIds): string {
    const id = this.nextIds[kind];
    this.nextIds[kind] = id + 1;
    return String(id);
  }

  /** UNIX microseconds, strictly increasing, so records created in one request still sort apart. */
  nowMicros(): number {
    this.lastMicros = Math.max(this.lastMicros + 1, Date.now() * 1000);
    return this.lastMicros;
  }

  nowIso(): string {
    return new Date().toISOString();
  }

  usernameOf(userId: string): string {
    return this.users.get(userId)?.username ?? userId;
  }

  /** Starts recording changes; every request runs inside one write (requests never interleave in it). */
  beginWrite(): void {
    if (this.idsBeforeWrite !== undefined) throw new Error('a store write is already open');
    this.idsBeforeWrite = { ...this.nextIds };
    for (const collection of this.collections()) collection.beginWrite();
  }

  /** Ends the write; undefined when it changed nothing (counters included). */
  endWrite(): WriteEffect | undefined {
    const idsBefore = this.idsBeforeWrite ?? this.nextIds;
    this.idsBeforeWrite = undefined;
    const changes: Record<string, unknown> = {};
    const undos: (() => void)[] = [];
    for (const [name, collection] of this.namedCollections()) {
      const { change, undo } = collection.endWrite();
      if (change === undefined) continue;
      changes[name] = change;
      undos.push(undo);
    }
    const idsChanged = (Object.keys(idsBefore) as (keyof NextIds)[]).some(
      (kind) => idsBefore[kind] !== this.nextIds[kind],
    );
    if (undos.length === 0 && !idsChanged) return undefined;
    return {
      changes: changes as StoreChanges,
      next_ids: { ...this.nextIds },
      undo: () => {
        for (const undo of undos) undo();
        Object.assign(this.nextIds, idsBefore);
      },
    };
  }

  /** Replays a journaled write: deletions first, then upserts in their recorded order. */
  applyChanges(changes: StoreChanges, nextIds: NextIds): void {
    for (const [name, collection] of this.namedCollections()) {
      const change = changes[name] as CollectionChange<{ id?: string; name?: string }> | undefined;
      if (change === undefined) continue;
      for (const key of change.delete) collection.delete(key);
      const keyOf =
        name === 'notifications' ? (v: { name?: string }) => v.name : (v: { id?: string }) => v.id;
      for (const value of change.upsert) (collection as Collection<unknown>).set(keyOf(value) ?? '', value);
    }
    Object.assign(this.nextIds, nextIds);
  }

  snapshot(): StoreState {
    return {
      format_version: STATE_FORMAT_VERSION,
      users: [...this.users.values()],
      rules: [...this.rules.values()],
      groups: [...this.groups.values()],
      application_rules: [...this.applicationRules.values()],
      notifications: [...this.notifications.values()],
      schedules: [...this.schedules.values()],
      rule_settings: [...this.ruleSettings.values()],
      next_ids: { ...this.nextIds },
    };
  }

  private namedCollections(): [keyof StoreChanges, Collection<unknown>][] {
    return [
      ['users', this.users],
      ['rules', this.rules],
      ['groups', this.groups],
      ['application_rules', this.applicationRules],
      ['notifications', this.notifications],
      ['schedules', this.schedules],
      ['rule_settings', this.ruleSettings],
    ] as [keyof StoreChanges, Collection<unknown>][];
  }

  private collections(): Collection<unknown>[] {
    return this.namedCollections().map(([, collection]) => collection);
  }
}
