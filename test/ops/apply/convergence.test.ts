/**
 * Property: every plan can repair every state. For random configurations, a firewall is put
 * through rounds of what pipelines do to an apply — interrupted (SIGINT's signal), killed outright
 * between two calls, run twice at once, answered ambiguously (500s, resets, unreadable 200s) — and
 * then one clean apply must leave no duplicate and nothing to do.
 *
 * In-process, against the real emulator, so that many seeds fit in a few seconds.
 *
 * Coverage: 30 seeds a run, one test each (a tenth of a second or so on an idle core, so no test
 * nears the timeout on a loaded machine). The default window, seeds 1..30 (the seeds this test has
 * always run), puts each of the four rounds through both with and without faults, each pairing in
 * at least five seeds, and leaves the clean apply something to repair in twelve of them: duplicates
 * from concurrent runs to delete in six (4, 6, 11, 18, 26, 28), an unfinished apply in six more.
 * WAFCTL_TEST_SEED picks another window of 30 (caseSeeds), so shuffled runs try other states; a
 * failure names its seed and the window, and the same WAFCTL_TEST_SEED replays it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { type ApiClient, createApiClient } from '../../../src/api/index.js';
import { mulberry32 } from '../../../src/emulator/faults.js';
import { type FaultKind, startEmulator } from '../../../src/emulator/index.js';
import { applyPlan } from '../../../src/ops/apply/applier.js';
import { renderApplyReport } from '../../../src/ops/apply/report.js';
import { E2E_TOKEN } from '../../helpers/firewall.js';
import { caseSeeds, replayHint } from '../../helpers/random.js';
import {
  type Desired,
  doubledKeys,
  group,
  killedAfter,
  notification,
  planLive,
  rule,
  schedule,
} from './helpers.js';

const SEEDS = caseSeeds(30);
const AMBIGUOUS: FaultKind[] = [
  'unavailable',
  'error_after',
  'reset_after',
  'html_after',
  'truncated_after',
  'status_error_after',
];
const applyOptions = { parallelism: 3, batchSize: 2, username: 'test' };

type Random = () => number;
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const some = <T>(random: Random, items: readonly T[], p = 0.6): T[] => items.filter(() => random() < p);

function randomDesired(random: Random): Desired {
  const users = ['u-1001', 'u-1002', 'u-1003'];
  return {
    application_rule: some(random, ['r0', 'r1', 'r2', 'r3', 'r4', 'r5']).map((name) =>
      rule(name, pick(random, ['^/x', '^/y']), pick(random, ['high', 'low'])),
    ),
    group: some(random, ['g0', 'g1', 'g2']).map((name) =>
      group(name, pick(random, ['', 'ops']), some(random, users, 0.5)),
    ),
    notification: some(random, ['n0', 'n1']).map((name) => notification(name, pick(random, [514, 6514]))),
    schedule: some(random, ['s0', 's1']).map((name) =>
      schedule(name, [pick(random, ['a@example.com', 'b@example.com'])]),
    ),
  };
}

type Round = 'interrupted' | 'killed' | 'concurrent' | 'plain';

async function disturbedRound(api: ApiClient, desired: Desired, round: Round, random: Random): Promise<void> {
  // A plan that fails (a fault on every retry of a read) is a failed pipeline run: nothing written.
  const plan = await planLive(api, desired).catch(() => undefined);
  if (plan === undefined) return;
  switch (round) {
    case 'interrupted': {
      const controller = new AbortController();
      const after = Math.floor(random() * 4);
      let calls = 0;
      await applyPlan(plan, api, {
        ...applyOptions,
        signal: controller.signal,
        onCall: () => (++calls > after ? controller.abort() : undefined),
      });
      return;
    }
    case 'killed': {
      const killed = killedAfter(api, Math.floor(random() * 5));
      void applyPlan(plan, killed.api, applyOptions); // never settles: the process is gone
      await new Promise((resolve) => setImmediate(resolve));
      await killed.inFlight();
      return;
    }
    case 'concurrent': {
      const other = await planLive(api, desired).catch(() => undefined);
      await Promise.all([plan, other].map((p) => p && applyPlan(p, api, applyOptions)));
      return;
    }
    case 'plain':
      await applyPlan(plan, api, applyOptions);
  }
}

describe('every plan repairs every state', () => {
  // One test a seed (see the top of the file): a failing seed is named in its title and its message.
  it.each(SEEDS)(
    'seed %i: after random interruptions, kills, concurrent runs and ambiguous answers, one clean apply converges',
    async (seed) => {
      const dir = await mkdtemp(join(tmpdir(), 'wafctl-converge-'));
      onTestFinished(() => rm(dir, { recursive: true, force: true }));
      const random = mulberry32(seed);
      const statePath = join(dir, `state-${seed}.json`);
      const history: string[] = [];
      const withEmulator = async (faultRate: number, work: (api: ApiClient) => Promise<void>) => {
        const emulator = await startEmulator({
          port: 0,
          adminToken: E2E_TOKEN,
          statePath,
          faultRate,
          faultSeed: seed,
          faultKinds: AMBIGUOUS,
        });
        // Retries without real sleeps: the faults are about what is written, not about waiting.
        const api = createApiClient({
          baseUrl: emulator.url,
          token: E2E_TOKEN,
          clock: { sleep: async () => {} },
        });
        try {
          await work(api);
        } finally {
          await emulator.close();
        }
      };

      await withEmulator(0, async (api) => {
        await applyPlan(await planLive(api, randomDesired(random)), api, applyOptions);
      });
      const target = randomDesired(random);
      const rounds = 1 + Math.floor(random() * 3);
      for (let i = 0; i < rounds; i++) {
        const round = pick(random, ['interrupted', 'killed', 'concurrent', 'plain'] as const);
        const faultRate = random() < 0.5 ? 0 : 0.3;
        history.push(`${round}${faultRate > 0 ? ' with faults' : ''}`);
        await withEmulator(faultRate, (api) => disturbedRound(api, target, round, random));
      }

      await withEmulator(0, async (api) => {
        const context = `seed ${seed} (of ${replayHint(SEEDS)}): ${history.join(', ')}`;
        const report = await applyPlan(await planLive(api, target), api, applyOptions);
        expect(
          report.results.filter((r) => r.outcome.status !== 'done'),
          `${context}\n${renderApplyReport(report)}`,
        ).toEqual([]);
        const after = await planLive(api, target);
        expect([...after.changes, ...after.problems], context).toEqual([]);
        expect(await doubledKeys(api), context).toEqual([]);
      });
    },
  );
});
