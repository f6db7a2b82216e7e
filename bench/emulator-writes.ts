/**
 * Write cost of the emulator with `--state` (issue 17): the mean time of one application-rule
 * create with 10, 1,000 and 20,000 rules already stored, with and without a state file, side by
 * side in one run. With the journal a write appends one line and fsyncs it, so its cost must not
 * grow with the store: the target is <= 3x at 20,000 against 10 (before the journal, every write
 * rewrote the whole file: 4.0 ms at 10 rules, 87.7 ms at 20,000). Also shown: 16 writes in flight
 * (group commit: they share fsyncs), and the fold of the journal into the state file at close (a
 * compaction: its cost grows with the store, but happens once per journal as large as the file).
 *
 * Standalone: `tsc -p bench/tsconfig.json && node dist/bench-build/bench/emulator-writes.js [--quick]`.
 * Prints, never asserts. The state files live in the OS temp directory: its disk is what is measured.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningEmulator, startEmulator } from '../src/emulator/index.js';
import { ruleInput } from './fixtures.js';

const TOKEN = 'bench-writes-admin-token';
const SIZES = [10, 1_000, 20_000] as const;
const SEED_BATCH = 5_000;
/** The configurations take turns in short rounds, so a warming JIT or a busy disk weighs on all. */
const ROUNDS = 10;
const CONCURRENCY = 16;

interface Store {
  size: number;
  state: boolean;
  emulator: RunningEmulator;
  written: number;
}

async function create(url: string, index: number): Promise<void> {
  const response = await fetch(`${url}/api/v1/application_rules`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'multipart/mixed; boundary=b' },
    body: JSON.stringify({ rules: [ruleInput(index)] }),
  });
  if (response.status !== 200) throw new Error(`create failed: ${response.status} ${await response.text()}`);
  await response.arrayBuffer();
}

async function seed(url: string, total: number): Promise<void> {
  for (let start = 0; start < total; start += SEED_BATCH) {
    const rules = Array.from({ length: Math.min(SEED_BATCH, total - start) }, (_, i) => ruleInput(start + i));
    const response = await fetch(`${url}/api/v1/application_rules`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'multipart/mixed; boundary=b' },
      body: JSON.stringify({ rules }),
    });
    if (response.status !== 200) throw new Error(`seeding failed: ${response.status}`);
    await response.arrayBuffer();
  }
}

/** Mean ms per write: `count` writes, `inFlight` at a time, per store, taking turns in rounds. */
async function measure(stores: Store[], count: number, inFlight: number): Promise<number[]> {
  const spent = stores.map(() => 0);
  const perRound = Math.max(inFlight, Math.ceil(count / ROUNDS));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [s, store] of stores.entries()) {
      const started = performance.now();
      let next = 0;
      const worker = async () => {
        while (next < perRound) {
          next++;
          await create(store.emulator.url, store.size + store.written++);
        }
      };
      await Promise.all(Array.from({ length: inFlight }, worker));
      spent[s] = (spent[s] ?? 0) + performance.now() - started;
    }
  }
  return spent.map((ms) => ms / (perRound * ROUNDS));
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

async function main(): Promise<void> {
  const quick = process.argv.includes('--quick');
  const sequential = quick ? 100 : 400;
  const concurrent = quick ? 320 : 1_600;
  const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU';
  process.stdout.write(
    `emulator write cost: node ${process.version}, ${cpu}; mean of one POST /api/v1/application_rules ` +
      `(one rule) over HTTP (keep-alive), state files in ${tmpdir()}\n\n`,
  );
  const dir = await mkdtemp(join(tmpdir(), 'wafctl-bench-writes-'));
  const stores: Store[] = [];
  try {
    for (const size of SIZES) {
      for (const state of [false, true]) {
        const statePath = state ? join(dir, `state-${size}.json`) : undefined;
        const emulator = await startEmulator({ port: 0, adminToken: TOKEN, statePath });
        stores.push({ size, state, emulator, written: 0 });
        await seed(emulator.url, size);
      }
    }
    process.stderr.write('bench: seeded; measuring\n');
    const oneAtATime = await measure(stores, sequential, 1);
    const sharing = await measure(stores, concurrent, CONCURRENCY);
    const folds = new Map<number, number>();
    for (const store of stores) {
      const started = performance.now();
      await store.emulator.close();
      if (store.state) folds.set(store.size, performance.now() - started);
    }
    stores.length = 0;
    const mean = (values: number[], size: number, state: boolean) =>
      values[SIZES.indexOf(size as (typeof SIZES)[number]) * 2 + (state ? 1 : 0)] ?? Number.NaN;
    const rows = SIZES.map((size) => [
      size.toLocaleString('en-US'),
      mean(oneAtATime, size, false).toFixed(3),
      mean(oneAtATime, size, true).toFixed(3),
      mean(sharing, size, false).toFixed(3),
      mean(sharing, size, true).toFixed(3),
      (folds.get(size) ?? Number.NaN).toFixed(1),
    ]);
    const header = [
      'existing rules',
      'no --state (ms/write)',
      '--state (ms/write)',
      `no --state, ${CONCURRENCY} in flight`,
      `--state, ${CONCURRENCY} in flight`,
      'fold at close (ms)',
    ];
    process.stdout.write(`${table(header, rows)}\n\n`);
    const ratio = mean(oneAtATime, 20_000, true) / mean(oneAtATime, 10, true);
    const verdict = ratio <= 3 ? 'met' : 'MISSED';
    process.stdout.write(`--state, 20,000 vs 10 rules: ${ratio.toFixed(2)}x (target <= 3x: ${verdict})\n`);
  } finally {
    await Promise.all(stores.map((store) => store.emulator.close()));
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
