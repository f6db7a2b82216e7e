/**
 * The toy family against a real emulator. Its emulator side is one table entry and one route file
 * (test/kinds/toy/collection.ts, routes.ts), handed to startEmulator: the store, auth, the state
 * file, its journal and the invariants take the collection as they take the built-in ones, with no
 * line of src/ knowing widgets. Its descriptor and API module (toy/descriptor.ts, api.ts) then plan,
 * apply and plan again to no changes against it.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ClientContext } from '../../src/api/context.js';
import { createHttp } from '../../src/api/http.js';
import { DEFAULT_RETRY_POLICY, SYSTEM_CLOCK } from '../../src/api/retry.js';
import { validateSources } from '../../src/config/validate-sources.js';
import { type EmulatorOptions, type RunningEmulator, startEmulator } from '../../src/emulator/index.js';
import { KINDS } from '../../src/kinds/index.js';
import { applyPlan } from '../../src/ops/apply/applier.js';
import { planOptions, refreshInputs } from '../../src/ops/refresh.js';
import { planChanges } from '../../src/plan/planner.js';
import { crashImage, journalLines } from '../emulator/state-helpers.js';
import { type WidgetsApi, widgetsApi } from './toy/api.js';
import { WIDGETS } from './toy/collection.js';
import { widgetsKind } from './toy/descriptor.js';
import { noApi, TOY_CONFIG } from './toy/fixtures.js';
import { widgetRoutes } from './toy/routes.js';

const ADMIN_TOKEN = 'toy-admin-token-0001';
const USER_TOKEN = 'toy-user-token-0001';
/** What the emulator is given of the toy family: its table entry and its route file. */
const TOY: EmulatorOptions = { extraCollections: [WIDGETS], extraRoutes: widgetRoutes };

function widgetsAt(url: string, token = ADMIN_TOKEN): WidgetsApi {
  const ctx: ClientContext = {
    http: createHttp({
      baseUrl: url,
      token,
      timeoutSeconds: 10,
      retry: { ...DEFAULT_RETRY_POLICY, attempts: 1 },
      clock: SYSTEM_CLOCK,
    }),
    pageSize: 100,
    concurrency: 2,
    maxRows: 10_000,
    maxListingBytes: 1 << 20,
  };
  return widgetsApi(ctx);
}

async function plan(widgets: WidgetsApi) {
  const kind = widgetsKind(widgets);
  const result = validateSources([{ file: 'widgets.yaml', text: TOY_CONFIG }], {
    env: {},
    kinds: [...KINDS, kind],
  });
  if (!result.ok) throw new Error(result.problems.map((p) => p.message).join('\n'));
  const { config } = result;
  const planned = planChanges(
    await refreshInputs(config, noApi, { concurrency: 2 }, [kind]),
    planOptions(config),
  );
  return { kind, plan: planned };
}

let dir: string;
let statePath: string;
const running: RunningEmulator[] = [];

async function start(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const emulator = await startEmulator({
    adminToken: ADMIN_TOKEN,
    statePath,
    seed: { users: [{ id: 'u-1', username: 'bob', token: USER_TOKEN }] },
    ...options,
  });
  running.push(emulator);
  return emulator;
}

async function stop(emulator: RunningEmulator): Promise<void> {
  running.splice(running.indexOf(emulator), 1);
  await emulator.close();
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wafctl-toy-'));
  statePath = join(dir, 'state.json');
});
afterEach(async () => {
  for (const emulator of running.splice(0)) await emulator.close();
  await rm(dir, { recursive: true, force: true });
});

describe('a family registered in the test tree only, against the emulator', () => {
  it('plans, applies, and plans again to no changes, also after a restart', async () => {
    const emulator = await start(TOY);
    const widgets = widgetsAt(emulator.url);
    const big = await widgets.create({ name: 'big', size: 5, color: 'blue', tags: [] });
    await widgets.create({ name: 'small', size: 1, color: 'green', tags: [] });
    await widgets.create({ name: 'old', size: 1, color: 'red', tags: [] });

    const { kind, plan: first } = await plan(widgets);
    expect(first.changes.map((c) => `${c.action} ${c.kind}.${c.key}`).sort()).toEqual([
      'create widget.fresh',
      'delete widget.old',
      'replace widget.small',
      'update widget.big',
    ]);
    const report = await applyPlan(first, noApi, {
      parallelism: 2,
      batchSize: 10,
      username: 'test',
      kinds: [kind],
    });
    expect(report.results.map((r) => r.outcome.status)).not.toContain('failed');
    const live = await widgets.list();
    expect(live.map(({ name, size, color, tags }) => ({ name, size, color, tags }))).toEqual([
      { name: 'big', size: 3, color: 'blue', tags: [] },
      { name: 'fresh', size: 2, color: 'red', tags: [] },
      { name: 'small', size: 1, color: 'red', tags: ['a', 'b'] },
    ]);
    expect(live[0]?.id).toBe(big.id);

    const again = await plan(widgets);
    expect(again.plan.changes).toEqual([]);
    expect(again.plan.summary.unchanged).toBe(3);

    // Kept like a built-in collection: journaled as it is written (a crash image replays it), and
    // folded into the state file at close, with its counter.
    const image = await crashImage(statePath, join(dir, 'image'));
    const journal = await journalLines(image);
    expect(journal.some((line) => line.includes('"widgets"'))).toBe(true);
    await stop(emulator);
    const saved = JSON.parse(await readFile(statePath, 'utf8'));
    expect(saved.widgets.map((w: { name: string }) => w.name)).toEqual(['big', 'fresh', 'small']);
    expect(saved.next_ids.widget).toBe(6);
    for (const path of [image, statePath]) {
      const restarted = await start({ ...TOY, statePath: path });
      const after = widgetsAt(restarted.url);
      expect((await plan(after)).plan.changes).toEqual([]);
      expect((await after.create({ name: 'next', size: 1, color: 'red', tags: [] })).id).toBe('6');
      await stop(restarted);
    }
  });

  it('is guarded by its privileges: an administrator may, a user without an admin group may not', async () => {
    const emulator = await start(TOY);
    await expect(widgetsAt(emulator.url).list()).resolves.toEqual([]);
    await expect(widgetsAt(emulator.url, USER_TOKEN).list()).rejects.toThrow(/403/);
  });

  it('a state file written without it loads with it (empty, its counter at 1)', async () => {
    const plain = await start();
    const created = await fetch(`${plain.url}/api/v1/groups`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ attrs: { name: 'g' } }),
    });
    expect(created.status).toBe(200);
    await stop(plain);
    const saved = JSON.parse(await readFile(statePath, 'utf8'));
    expect(saved.widgets).toBeUndefined();
    expect(saved.next_ids.widget).toBeUndefined();

    const emulator = await start(TOY);
    const widgets = widgetsAt(emulator.url);
    expect(await widgets.list()).toEqual([]);
    expect((await widgets.create({ name: 'w', size: 1, color: 'red', tags: [] })).id).toBe('1');
  });

  it('a state file holding it is refused without it, and checked by its invariants with it', async () => {
    const emulator = await start(TOY);
    const widgets = widgetsAt(emulator.url);
    await widgets.create({ name: 'a', size: 1, color: 'red', tags: [] });
    await widgets.create({ name: 'b', size: 1, color: 'red', tags: [] });
    await stop(emulator);

    await expect(start()).rejects.toThrow(/is not a valid emulator state: .*widgets: unknown field/);

    const saved = JSON.parse(await readFile(statePath, 'utf8'));
    saved.widgets[1].id = saved.widgets[0].id;
    await writeFile(statePath, JSON.stringify(saved));
    await expect(start(TOY)).rejects.toThrow("widgets.1.id: duplicate id '1' (also widgets.0)");
    saved.widgets[1].id = '3';
    await writeFile(statePath, JSON.stringify(saved));
    await expect(start(TOY)).rejects.toThrow("widgets.1.id: id '3' is not below next_ids.widget (3)");
  });

  it('its routes are refused at start without its table entry', async () => {
    await expect(start({ extraRoutes: widgetRoutes })).rejects.toThrow(
      "route GET /api/v1/widgets names the privilege 'widgets', which no collection has",
    );
  });
});
