/**
 * The harness side of a run: an emulator started in this process with injected latency, seeded
 * through the API (bulk where the API allows it), and its request counters.
 */
import { randomBytes } from 'node:crypto';
import pLimit from 'p-limit';
import { createApiClient } from '../src/api/index.js';
import { type ApplicationRuleListShape, startEmulator } from '../src/emulator/index.js';
import { groupInput, indices, notificationInput, ruleInput, scheduleInput } from './fixtures.js';

/** Rules per seeding POST (the API creates many rules in one call). */
const SEED_BATCH = 1_000;
/** Seeding is set-up, not measured: it may use far more parallelism than the tools under test. */
const SEED_CONCURRENCY = 32;

export interface SeedContent {
  rules: number;
  groups: number;
  notifications: number;
  schedules: number;
}

/** What a per-resource tool keeps in its state file: the id (or name) of every object it manages. */
export interface SeededIds {
  rules: string[];
  groups: string[];
  notifications: string[];
  schedules: string[];
}

export interface RequestStats {
  total: number;
  by_route: Record<string, number>;
}

export interface BenchFirewall {
  url: string;
  token: string;
  seed(content: SeedContent): Promise<SeededIds>;
  stats(): Promise<RequestStats>;
  resetStats(): Promise<void>;
  close(): Promise<void>;
}

/** `token`: the administrator's; a fleet's emulators share one (each environment names the same variable). */
export async function startBenchFirewall(
  latencyMs: number,
  listShape: ApplicationRuleListShape,
  token = randomBytes(16).toString('hex'),
): Promise<BenchFirewall> {
  const emulator = await startEmulator({
    port: 0,
    adminToken: token,
    latencyMs,
    applicationRuleListShape: listShape,
  });
  const api = createApiClient({ baseUrl: emulator.url, token });
  const limit = pLimit(SEED_CONCURRENCY);
  const control = async (path: string, method: 'GET' | 'POST') => {
    const response = await fetch(`${emulator.url}/__emulator/${path}`, { method });
    if (!response.ok) throw new Error(`emulator ${method} ${path}: ${response.status}`);
    return response.json() as Promise<unknown>;
  };

  const seed = async (content: SeedContent): Promise<SeededIds> => {
    const batches: number[][] = [];
    for (let start = 0; start < content.rules; start += SEED_BATCH) {
      batches.push(indices(Math.min(SEED_BATCH, content.rules - start)).map((i) => start + i));
    }
    const [ruleIds, groups, notifications, schedules] = await Promise.all([
      Promise.all(
        batches.map((batch) => limit(() => api.applicationRules.create(batch.map((i) => ruleInput(i))))),
      ),
      Promise.all(indices(content.groups).map((i) => limit(() => api.groups.create(groupInput(i))))),
      Promise.all(
        indices(content.notifications).map((i) =>
          limit(() => api.notifications.create(notificationInput(i))),
        ),
      ),
      Promise.all(indices(content.schedules).map((i) => limit(() => api.schedules.create(scheduleInput(i))))),
    ]);
    return {
      rules: ruleIds.flat(),
      groups: groups.map((g) => g.id),
      notifications: notifications.map((n) => n.name),
      schedules: schedules.map((s) => s.id),
    };
  };

  return {
    url: emulator.url,
    token,
    seed,
    stats: async () => (await control('stats', 'GET')) as RequestStats,
    resetStats: async () => {
      await control('stats/reset', 'POST');
    },
    close: () => emulator.close(),
  };
}
