/**
 * The scenarios. Each measured run gets a fresh emulator seeded with the same data, so wafctl and the
 * baseline start from identical firewalls; requests are read from the emulator's own counters.
 */
import { rm } from 'node:fs/promises';
import { measureColdStart } from './cold-start.js';
import { type ConfigContent, writeConfigDir } from './config-files.js';
import { type SeedContent, type SeededIds, startBenchFirewall } from './firewall.js';
import { fleetScenario } from './fleet.js';
import type { Job, JobResult } from './jobs.js';
import { applyMinimal, type Minimal, planMinimal } from './minimal.js';
import type { BenchOptions, ScenarioName } from './options.js';
import { runInChild } from './run-child.js';

export interface Measured {
  wallMs: number;
  requests?: number;
  maxRssBytes?: number;
  phases?: Record<string, number>;
  byRoute?: Record<string, number>;
}

export interface ScenarioResult {
  name: ScenarioName;
  /** Objects the scenario is about. */
  n: number;
  detail: string;
  /** The fewest requests the API allows for what wafctl does, and how that number is made up. */
  minimal?: Minimal;
  /** What the `wafctl` measurement is of, when it is not wafctl itself (default 'wafctl'). */
  subject?: string;
  wafctl: Measured;
  baseline?: Measured;
  /** The fleet scenario: the smaller fleet its peak RSS is compared with. */
  fleet?: { small: number; smallRssBytes: number };
}

const EMPTY: SeedContent = { rules: 0, groups: 0, notifications: 0, schedules: 0 };

const fmt = (n: number) => n.toLocaleString('en-US');

/** A run whose counts are not the expected ones is a broken run, never a fast one. */
function check(label: string, result: JobResult, expected: Record<string, number>): void {
  for (const [name, value] of Object.entries(expected)) {
    if (result.counts[name] !== value) {
      throw new Error(
        `${label}: expected ${name} = ${value}, got ${result.counts[name]} (${JSON.stringify(result.counts)})`,
      );
    }
  }
}

async function measure(
  options: BenchOptions,
  seed: SeedContent,
  makeJob: (url: string, ids: SeededIds) => Job,
  expected: Record<string, number>,
): Promise<Measured> {
  const firewall = await startBenchFirewall(options.latencyMs, options.listShape);
  try {
    const ids = await firewall.seed(seed);
    await firewall.resetStats();
    const job = makeJob(firewall.url, ids);
    const result = await runInChild(job, firewall.token);
    const stats = await firewall.stats();
    check(job.type, result, expected);
    return {
      wallMs: result.wallMs,
      requests: stats.total,
      maxRssBytes: result.maxRssBytes,
      phases: result.phases,
      byRoute: stats.by_route,
    };
  } finally {
    await firewall.close();
  }
}

async function withConfig<T>(content: ConfigContent, work: (dir: string) => Promise<T>): Promise<T> {
  const dir = await writeConfigDir(content);
  try {
    return await work(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function planScenario(options: BenchOptions): Promise<ScenarioResult> {
  const content = {
    rules: options.rules,
    groups: options.groups,
    notifications: options.notifications,
    schedules: options.schedules,
  };
  const total = content.rules + content.groups + content.notifications + content.schedules;
  const minimal = planMinimal(content, options.listShape);
  const wafctl = await withConfig(content, (configDir) =>
    measure(options, content, (url) => ({ type: 'wafctl-plan', url, configDir }), {
      changes: 0,
      unchanged: total,
    }),
  );
  const baseline = options.baseline
    ? await measure(options, content, (url, ids) => ({ type: 'baseline-refresh', url, ids }), { read: total })
    : undefined;
  const detail = `${fmt(content.rules)} rules + ${fmt(content.groups)} groups + ${fmt(content.notifications)} notifications + ${fmt(content.schedules)} schedules, no changes`;
  return { name: 'plan', n: total, detail, minimal, wafctl, ...(baseline ? { baseline } : {}) };
}

async function applyScenario(
  options: BenchOptions,
  name: 'apply-create' | 'apply-update' | 'apply-delete',
): Promise<ScenarioResult> {
  const n = options.apply;
  const seed = name === 'apply-create' ? EMPTY : { ...EMPTY, rules: n };
  const config: ConfigContent =
    name === 'apply-create'
      ? { ...EMPTY, rules: n }
      : name === 'apply-update'
        ? { ...EMPTY, rules: n, priority: 'low' }
        : { ...EMPTY, pruneRules: true };
  const minimal = applyMinimal(name, n, options.listShape);
  const wafctl = await withConfig(config, (configDir) =>
    measure(options, seed, (url) => ({ type: 'wafctl-apply', url, configDir }), { changes: n, done: n }),
  );
  let baseline: Measured | undefined;
  if (options.baseline) {
    const job = (url: string, ids: SeededIds): Job =>
      name === 'apply-create'
        ? { type: 'baseline-create', url, count: n }
        : name === 'apply-update'
          ? { type: 'baseline-update', url, ids: ids.rules, priority: 'low' }
          : { type: 'baseline-delete', url, ids: ids.rules };
    baseline = await measure(options, seed, job, { done: n });
  }
  const what = {
    'apply-create': 'creates',
    'apply-update': 'updates (same attrs)',
    'apply-delete': 'deletes',
  }[name];
  return { name, n, detail: `${fmt(n)} rule ${what}`, minimal, wafctl, ...(baseline ? { baseline } : {}) };
}

async function plannerScenario(options: BenchOptions): Promise<ScenarioResult> {
  const n = options.planner;
  const result = await runInChild({ type: 'planner', objects: n }, undefined);
  check('planner', result, { desired: n, remote: n });
  return {
    name: 'planner',
    n,
    detail: `${fmt(n)} desired + ${fmt(n)} remote rules, in memory`,
    wafctl: { wallMs: result.wallMs, maxRssBytes: result.maxRssBytes, phases: result.phases },
  };
}

function coldStartScenario(options: BenchOptions): ScenarioResult {
  const cold = measureColdStart(options.runs);
  return {
    name: 'cold-start',
    n: cold.runs,
    detail: `wafctl --version (dist/wafctl.mjs), median of ${cold.runs} spawns (min ${cold.minMs.toFixed(0)} ms, max ${cold.maxMs.toFixed(0)} ms); phases: medians of the other commands, spawned in turn`,
    wafctl: { wallMs: cold.medianMs, phases: cold.others },
  };
}

/**
 * The rule evaluator (issue 43): wafctl's compileRules + decide for every request, and the naive loop
 * (every rule for every request, each expression compiled as it goes) measured on a sample of the
 * requests and extrapolated per request to all of them.
 */
async function ruleTestsScenario(options: BenchOptions): Promise<ScenarioResult> {
  const n = options.ruleTests;
  const result = await runInChild({ type: 'rule-tests', rules: n, requests: n }, undefined);
  check('rule-tests', result, { rules: n, requests: n, disagreements: 0 });
  const sample = result.counts.sample ?? 0;
  const compile = result.phases.compile ?? 0;
  const decide = result.phases.decide ?? 0;
  const naive = result.phases.naive ?? 0;
  const outcomes = Object.entries(result.counts)
    .filter(([name]) => name.startsWith('outcome '))
    .map(([name, count]) => `${name.slice('outcome '.length)} ${fmt(count)}`)
    .join(', ');
  const hosts = Math.ceil(n / 100);
  return {
    name: 'rule-tests',
    n,
    detail: `${fmt(n)} rules on ${fmt(hosts)} hosts (1% on a glob host) x ${fmt(n)} requests (${outcomes}); baseline: the naive loop, measured on ${fmt(sample)} requests and extrapolated to ${fmt(n)} (same outcomes on the sample)`,
    wafctl: { wallMs: compile + decide, phases: { compile, decide } },
    ...(options.baseline
      ? { baseline: { wallMs: (naive / sample) * n, phases: { [`naive, ${fmt(sample)} requests`]: naive } } }
      : {}),
  };
}

/** The emulator alone: how long one page of the largest size takes to serve (issue 3's speed item). */
const PAGE_SIZE = 1_000;

async function emulatorPageScenario(options: BenchOptions): Promise<ScenarioResult> {
  // No injected latency: this times the emulator's own work (filter, slice, serialise) plus reading
  // the body here, one page at a time, so the figure is per page and not per batch.
  const firewall = await startBenchFirewall(0, options.listShape);
  try {
    await firewall.seed({ ...EMPTY, rules: options.rules });
    const pages = Math.ceil(options.rules / PAGE_SIZE);
    const times: number[] = [];
    for (let page = 0; page < pages; page++) {
      const started = performance.now();
      const response = await fetch(
        `${firewall.url}/api/v1/application_rules?paginate=true&page=${page}&page_size=${PAGE_SIZE}`,
        { headers: { authorization: `Bearer ${firewall.token}` } },
      );
      const body = (await response.json()) as { data?: { application_rules?: unknown[] } };
      times.push(performance.now() - started);
      const rows = body.data?.application_rules?.length ?? 0;
      if (!response.ok || rows !== Math.min(PAGE_SIZE, options.rules - page * PAGE_SIZE)) {
        throw new Error(`emulator-page: page ${page} answered ${response.status} with ${rows} rows`);
      }
    }
    const sorted = [...times].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
    const max = sorted.at(-1) ?? 0;
    return {
      name: 'emulator-page',
      subject: 'emulator',
      n: options.rules,
      detail: `the emulator serving ${fmt(pages)} page${pages === 1 ? '' : 's'} of ${fmt(PAGE_SIZE)} application rules (of ${fmt(options.rules)}), one at a time: median per page (max ${max.toFixed(0)} ms)`,
      wafctl: { wallMs: median, phases: { 'max page': max } },
    };
  } finally {
    await firewall.close();
  }
}

export function runScenario(name: ScenarioName, options: BenchOptions): Promise<ScenarioResult> {
  switch (name) {
    case 'plan':
      return planScenario(options);
    case 'apply-create':
    case 'apply-update':
    case 'apply-delete':
      return applyScenario(options, name);
    case 'planner':
      return plannerScenario(options);
    case 'cold-start':
      return Promise.resolve(coldStartScenario(options));
    case 'emulator-page':
      return emulatorPageScenario(options);
    case 'rule-tests':
      return ruleTestsScenario(options);
    case 'fleet':
      return fleetScenario(options);
  }
}
