/**
 * The emulator's in-memory records. Maps keep insertion order, which is creation order, so listings
 * are stable without sorting. Route handlers validate first and mutate second, so a failed request
 * never leaves a half-applied change behind.
 */
import {
  type ApplicationRule,
  type Group,
  type NextIds,
  type Notification,
  type Rule,
  type Schedule,
  STATE_FORMAT_VERSION,
  type StoreState,
  type User,
} from './records.js';

const FIRST_IDS: NextIds = { group: 1, application_rule: 1, condition: 1, schedule: 1 };

export class Store {
  readonly users = new Map<string, User>();
  readonly rules = new Map<string, Rule>();
  readonly groups = new Map<string, Group>();
  readonly applicationRules = new Map<string, ApplicationRule>();
  /** Keyed by name: the name is the notification's path key. */
  readonly notifications = new Map<string, Notification>();
  readonly schedules = new Map<string, Schedule>();
  private readonly nextIds: NextIds;
  private lastMicros = 0;

  private constructor(nextIds: NextIds) {
    this.nextIds = { ...nextIds };
  }

  static fromDirectory(users: readonly User[], rules: readonly Rule[]): Store {
    const store = new Store(FIRST_IDS);
    // Only id and username: a seed user's token must never reach the state file.
    for (const { id, username } of users) store.users.set(id, { id, username });
    for (const rule of rules) store.rules.set(rule.id, rule);
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
    // A hand-edited file may hold ids beyond its counters; never hand those out again.
    store.raiseCounter('group', store.groups.keys());
    store.raiseCounter('application_rule', store.applicationRules.keys());
    store.raiseCounter('condition', conditionIds(store.applicationRules.values()));
    store.raiseCounter('schedule', store.schedules.keys());
    return store;
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

  snapshot(): StoreState {
    return {
      format_version: STATE_FORMAT_VERSION,
      users: [...this.users.values()],
      rules: [...this.rules.values()],
      groups: [...this.groups.values()],
      application_rules: [...this.applicationRules.values()],
      notifications: [...this.notifications.values()],
      schedules: [...this.schedules.values()],
      next_ids: { ...this.nextIds },
    };
  }

  private raiseCounter(kind: keyof NextIds, ids: Iterable<string>): void {
    for (const id of ids) {
      const n = Number(id);
      if (Number.isSafeInteger(n) && n >= this.nextIds[kind]) this.nextIds[kind] = n + 1;
    }
  }
}

function* conditionIds(rules: Iterable<ApplicationRule>): Iterable<string> {
  for (const rule of rules) for (const condition of rule.conditions) yield condition.id;
}
