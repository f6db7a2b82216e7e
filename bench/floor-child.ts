/**
 * The floor of `wafctl plan`: the least work the job needs, run as its own process so that its wall
 * time and peak RSS compare with the real CLI's. It parses the same YAML files with js-yaml, reads
 * the same listings over HTTP from the same emulator (page size 1,000, 8 pages in flight per
 * listing, all kinds at once, and the GET-ones the listings force with 32 in flight, as wafctl
 * does) and `JSON.parse`s every body. No validation, no normalising, no diff, no output but one
 * JSON line of counts. Both halves are kept in memory until the end, as a plan needs them together.
 *
 * Usage: node floor-child.js URL CONFIG_DIR   (token in WAF_TOKEN)
 */

import { readdir, readFile } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { load } from 'js-yaml';

/** wafctl's defaults: the client's page size and pages in flight, and plan's GET-ones in flight. */
const PAGE_SIZE = 1_000;
const PAGE_CONCURRENCY = 8;
const GET_ONE_CONCURRENCY = 32;

const [url, configDir] = process.argv.slice(2);
const token = process.env.WAF_TOKEN ?? '';
if (url === undefined || configDir === undefined) {
  process.stderr.write('usage: floor-child URL CONFIG_DIR (token in WAF_TOKEN)\n');
  process.exit(2);
}
const base = new URL(url);
const agent = new Agent({ keepAlive: true });

type Body = { data?: Record<string, unknown>; pagination?: { page: number; total_pages: number } };

function get(path: string): Promise<Body> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent,
        host: base.hostname,
        port: base.port,
        path,
        headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          if (res.statusCode !== 200) reject(new Error(`GET ${path}: ${res.statusCode}`));
          else resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Body);
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** `work` over `items`, at most `limit` at once, results in order. */
async function mapLimited<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>) {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** The rows of a body: its `data`'s one array (`application_rules`, `groups`, ...). */
const rowsOf = (body: Body): Record<string, unknown>[] =>
  (Object.values(body.data ?? {}).find(Array.isArray) as Record<string, unknown>[] | undefined) ?? [];

/** Every page: the first, then the rest with PAGE_CONCURRENCY in flight. */
async function allPages(path: string): Promise<Record<string, unknown>[]> {
  const page = (n: number) => get(`${path}?paginate=true&page=${n}&page_size=${PAGE_SIZE}`);
  const first = await page(0);
  const { page: firstPage = 0, total_pages: totalPages = 1 } = first.pagination ?? {};
  const rest = Array.from({ length: Math.max(0, totalPages - 1) }, (_, i) => firstPage + 1 + i);
  const pages = await mapLimited(rest, PAGE_CONCURRENCY, page);
  return [first, ...pages].flatMap(rowsOf);
}

async function yamlFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() && /\.ya?ml$/.test(e.name))
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

async function main(): Promise<void> {
  const documents = await Promise.all(
    (await yamlFiles(configDir as string)).map(
      async (file) => load(await readFile(file, 'utf8')) as Record<string, unknown> | null,
    ),
  );
  const desired: Record<string, unknown[]> = {};
  const prune = new Set<string>();
  for (const doc of documents) {
    for (const [section, value] of Object.entries(doc ?? {})) {
      if (!Array.isArray(value)) continue;
      const list = desired[section] ?? [];
      desired[section] = list;
      for (const item of value) list.push(item);
    }
    const manage = (doc?.manage ?? {}) as Record<string, { prune?: boolean }>;
    for (const [section, scope] of Object.entries(manage)) if (scope?.prune) prune.add(section);
  }
  const used = (section: string) => (desired[section]?.length ?? 0) > 0 || prune.has(section);

  const readers: Record<string, () => Promise<unknown[]>> = {
    application_rules: async () => {
      const rows = await allPages('/api/v1/application_rules');
      // Rows without conditions or the actions array must be read again (wafctl hydrates them).
      const incomplete = rows.filter((r) => !Array.isArray(r.conditions) || !Array.isArray(r.actions));
      await mapLimited(incomplete, GET_ONE_CONCURRENCY, (r) =>
        get(`/api/v1/application_rules/${encodeURIComponent(String(r.id))}`),
      );
      return rows;
    },
    groups: async () => {
      // The list has no permissions or members: one GET-one per group.
      const listed = rowsOf(await get('/api/v1/groups'));
      return mapLimited(listed, GET_ONE_CONCURRENCY, (g) =>
        get(`/api/v1/groups/${encodeURIComponent(String(g.id))}`),
      );
    },
    notifications: async () => rowsOf(await get('/api/v1/settings/notifications')),
    schedules: () => allPages('/api/v1/reports/schedules'),
  };
  const sections = Object.keys(readers).filter(used);
  // Members are written by username: a plan that declares some reads the user directory once.
  const withMembers = (desired.groups ?? []).some(
    (group) =>
      Array.isArray((group as { users?: unknown }).users) && (group as { users: unknown[] }).users.length > 0,
  );
  const [remote] = await Promise.all([
    Promise.all(sections.map((section) => readers[section]?.() ?? [])),
    withMembers ? get('/api/v1/users') : undefined,
  ]);

  const counts: Record<string, { desired: number; remote: number }> = {};
  sections.forEach((section, i) => {
    counts[section] = { desired: desired[section]?.length ?? 0, remote: remote[i]?.length ?? 0 };
  });
  const maxRssBytes = process.resourceUsage().maxRSS * 1024;
  process.stdout.write(`${JSON.stringify({ counts, maxRssBytes })}\n`);
  agent.destroy();
}

main().catch((error: unknown) => {
  process.stderr.write(`floor-child: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
