/**
 * Page cost of the emulator's application-rule list (issue 17): the mean time of one GET for a page
 * of 1 and a page of 1,000, first and last page, with 1,000 and with 100,000 rules in the store,
 * side by side in one run, and the ratio. The target is <= 3x at 100,000 against 1,000: a page must
 * cost what its rows cost, not what the store holds. A filtered listing is shown too; it scans the
 * store by design (total_count must be exact), so it is expected to grow with the store.
 *
 * Standalone: `tsc -p bench/tsconfig.json && node dist/bench-build/bench/emulator-pages.js [--quick]`.
 * Prints, never asserts.
 */
import { cpus } from 'node:os';
import { startEmulator } from '../src/emulator/index.js';
import { ruleInput } from './fixtures.js';

const TOKEN = 'bench-pages-admin-token';
const SIZES = [1_000, 100_000] as const;
/** Rules per seeding POST: well under the 16 MiB body limit, few enough requests to seed fast. */
const SEED_BATCH = 10_000;
/** Turns each store gets per case. */
const ROUNDS = 10;

interface Case {
  label: string;
  /** The query for a store of `total` rules. */
  query(total: number): string;
  repeats: number;
}

const lastPage = (total: number, size: number) => Math.max(0, Math.ceil(total / size) - 1);

const CASES: Case[] = [
  { label: 'page of 1, first page', query: () => 'paginate=true&page=0&page_size=1', repeats: 400 },
  {
    label: 'page of 1, last page',
    query: (total) => `paginate=true&page=${lastPage(total, 1)}&page_size=1`,
    repeats: 400,
  },
  { label: 'page of 1000, first page', query: () => 'paginate=true&page=0&page_size=1000', repeats: 40 },
  {
    label: 'page of 1000, last page',
    query: (total) => `paginate=true&page=${lastPage(total, 1000)}&page_size=1000`,
    repeats: 40,
  },
  {
    label: 'page of 1, filtered (scan)',
    query: () => 'paginate=true&page=0&page_size=1&rq_host=app-7.bench.example.com',
    repeats: 100,
  },
];

async function seed(url: string, total: number): Promise<void> {
  for (let start = 0; start < total; start += SEED_BATCH) {
    const count = Math.min(SEED_BATCH, total - start);
    const rules = Array.from({ length: count }, (_, i) => ruleInput(start + i));
    const response = await fetch(`${url}/api/v1/application_rules`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'multipart/mixed; boundary=b' },
      body: JSON.stringify({ rules }),
    });
    if (response.status !== 200)
      throw new Error(`seeding failed: ${response.status} ${await response.text()}`);
    await response.arrayBuffer();
  }
}

/** One GET, its body read whole and checked, so that a broken listing cannot pass for a fast one. */
async function get(url: string, query: string, expectRows: number): Promise<void> {
  const response = await fetch(`${url}/api/v1/application_rules?${query}`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  const body = (await response.json()) as { data?: { application_rules?: unknown[] } };
  const rows = body.data?.application_rules?.length;
  if (response.status !== 200 || rows !== expectRows) {
    throw new Error(`GET ?${query}: status ${response.status}, ${rows} rows, expected ${expectRows}`);
  }
}

function expectedRows(label: string, total: number): number {
  if (label.startsWith('page of 1,')) return 1;
  if (label.includes('last page')) return total - lastPage(total, 1000) * 1000;
  return Math.min(1000, total);
}

interface Seeded {
  url: string;
  total: number;
}

/**
 * Mean milliseconds of one request, per store. The stores take turns in short rounds, so that a
 * warming JIT or a busy neighbour weighs on both columns alike rather than on whichever ran first.
 */
async function measureCase(stores: readonly Seeded[], c: Case, repeats: number): Promise<number[]> {
  const spent = stores.map(() => 0);
  const round = Math.max(1, Math.ceil(repeats / ROUNDS));
  for (const { url, total } of stores) {
    const warmUp = Math.min(20, repeats);
    for (let i = 0; i < warmUp; i++) await get(url, c.query(total), expectedRows(c.label, total));
  }
  for (let r = 0; r < ROUNDS; r++) {
    for (const [s, { url, total }] of stores.entries()) {
      const started = performance.now();
      for (let i = 0; i < round; i++) await get(url, c.query(total), expectedRows(c.label, total));
      spent[s] = (spent[s] ?? 0) + performance.now() - started;
    }
  }
  return spent.map((ms) => ms / (round * ROUNDS));
}

function table(results: number[][]): string {
  const [small = [], large = []] = results;
  const header = ['case', ...SIZES.map((n) => `${n.toLocaleString('en-US')} rules (ms)`), 'ratio', 'target'];
  const rows = CASES.map((c, i) => {
    const a = small[i] ?? Number.NaN;
    const b = large[i] ?? Number.NaN;
    const ratio = b / a;
    const scan = c.label.includes('filtered');
    const verdict = scan ? 'linear by design' : ratio <= 3 ? 'met (<= 3x)' : 'MISSED (> 3x)';
    return [c.label, a.toFixed(3), b.toFixed(3), `${ratio.toFixed(2)}x`, verdict];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

async function main(): Promise<void> {
  const quick = process.argv.includes('--quick');
  const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU';
  process.stdout.write(
    `emulator page cost: node ${process.version}, ${cpu}; mean of one GET /api/v1/application_rules over HTTP (keep-alive)\n\n`,
  );
  const emulators = await Promise.all(SIZES.map(() => startEmulator({ port: 0, adminToken: TOKEN })));
  try {
    const stores = SIZES.map((total, i) => ({ url: emulators[i]?.url ?? '', total }));
    for (const { url, total } of stores) {
      const started = performance.now();
      await seed(url, total);
      process.stderr.write(`bench: seeded ${total} rules in ${Math.round(performance.now() - started)} ms\n`);
    }
    const byCase: number[][] = [];
    for (const c of CASES) {
      byCase.push(await measureCase(stores, c, quick ? Math.ceil(c.repeats / 10) : c.repeats));
    }
    // table() takes one column of means per store size.
    const results = SIZES.map((_, s) => byCase.map((means) => means[s] ?? Number.NaN));
    process.stdout.write(`${table(results)}\n`);
  } finally {
    await Promise.all(emulators.map((emulator) => emulator.close()));
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
