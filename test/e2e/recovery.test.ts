/**
 * What a pipeline does to an apply, with the real CLI against a real emulator: a cancelled job
 * (SIGINT, SIGTERM, or twice), and two merges applied at once. Each time, the next apply converges.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CliResult, runCli, startCli } from '../helpers/cli.js';
import { startTestFirewall, type TestFirewall, writeConfig } from '../helpers/firewall.js';
import { rulesYaml } from '../helpers/fixtures.js';

const rules = (specs: [description: string, expression: string][]) =>
  rulesYaml(specs.map(([description, expression]) => ({ description, expression })));

// Rules no change touches: a merge changes a few rules among many.
const KEPT = Array.from({ length: 20 }, (_, i): [string, string] => [`kept-${i}`, `^/kept/${i}`]);
const BEFORE = rules([['a', '^/a-old'], ...KEPT]);
// `a` is replaced (new condition): created first, old one deleted last; b..e are new.
const AFTER = rules([['a', '^/a-new'], ['b', '^/b'], ['c', '^/c'], ['d', '^/d'], ['e', '^/e'], ...KEPT]);
const AFTER_KEYS = ['a', 'b', 'c', 'd', 'e', ...KEPT.map(([description]) => description)].sort();

let firewall: TestFirewall;
/**
 * Each request takes 150 ms where timing is the point: a signal sent as a write starts lands while
 * it is in flight, and two applies overlap. Elsewhere none: the latency only made the test wait.
 */
const withLatency = (latencyMs: number) =>
  beforeEach(async () => {
    firewall = await startTestFirewall({ latencyMs });
  });
afterEach(async () => {
  await firewall.close();
});

async function liveKeys(): Promise<string[]> {
  return (await firewall.api.applicationRules.list()).map((r) => r.description ?? '').sort();
}

/** Applies `dir` once more, then checks that nothing is left to do and nothing is doubled. */
async function expectConverges(dir: string): Promise<void> {
  const again = await runCli(['apply', dir, '--auto-approve'], { env: firewall.env });
  expect(again.code, again.stdout + again.stderr).toBe(0);
  const plan = await runCli(['plan', dir, '--detailed-exitcode'], { env: firewall.env });
  expect(plan.code, plan.stdout).toBe(0);
  expect(await liveKeys()).toEqual(AFTER_KEYS);
}

/** Applies BEFORE, then changes the configuration to AFTER: a replacement and four creates. */
async function setUp(): Promise<string> {
  const dir = await writeConfig({ 'rules.yaml': BEFORE });
  expect((await runCli(['apply', dir, '--auto-approve'], { env: firewall.env })).code).toBe(0);
  await writeFile(join(dir, 'rules.yaml'), AFTER);
  return dir;
}

/**
 * Starts an apply that writes one rule per call, and signals it as its first write is sent; a
 * second signal is sent once the first was taken (two sent at once may reach it as one).
 */
async function interruptedApply(
  dir: string,
  twice = false,
  signal: NodeJS.Signals = 'SIGINT',
): Promise<CliResult> {
  const run = startCli(['apply', dir, '--auto-approve', '--batch-size', '1', '--parallelism', '1'], {
    env: { ...firewall.env, WAFCTL_DEBUG: '1' },
  });
  await run.stderrMatches(/--> POST \/api\/v1\/application_rules/);
  run.child.kill(signal);
  if (twice) {
    await run.stderrMatches(/Interrupt received \(SIG[A-Z]+\): stopping\./);
    run.child.kill(signal);
  }
  return run.result;
}

describe('an apply interrupted by a signal', () => {
  withLatency(150);

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)(
    '%s: finishes the call in flight and the replacement it started, reports, exits %i',
    async (signal, code) => {
      const dir = await setUp();
      const result = await interruptedApply(dir, false, signal);
      expect(result.code, result.stdout + result.stderr).toBe(code);
      expect(result.stderr).toContain(
        `Interrupt received (${signal}): stopping. No new call is started; the calls in flight and the replacements they started are completed.`,
      );
      // The replacement's new half was in flight: it was created, and its old half deleted.
      expect(result.stdout).toContain('  + application_rule.shop.example.com/a: created\n');
      expect(result.stdout).toContain('  - application_rule.shop.example.com/a: destroyed\n');
      expect(result.stdout).toMatch(
        / {2}! application_rule\.shop\.example\.com\/e: create not started \(interrupted\)\n/,
      );
      expect(result.stdout).toMatch(
        /\nApply interrupted: Resources: \d added, 0 changed, 1 destroyed; \d not started /,
      );
      const live = await liveKeys();
      expect(new Set(live).size, `doubled: ${live}`).toBe(live.length);
      await expectConverges(dir);
    },
  );

  it('a second signal exits at once, and the next apply repairs whatever was left', async () => {
    const dir = await setUp();
    const result = await interruptedApply(dir, true);
    expect(result.code).toBe(130);
    expect(result.stderr).toContain('Interrupt received again (SIGINT): exiting at once.');
    expect(result.stdout).not.toContain('Apply interrupted');
    await expectConverges(dir);
  });
});

describe('duplicates', () => {
  withLatency(0);

  it('count neither as deletes nor as existing objects: a real loss beside them is still refused', async () => {
    const dir = await writeConfig({ 'rules.yaml': BEFORE });
    expect((await runCli(['apply', dir, '--auto-approve'], { env: firewall.env })).code).toBe(0);
    // What a run killed between its creates and its deletes, 21 times over, would leave.
    await firewall.api.applicationRules.create(
      ([['a', '^/a-old'], ...KEPT] as [string, string][]).map(([description, expression]) => ({
        rq_host: 'shop.example.com',
        description,
        priority: 'high',
        username: 'someone',
        conditions: [{ operator: 'match', expressions: [{ expression }], targets: [{ target: 'path' }] }],
        actions: [{ firewall_action: 'block', firewall_name: 'waf-eu-1' }],
      })),
    );
    // 5 of the 21 rules pruned: both copies of each are lost (10), beside 16 duplicates of declared
    // rules. 10 of the 26 other live rules is 38%, refused; against all 42 it would have been 24%.
    const left = KEPT.slice(5);
    await writeFile(
      join(dir, 'rules.yaml'),
      `manage:\n  application_rules:\n    prune: true\n${rules([['a', '^/a-old'], ...left])}`,
    );

    const refused = await runCli(['apply', dir, '--auto-approve'], { env: firewall.env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'Error: refusing to delete 10 of 26 application_rule objects (and 16 duplicates, not counted) (limit 30%)',
    );
    expect(await firewall.api.applicationRules.list()).toHaveLength(42);
    const forced = await runCli(['apply', dir, '--auto-approve', '--force'], { env: firewall.env });
    expect(forced.stdout).toContain('Apply complete! Resources: 0 added, 0 changed, 26 destroyed.');
    expect(await liveKeys()).toEqual(['a', ...left.map(([description]) => description)].sort());
  });
});

describe('two applies at the same time', () => {
  withLatency(150);

  it('leave no duplicate and no pending change once one more apply has run', async () => {
    const dir = await setUp();
    const both = await Promise.all(
      [1, 2].map(() => runCli(['apply', dir, '--auto-approve'], { env: firewall.env })),
    );
    for (const run of both) expect([0, 1], run.stdout + run.stderr).toContain(run.code);
    await expectConverges(dir);
  });
});
