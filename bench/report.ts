/** The printed results: a plain-text table, the details behind each row, and the targets of issue 8. */
import type { BenchOptions } from './options.js';
import type { Measured, ScenarioResult } from './scenarios.js';

const DASH = '-';
export const fmt = (n: number) => n.toLocaleString('en-US');
export const seconds = (ms: number) => (ms < 1000 ? `${ms.toFixed(0)} ms` : `${(ms / 1000).toFixed(2)} s`);
const megabytes = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
const ratio = (a: number | undefined, b: number | undefined) =>
  a === undefined || b === undefined || b === 0 ? DASH : `${(a / b).toFixed(1)}x`;

/** Columns aligned with spaces; numbers right-aligned, text left-aligned. */
export function formatTable(
  header: readonly string[],
  rows: readonly string[][],
  rightAligned: ReadonlySet<number>,
) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (rightAligned.has(i) ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

function row(result: ScenarioResult, tool: 'wafctl' | 'baseline', m: Measured): string[] {
  const first = tool === 'wafctl';
  const w = result.wafctl;
  return [
    first ? result.name : '',
    first ? fmt(result.n) : '',
    first ? (result.subject ?? tool) : tool,
    m.requests === undefined ? DASH : fmt(m.requests),
    first && result.minimal ? fmt(result.minimal.count) : first ? DASH : '',
    seconds(m.wallMs),
    m.maxRssBytes === undefined ? DASH : megabytes(m.maxRssBytes),
    first ? '' : ratio(m.requests, w.requests),
    first ? '' : ratio(m.wallMs, w.wallMs),
  ];
}

export function resultsTable(results: readonly ScenarioResult[]): string {
  const header = [
    'scenario',
    'N',
    'tool',
    'requests',
    'minimal',
    'wall',
    'peak RSS',
    'req ratio',
    'wall ratio',
  ];
  const rows = results.flatMap((r) => [
    row(r, 'wafctl', r.wafctl),
    ...(r.baseline ? [row(r, 'baseline', r.baseline)] : []),
  ]);
  return formatTable(header, rows, new Set([1, 3, 4, 5, 6, 7, 8]));
}

const phaseList = (phases: Record<string, number> | undefined) =>
  Object.entries(phases ?? {})
    .map(([name, ms]) => `${name} ${seconds(ms)}`)
    .join(', ');

const routeList = (byRoute: Record<string, number> | undefined) =>
  Object.entries(byRoute ?? {})
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([route, n]) => `${route} x${fmt(n)}`)
    .join(', ');

export function details(results: readonly ScenarioResult[]): string {
  const out: string[] = [];
  for (const r of results) {
    out.push(`${r.name}: ${r.detail}`);
    if (r.minimal) out.push(`  minimal: ${fmt(r.minimal.count)} = ${r.minimal.formula}`);
    for (const [tool, m] of [
      [r.subject ?? 'wafctl', r.wafctl],
      ['baseline', r.baseline],
    ] as const) {
      if (m === undefined) continue;
      if (m.phases && Object.keys(m.phases).length > 0) out.push(`  ${tool} phases: ${phaseList(m.phases)}`);
      if (m.byRoute && Object.keys(m.byRoute).length > 0)
        out.push(`  ${tool} requests: ${routeList(m.byRoute)}`);
    }
  }
  return out.join('\n');
}

interface Target {
  what: string;
  measured: string;
  met: boolean;
}

/** The targets of issue 8, checked against this run (printed, never asserted). */
export function targets(results: readonly ScenarioResult[]): Target[] {
  const byName = new Map(results.map((r) => [r.name, r]));
  const out: Target[] = [];
  const plan = byName.get('plan');
  if (plan?.minimal && plan.wafctl.requests !== undefined) {
    const limit = 1.1 * plan.minimal.count;
    out.push({
      what: `plan: requests <= 1.1 x minimal (${fmt(Math.floor(limit))})`,
      measured: fmt(plan.wafctl.requests),
      met: plan.wafctl.requests <= limit,
    });
    out.push({
      what: 'plan: wall <= 1.5 s',
      measured: seconds(plan.wafctl.wallMs),
      met: plan.wafctl.wallMs <= 1500,
    });
    if (plan.baseline) {
      const speedup = plan.baseline.wallMs / plan.wafctl.wallMs;
      out.push({
        what: 'plan: >= 10x faster than the baseline',
        measured: `${speedup.toFixed(1)}x`,
        met: speedup >= 10,
      });
    }
    // The same run with the configuration's YAML parsing and validation taken out (see BENCHMARKS.md).
    const config = plan.wafctl.phases?.config;
    if (config !== undefined) {
      const rest = plan.wafctl.wallMs - config;
      out.push({
        what: 'plan, config load excluded: wall <= 1.5 s',
        measured: seconds(rest),
        met: rest <= 1500,
      });
      if (plan.baseline) {
        const speedup = plan.baseline.wallMs / rest;
        out.push({
          what: 'plan, config load excluded: >= 10x faster than the baseline',
          measured: `${speedup.toFixed(1)}x`,
          met: speedup >= 10,
        });
      }
    }
  }
  const applies = results.filter((r) => r.name.startsWith('apply-'));
  if (applies.length === 3) {
    const requests = applies.reduce((sum, r) => sum + (r.wafctl.requests ?? 0), 0);
    // 30 until issue 41 added the re-read that proves each create call (10 at the default size).
    out.push({ what: 'apply x3: <= 40 requests together', measured: fmt(requests), met: requests <= 40 });
  }
  for (const r of applies) {
    out.push({
      what: `${r.name}: wall <= 1 s`,
      measured: seconds(r.wafctl.wallMs),
      met: r.wafctl.wallMs <= 1000,
    });
  }
  const planner = byName.get('planner');
  if (planner) {
    out.push({
      what: 'planner: wall <= 2 s',
      measured: seconds(planner.wafctl.wallMs),
      met: planner.wafctl.wallMs <= 2000,
    });
    const rss = planner.wafctl.maxRssBytes ?? 0;
    out.push({ what: 'planner: peak RSS <= 400 MB', measured: megabytes(rss), met: rss <= 400 * 2 ** 20 });
  }
  const cold = byName.get('cold-start');
  if (cold) {
    out.push({
      what: 'wafctl --version: <= 150 ms',
      measured: seconds(cold.wafctl.wallMs),
      met: cold.wafctl.wallMs <= 150,
    });
    const bare = cold.wafctl.phases?.['node -e 0'];
    if (bare !== undefined)
      out.push({
        what: 'wafctl --version: <= 1.5 x node -e 0',
        measured: `${(cold.wafctl.wallMs / bare).toFixed(2)} x`,
        met: cold.wafctl.wallMs <= 1.5 * bare,
      });
  }
  const page = byName.get('emulator-page');
  if (page) {
    const max = page.wafctl.phases?.['max page'] ?? page.wafctl.wallMs;
    out.push({
      what: 'emulator: a page of 1,000 application rules, slowest page < 100 ms',
      measured: seconds(max),
      met: max < 100,
    });
  }
  out.push(...ruleTestTargets(byName.get('rule-tests')));
  out.push(...fleetTargets(byName.get('fleet')));
  return out;
}

/** Issue 45: memory follows the concurrency, not the fleet; one run beats a loop of runs. */
function fleetTargets(result: ScenarioResult | undefined): Target[] {
  if (result?.fleet === undefined) return [];
  const rss = result.wafctl.maxRssBytes ?? 0;
  const growth = rss / result.fleet.smallRssBytes;
  const out: Target[] = [
    {
      what: `fleet: peak RSS at ${fmt(result.n)} environments <= 1.3 x at ${fmt(result.fleet.small)}`,
      measured: `${megabytes(rss)} / ${megabytes(result.fleet.smallRssBytes)} = ${growth.toFixed(2)} x`,
      met: growth <= 1.3,
    },
  ];
  if (result.baseline) {
    const speedup = result.baseline.wallMs / result.wafctl.wallMs;
    out.push({
      what: `fleet: one run faster than ${fmt(result.n)} runs in turn`,
      measured: `${speedup.toFixed(1)}x (${seconds(result.wafctl.wallMs)} vs ${seconds(result.baseline.wallMs)})`,
      met: speedup > 1,
    });
  }
  return out;
}

/** Issue 43: decide >= 10,000 requests per second, >= 10x the naive loop. */
function ruleTestTargets(result: ScenarioResult | undefined): Target[] {
  if (result === undefined) return [];
  const perSecond = result.n / (result.wafctl.wallMs / 1000);
  const out: Target[] = [
    {
      what: 'rule-tests: >= 10,000 requests/s (compile included)',
      measured: `${fmt(Math.round(perSecond))}/s`,
      met: perSecond >= 10_000,
    },
  ];
  if (result.baseline) {
    const speedup = result.baseline.wallMs / result.wafctl.wallMs;
    out.push({
      what: 'rule-tests: >= 10x faster than the naive loop (extrapolated from a sample)',
      measured: `${speedup.toFixed(0)}x`,
      met: speedup >= 10,
    });
  }
  return out;
}

export function targetsTable(results: readonly ScenarioResult[], options: BenchOptions): string {
  const rows = targets(results).map((t) => [t.what, t.measured, t.met ? 'met' : 'MISSED']);
  const note = options.quick
    ? '\n(--quick sizes: the targets are stated for the full sizes; shown for orientation only)'
    : '';
  return `${formatTable(['target', 'measured', ''], rows, new Set([1]))}${note}`;
}
