/**
 * Resilience: with 20 % of requests faulted (503 and 429 before the work, 500 and connection
 * resets after it), each apply of a sequence converges within three tries, with no duplicate rule
 * and no unintended delete.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startTestFirewall, writeConfig } from '../helpers/firewall.js';
import { rulesYaml } from '../helpers/fixtures.js';
import { instantClock } from '../helpers/io.js';

interface RuleSpec {
  description: string;
  priority: string;
  expression: string;
}

const yaml = (specs: RuleSpec[]) => rulesYaml(specs.map((r) => ({ ...r, host: 'load.example.com' })));

const initial: RuleSpec[] = Array.from({ length: 40 }, (_, i) => ({
  description: `Rule ${i}`,
  priority: 'high',
  expression: `^/r${i}`,
}));
const steps: RuleSpec[][] = [
  initial,
  // Update 20 in place, replace 5 (new condition), rename 5.
  initial.map((r, i) =>
    i < 20
      ? { ...r, priority: 'low' }
      : i < 25
        ? { ...r, expression: `${r.expression}/v2` }
        : i < 30
          ? { ...r, description: `${r.description} renamed` }
          : r,
  ),
  // Prune 10.
  initial.slice(0, 30).map((r, i) => (i < 20 ? { ...r, priority: 'low' } : r)),
];

describe('wafctl apply under injected faults', () => {
  it('converges at every step of a sequence, with no duplicate and no unintended delete', async () => {
    const statePath = join(await mkdtemp(join(tmpdir(), 'wafctl-faults-')), 'state.json');
    const dir = await writeConfig({
      'wafctl.yaml': 'manage:\n  application_rules: {prune: true, match: {rq_host: ["*.example.com"]}}\n',
    });

    // A rule wafctl does not own (out of scope): it must survive everything.
    const setup = await startTestFirewall({ statePath });
    const [foreignId] = await setup.api.applicationRules.create([
      {
        rq_host: 'other.net',
        description: 'Not ours',
        priority: 'low',
        username: 'x',
        conditions: [
          { operator: 'match', expressions: [{ expression: '^/x' }], targets: [{ target: 'path' }] },
        ],
        actions: [{ firewall_action: 'log', firewall_name: 'waf-eu-1' }],
      },
    ]);
    await setup.close();

    let faultsSeen = 0;
    // The client's backoff between retries returns at once: the faults are real, the waiting is not.
    const clock = instantClock();
    for (const [step, specs] of steps.entries()) {
      await writeFile(join(dir, 'rules.yaml'), yaml(specs));
      const faulty = await startTestFirewall({ statePath, faultRate: 0.2, faultSeed: 1000 + step });
      const codes: (number | null)[] = [];
      try {
        while (codes.length < 3 && codes.at(-1) !== 0) {
          const result = await runCli(['apply', dir, '--auto-approve', '--batch-size', '3', '--force'], {
            env: { ...faulty.env, WAFCTL_DEBUG: '1' },
            clock,
          });
          codes.push(result.code);
          faultsSeen += (result.stderr.match(/^<-- (?:500|503|429|ERR) /gm) ?? []).length;
        }
      } finally {
        await faulty.close();
      }
      expect(codes.at(-1), `step ${step + 1}: exit codes ${codes.join(', ')}`).toBe(0);

      const clean = await startTestFirewall({ statePath });
      try {
        const plan = await runCli(['plan', dir, '--detailed-exitcode'], { env: clean.env });
        expect(plan.code, `step ${step + 1}: ${plan.stdout}`).toBe(0);
        const live = await clean.api.applicationRules.list();
        const keys = live.map((r) => `${r.rq_host}/${r.description}`);
        expect(new Set(keys).size, `step ${step + 1}: duplicates`).toBe(keys.length);
        expect(keys.sort()).toEqual(
          ['other.net/Not ours', ...specs.map((r) => `load.example.com/${r.description}`)].sort(),
        );
        expect(live.find((r) => r.id === foreignId)?.description).toBe('Not ours');
      } finally {
        await clean.close();
      }
    }
    // The faults really happened (and were survived): 503/429/500 answers and broken connections.
    expect(faultsSeen).toBeGreaterThanOrEqual(5);
    expect(clock.sleeps.length).toBeGreaterThan(0);
  });
});
