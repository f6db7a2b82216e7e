/** A hand-made ApiClient for kind and refresh tests: only the read calls, each counted. */
import type { ApiClient, ApplicationRule, Group, Notification, Schedule } from '../../src/api/index.js';

export interface FakeData {
  groups?: Group[];
  applicationRules?: ApplicationRule[];
  notifications?: Notification[];
  schedules?: Schedule[];
  /** Make a listing fail, e.g. with an IncompleteListingError. */
  failApplicationRules?: Error;
}

export function fakeApi(data: FakeData): { api: ApiClient; calls: string[] } {
  const calls: string[] = [];
  const find = <T extends { id: string }>(rows: T[] | undefined, id: string): T => {
    const row = rows?.find((r) => r.id === id);
    if (!row) throw new Error(`no ${id}`);
    return row;
  };
  const api = {
    groups: {
      list: async () => {
        calls.push('groups.list');
        return (data.groups ?? []).map(({ permissions: _p, users: _u, ...row }) => row);
      },
      get: async (id: string) => {
        calls.push(`groups.get ${id}`);
        return find(data.groups, id);
      },
    },
    applicationRules: {
      // The rows as the listing gives them: incomplete ones without conditions and with one action.
      async *pages() {
        calls.push('applicationRules.pages');
        if (data.failApplicationRules) throw data.failApplicationRules;
        yield (data.applicationRules ?? []).map((r) =>
          r.complete ? r : { ...r, conditions: [], actions: r.actions.slice(0, 1) },
        );
      },
      get: async (id: string) => {
        calls.push(`applicationRules.get ${id}`);
        return { ...find(data.applicationRules, id), complete: true };
      },
    },
    notifications: {
      list: async () => {
        calls.push('notifications.list');
        return data.notifications ?? [];
      },
    },
    schedules: {
      list: async () => {
        calls.push('schedules.list');
        return data.schedules ?? [];
      },
    },
  };
  return { api: api as unknown as ApiClient, calls };
}
