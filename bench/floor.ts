/**
 * `npm run bench:floor`: the real `wafctl plan` next to its floor, on the same data (issue 19).
 *
 * For each size, one emulator (in this process, with injected latency) is seeded once with the live
 * objects and the matching YAML files are written to a temporary directory. Then, alternately:
 * - wafctl: `node dist/wafctl.mjs plan DIR --url URL --detailed-exitcode` (token in WAF_TOKEN);
 * - the floor: `node floor-child.js URL DIR`, which only parses the YAML (js-yaml) and reads and
 *   `JSON.parse`s the same pages with the same page size and concurrency (bench/floor-child.ts).
 * Each run is a whole process, timed from spawn to exit; its peak RSS comes from `/usr/bin/time -f
 * %M` (the floor also reports its own `maxRSS`, used when /usr/bin/time is missing). The emulator's
 * request counters are reset before each run and read after it: both sides must make the same
 * requests. Prints one table with the medians, the ratio and the targets, met or MISSED. Exits 1 only
 * when a run is broken (an error, a non-zero exit, wrong counts), never because of a time.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { writeConfigDir } from './config-files.js';
import { type RequestStats, type SeedContent, startBenchFirewall } from './firewall.js';
import { integerFlag, readOptions, UsageError } from './options.js';
import { fmt, formatTable, seconds } from './report.js';

const CLI = fileURLToPath(new URL('../../wafctl.mjs', import.meta.url));
const FLOOR_CHILD = fileURLToPath(new URL('./floor-child.js', import.meta.url));
const TIME = '/usr/bin/time';

const MB = 2 ** 20;
const RATIO_TARGET = 1.5;
/** Peak RSS targets of wafctl by number of objects (issue 19). */
const RSS_TARGETS: Record<number, number> = { 20000: 160 * MB, 100000: 400 * MB };

/** The plan scenario's data (bench/options.ts), at full and at --quick size. */
const PLAN_CONTENT: SeedContent = { rules: 10_000, groups: 200, notifications: 200, schedules: 1_000 };
const PLAN_CONTENT_QUICK: SeedContent = { rules: 1_000, groups: 20, notifications: 20, schedules: 100 };
const FULL_SIZES = ['plan', '20000', '100000'];
const QUICK_SIZES = ['plan', '2000', '10000'];

const USAGE = `Usage: npm run bench:floor -- [options]

  --sizes LIST     comma-separated: 'plan' (the plan scenario's 10,000 rules + 200 groups +
                   200 notifications + 1,000 schedules = 11,400 objects) or a number of unchanged
                   rules (default plan,20000,100000; --quick: plan at 1,140 objects,2000,10000)
  --runs N         runs of each side, alternating (default 3); the median is reported
  --latency MS     latency the emulator adds to every API request (default 20)
  --cli PATH       the wafctl to run (default the bundle, dist/wafctl.mjs; e.g. dist/cli/main.js,
                   the tsc output, to see what the single-file build saves)
  --quick          small sizes for a smoke run
  --help           show this text
`;

interface Options {
  sizes: { label: string; content: SeedContent }[];
  runs: number;
  latencyMs: number;
  cli: string;
  quick: boolean;
}

function parseOptions(argv: string[]): Options | undefined {
  let values: ReturnType<typeof parse>['values'];
  try {
    values = parse(argv).values;
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  if (values.help) return undefined;
  const quick = values.quick ?? false;
  const names = values.sizes?.split(',').map((s) => s.trim()) ?? (quick ? QUICK_SIZES : FULL_SIZES);
  const sizes = names.map((name) => {
    if (name === 'plan') return { label: 'plan', content: quick ? PLAN_CONTENT_QUICK : PLAN_CONTENT };
    const rules = Number(name.replaceAll('_', ''));
    if (!Number.isSafeInteger(rules) || rules < 1) {
      throw new UsageError(`--sizes: expected 'plan' or a number of rules >= 1, got '${name}'`);
    }
    return { label: 'rules', content: { rules, groups: 0, notifications: 0, schedules: 0 } };
  });
  return {
    sizes,
    runs: integerFlag('runs', values.runs, 3, 1),
    latencyMs: integerFlag('latency', values.latency, 20, 0),
    cli: values.cli === undefined ? CLI : resolve(values.cli),
    quick,
  };
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      sizes: { type: 'string' },
      runs: { type: 'string' },
      latency: { type: 'string' },
      cli: { type: 'string' },
      quick: { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
}

interface Run {
  wallMs: number;
  maxRssBytes: number | undefined;
  stats: RequestStats;
}

interface ProcessResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  wallMs: number;
  maxRssBytes: number | undefined;
}

const useTime = existsSync(TIME);

/** Runs `node ARGS` to its end, timed from spawn to exit, with its peak RSS when /usr/bin/time is here. */
async function runNode(args: string[], env: NodeJS.ProcessEnv, scratch: string): Promise<ProcessResult> {
  const rssFile = join(scratch, 'rss');
  const [command, argv] = useTime
    ? [TIME, ['-f', '%M', '-o', rssFile, process.execPath, ...args]]
    : [process.execPath, args];
  const started = performance.now();
  const result = await new Promise<Omit<ProcessResult, 'maxRssBytes'>>((resolve, reject) => {
    const child = spawn(command, argv, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.once('error', reject);
    child.once('close', (code, signal) =>
      resolve({
        code,
        signal,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        wallMs: performance.now() - started,
      }),
    );
  });
  let maxRssBytes: number | undefined;
  if (useTime) {
    // GNU time writes "Command exited with non-zero status N" before the figure when the child fails.
    const kilobytes = Number((await readFile(rssFile, 'utf8')).trim().split('\n').at(-1));
    if (Number.isFinite(kilobytes)) maxRssBytes = kilobytes * 1024;
  }
  return { ...result, maxRssBytes };
}

const megabytes = (bytes: number | undefined) =>
  bytes === undefined ? '-' : `${(bytes / MB).toFixed(0)} MB`;
const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};
const medianOrUndefined = (values: readonly (number | undefined)[]) => {
  const known = values.filter((v): v is number => v !== undefined);
  return known.length === 0 ? undefined : median(known);
};
const total = (c: SeedContent) => c.rules + c.groups + c.notifications + c.schedules;
const routes = (stats: RequestStats) =>
  Object.entries(stats.by_route)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([route, n]) => `${route} x${fmt(n)}`)
    .join(', ');

interface SizeResult {
  label: string;
  n: number;
  wafctl: Run[];
  floor: Run[];
  warnings: string[];
}

/** Groups every firewall holds before it is seeded: the read-only `admins` group. */
const BUILT_IN_GROUPS = 1;

/** Section name in the YAML -> the count the floor must report on both sides. */
const SECTIONS: [keyof SeedContent, string][] = [
  ['rules', 'application_rules'],
  ['groups', 'groups'],
  ['notifications', 'notifications'],
  ['schedules', 'schedules'],
];

async function measureSize(
  options: Options,
  size: Options['sizes'][number],
  scratch: string,
): Promise<SizeResult> {
  const { content } = size;
  const n = total(content);
  const log = (line: string) => process.stderr.write(`bench:floor: ${fmt(n)} objects: ${line}\n`);
  const started = performance.now();
  const configDir = await writeConfigDir(content);
  const firewall = await startBenchFirewall(options.latencyMs, 'full');
  try {
    await firewall.seed(content);
    log(`seeded and written in ${seconds(performance.now() - started)}`);
    const env = { ...process.env, WAF_TOKEN: firewall.token, NO_COLOR: '1' };
    const wafctlArgs = [options.cli, 'plan', configDir, '--url', firewall.url, '--detailed-exitcode'];
    const floorArgs = [FLOOR_CHILD, firewall.url, configDir];
    const result: SizeResult = { label: size.label, n, wafctl: [], floor: [], warnings: [] };

    for (let i = 0; i < options.runs; i++) {
      for (const side of ['wafctl', 'floor'] as const) {
        await firewall.resetStats();
        const run = await runNode(side === 'wafctl' ? wafctlArgs : floorArgs, env, scratch);
        const stats = await firewall.stats();
        const broken = (why: string) =>
          new Error(`${side} run ${i + 1} at ${fmt(n)} objects: ${why}\n${run.stderr.trim()}`);
        if (run.code !== 0) {
          // With --detailed-exitcode, 2 means wafctl planned changes on data that has none.
          throw broken(`exit ${run.code ?? run.signal}`);
        }
        let maxRssBytes = run.maxRssBytes;
        if (side === 'floor') {
          const report = JSON.parse(run.stdout) as {
            counts: Record<string, { desired: number; remote: number }>;
            maxRssBytes: number;
          };
          for (const [field, section] of SECTIONS) {
            const expected = content[field];
            // The firewall also holds the built-in `admins` group (issue 30), which both sides read
            // when groups are declared; a rules-only size reads no group at all.
            const read = section === 'groups' && expected > 0;
            const remote = expected + (read ? BUILT_IN_GROUPS : 0);
            const got = report.counts[section] ?? { desired: 0, remote: 0 };
            if (got.desired !== expected || got.remote !== remote) {
              throw broken(
                `${section}: expected ${expected} desired and ${remote} remote, got ${JSON.stringify(got)}`,
              );
            }
          }
          maxRssBytes ??= report.maxRssBytes;
        }
        result[side].push({ wallMs: run.wallMs, maxRssBytes, stats });
        log(
          `${side} run ${i + 1}: ${seconds(run.wallMs)}, ${megabytes(maxRssBytes)}, ${stats.total} requests`,
        );
      }
    }
    for (let i = 0; i < options.runs; i++) {
      const a = result.wafctl[i]?.stats;
      const b = result.floor[i]?.stats;
      if (a && b && routes(a) !== routes(b)) {
        result.warnings.push(
          `WARNING: run ${i + 1} at ${fmt(n)} objects: the two sides made different requests:\n  wafctl: ${routes(a)}\n  floor:  ${routes(b)}`,
        );
      }
    }
    return result;
  } finally {
    await firewall.close();
    await rm(configDir, { recursive: true, force: true });
  }
}

function describeRun(options: Options): string {
  const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU';
  return [
    `wafctl plan vs its floor${options.quick ? ' (--quick)' : ''}: ${new Date().toISOString().slice(0, 10)}, node ${process.version}, ${cpus().length} x ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GB`,
    `emulator latency ${options.latencyMs} ms per request; ${options.runs} run(s) of each side, alternating; medians; wall = process spawn to exit; peak RSS from ${useTime ? '/usr/bin/time -f %M' : "the floor's own maxRSS (no /usr/bin/time: wafctl's is not measured)"}`,
  ].join('\n');
}

function table(results: readonly SizeResult[]): string {
  const rows = results.map((r) => {
    const w = median(r.wafctl.map((x) => x.wallMs));
    const f = median(r.floor.map((x) => x.wallMs));
    const wRss = medianOrUndefined(r.wafctl.map((x) => x.maxRssBytes));
    const fRss = medianOrUndefined(r.floor.map((x) => x.maxRssBytes));
    const ratio = w / f;
    const rssTarget = RSS_TARGETS[r.n];
    const requests = (runs: Run[]) => [...new Set(runs.map((x) => fmt(x.stats.total)))].join('/');
    return [
      `${fmt(r.n)}${r.label === 'plan' ? ' (plan)' : ' rules'}`,
      seconds(w),
      seconds(f),
      `${ratio.toFixed(2)}x`,
      megabytes(wRss),
      megabytes(fRss),
      requests(r.wafctl),
      requests(r.floor),
      `${ratio <= RATIO_TARGET ? 'met' : 'MISSED'}`,
      rssTarget === undefined
        ? '-'
        : `<= ${rssTarget / MB} MB ${wRss !== undefined && wRss <= rssTarget ? 'met' : 'MISSED'}`,
    ];
  });
  return formatTable(
    [
      'size',
      'wafctl',
      'floor',
      'ratio',
      'wafctl RSS',
      'floor RSS',
      'wafctl req',
      'floor req',
      `ratio <= ${RATIO_TARGET}x`,
      'wafctl RSS target',
    ],
    rows,
    new Set([1, 2, 3, 4, 5, 6, 7]),
  );
}

function details(results: readonly SizeResult[]): string {
  const out: string[] = [];
  for (const r of results) {
    const list = (runs: Run[]) => runs.map((x) => seconds(x.wallMs)).join(', ');
    out.push(`${fmt(r.n)} objects: wafctl ${list(r.wafctl)}; floor ${list(r.floor)}`);
    const first = r.wafctl[0]?.stats;
    if (first) out.push(`  requests (wafctl run 1): ${routes(first)}`);
  }
  return out.join('\n');
}

async function main(): Promise<void> {
  const options = readOptions('bench:floor', USAGE, parseOptions);
  if (options === undefined) return;
  process.stdout.write(`${describeRun(options)}\n\n`);
  const scratch = await mkdtemp(join(tmpdir(), 'wafctl-floor-'));
  const results: SizeResult[] = [];
  try {
    for (const size of options.sizes) results.push(await measureSize(options, size, scratch));
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  const warnings = results.flatMap((r) => r.warnings);
  process.stdout.write(`${table(results)}\n\n${details(results)}\n`);
  if (warnings.length > 0) process.stdout.write(`\n${warnings.join('\n')}\n`);
  const note = options.quick ? '\n(--quick sizes: the targets are stated for the full sizes)\n' : '';
  process.stdout.write(note);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `bench:floor: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
