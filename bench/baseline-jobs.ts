/**
 * The baseline: what per-resource tools (a Terraform provider, one resource per object) do with the
 * same API, written with wafctl's own client so that only the request pattern differs.
 *
 * - Refresh: one GET per object, by the id its state file holds (no listing: the state knows the ids).
 * - Writes: one call per object (a one-rule POST, a PUT, a one-id DELETE), after refreshing the
 *   objects it is about to change, as `terraform apply` does.
 * - At most 10 requests in flight (Terraform's default -parallelism).
 *
 * It is charged for no configuration parsing and no diffing: its wall time is its requests, which
 * only flatters it.
 */
import pLimit from 'p-limit';
import { type ApiClient, createApiClient } from '../src/api/index.js';
import type { SeededIds } from './firewall.js';
import { indices, ruleInput } from './fixtures.js';
import { type JobOutcome, phaseClock } from './jobs.js';

export const BASELINE_CONCURRENCY = 10;

function client(url: string): ApiClient {
  return createApiClient({ baseUrl: url, token: process.env.WAF_TOKEN ?? '' });
}

function forEachLimited<T>(items: readonly T[], work: (item: T) => Promise<unknown>): Promise<unknown[]> {
  const limit = pLimit(BASELINE_CONCURRENCY);
  return Promise.all(items.map((item) => limit(() => work(item))));
}

async function refreshRules(api: ApiClient, ids: readonly string[]): Promise<number> {
  return (await forEachLimited(ids, (id) => api.applicationRules.get(id))).length;
}

export async function refreshJob(job: { url: string; ids: SeededIds }): Promise<JobOutcome> {
  const clock = phaseClock();
  const api = client(job.url);
  // One queue across kinds, like Terraform walking its whole graph with one parallelism limit.
  const reads: (() => Promise<unknown>)[] = [
    ...job.ids.groups.map((id) => () => api.groups.get(id)),
    ...job.ids.rules.map((id) => () => api.applicationRules.get(id)),
    ...job.ids.notifications.map((name) => () => api.notifications.get(name)),
    ...job.ids.schedules.map((id) => () => api.schedules.get(id)),
  ];
  const records = await forEachLimited(reads, (read) => read());
  clock.lap('refresh');
  return { phases: clock.phases, counts: { read: records.length } };
}

export async function createJob(job: { url: string; count: number }): Promise<JobOutcome> {
  const clock = phaseClock();
  const api = client(job.url);
  const created = await forEachLimited(indices(job.count), (i) =>
    api.applicationRules.create([ruleInput(i)]),
  );
  clock.lap('create');
  return { phases: clock.phases, counts: { done: created.length } };
}

export async function updateJob(job: { url: string; ids: string[]; priority: string }): Promise<JobOutcome> {
  const clock = phaseClock();
  const api = client(job.url);
  const read = await refreshRules(api, job.ids);
  clock.lap('refresh');
  const updated = await forEachLimited(job.ids, (id) =>
    api.applicationRules.update(id, { priority: job.priority }),
  );
  clock.lap('update');
  return { phases: clock.phases, counts: { read, done: updated.length } };
}

export async function deleteJob(job: { url: string; ids: string[] }): Promise<JobOutcome> {
  const clock = phaseClock();
  const api = client(job.url);
  const read = await refreshRules(api, job.ids);
  clock.lap('refresh');
  const deleted = await forEachLimited(job.ids, (id) => api.applicationRules.delete([id]));
  clock.lap('delete');
  return { phases: clock.phases, counts: { read, done: deleted.length } };
}
