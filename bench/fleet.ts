/**
 * The fleet scenario (issue 45): one emulator per environment (in the harness process, with the
 * run's latency, seeded with the same rules), a project whose wafctl.yaml declares them all, and
 * `wafctl drift --env all` in one run at the default concurrency, beside one `drift --env NAME` per
 * environment in turn. Both make the same requests; the one run's peak RSS is also measured on the
 * first `fleetSmall` environments, since memory must follow the concurrency, not the fleet's size.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pLimit from 'p-limit';
import { writeConfigDir } from './config-files.js';
import { type BenchFirewall, startBenchFirewall } from './firewall.js';
import { runCommands } from './fleet-runs.js';
import type { BenchOptions } from './options.js';
import { fmt } from './report.js';
import type { Measured, ScenarioResult } from './scenarios.js';

/** Emulators started and seeded at once (set-up, not measured). */
const START_CONCURRENCY = 16;

const environmentName = (i: number) => `fw-${String(i).padStart(3, '0')}`;

/** A configuration root declaring the first `count` firewalls as environments, each reading it whole. */
function writeProject(firewalls: readonly BenchFirewall[], count: number, rules: number): Promise<string> {
  const environments = Object.fromEntries(
    firewalls
      .slice(0, count)
      .map((firewall, i) => [
        environmentName(i),
        { url: firewall.url, token_env: 'WAF_TOKEN', paths: ['.'] },
      ]),
  );
  return writeConfigDir({ rules, groups: 0, notifications: 0, schedules: 0, environments });
}

/** Runs the command lines in turn; the requests are those of every firewall together. */
async function measureCommands(
  firewalls: readonly BenchFirewall[],
  token: string,
  commands: string[][],
  scratch: string,
): Promise<Measured> {
  await Promise.all(firewalls.map((firewall) => firewall.resetStats()));
  const { wallMs, maxRssBytes } = await runCommands(commands, token, scratch);
  const stats = await Promise.all(firewalls.map((firewall) => firewall.stats()));
  return { wallMs, requests: stats.reduce((sum, s) => sum + s.total, 0), maxRssBytes };
}

export async function fleetScenario(options: BenchOptions): Promise<ScenarioResult> {
  const { fleet: n, fleetSmall: small, fleetRules: rules } = options;
  const token = randomBytes(16).toString('hex');
  const limit = pLimit(START_CONCURRENCY);
  const firewalls = await Promise.all(
    Array.from({ length: n }, () =>
      limit(async () => {
        const firewall = await startBenchFirewall(options.latencyMs, options.listShape, token);
        await firewall.seed({ rules, groups: 0, notifications: 0, schedules: 0 });
        return firewall;
      }),
    ),
  );
  const scratch = await mkdtemp(join(tmpdir(), 'wafctl-bench-fleet-'));
  const roots: string[] = [scratch];
  try {
    const root = await writeProject(firewalls, n, rules);
    roots.push(root);
    const smallRoot = await writeProject(firewalls, small, rules);
    roots.push(smallRoot);
    const wafctl = await measureCommands(firewalls, token, [['drift', root, '--env', 'all']], scratch);
    const smallRun = [['drift', smallRoot, '--env', 'all']];
    const smaller = await measureCommands(firewalls.slice(0, small), token, smallRun, scratch);
    const baseline = options.baseline
      ? await measureCommands(
          firewalls,
          token,
          firewalls.map((_, i) => ['drift', root, '--env', environmentName(i)]),
          scratch,
        )
      : undefined;
    if (baseline && baseline.requests !== wafctl.requests)
      throw new Error(`fleet: ${wafctl.requests} requests in one run, ${baseline.requests} in separate runs`);
    return {
      name: 'fleet',
      n,
      detail: `drift of ${fmt(n)} environments (one emulator each, ${fmt(rules)} rules each, no drift): wafctl = \`drift --env all\` in one run at the default concurrency; baseline = ${fmt(n)} runs of \`drift --env NAME\` in turn, each a process of dist/wafctl.mjs as a shell loop runs it; peak RSS of the one run over ${fmt(small)} environments: ${fmt(Math.round((smaller.maxRssBytes ?? 0) / 2 ** 20))} MB`,
      wafctl,
      ...(baseline ? { baseline } : {}),
      fleet: { small, smallRssBytes: smaller.maxRssBytes ?? 0 },
    };
  } finally {
    await Promise.all(roots.map((dir) => rm(dir, { recursive: true, force: true })));
    await Promise.all(firewalls.map((firewall) => firewall.close()));
  }
}
