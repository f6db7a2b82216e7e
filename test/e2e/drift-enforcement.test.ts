/**
 * `wafctl drift` sees enforcement and names who changed what (issue 44), against the emulator: its
 * actions are `pending` for `syncDelayMs`, then `synced`, or `error` on the `syncFail` firewalls; it
 * records the acting user as a rule's `username`. The emulator runs on a manual clock
 * (test/helpers/firewall.ts): no test sleeps.
 */
import { rm } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { validateSources } from '../../src/config/validate-sources.js';
import { driftDocumentSchema } from '../../src/core/drift-document.js';
import { refreshAndPlan } from '../../src/ops/refresh.js';
import { ENFORCEMENT_GRACE_MS } from '../../src/plan/enforcement.js';
import { runCli } from '../helpers/cli.js';
import {
  type ManualClock,
  manualClock,
  ruleWritersSeed,
  startTestFirewall,
  type TestFirewall,
  writeConfig,
} from '../helpers/firewall.js';

const opened: { firewall?: TestFirewall; dir?: string } = {};

afterEach(async () => {
  await opened.firewall?.close();
  if (opened.dir !== undefined) await rm(opened.dir, { recursive: true, force: true });
  delete opened.firewall;
  delete opened.dir;
});

const HOUR = 3_600_000;
const ADDRESS = 'application_rule.shop.example.com/Block admin';

/** One rule, blocking on two firewalls. */
const CONFIG = `application_rules:
  - rq_host: shop.example.com
    description: Block admin
    priority: high
    conditions: [{operator: match, expressions: ["^/admin"], targets: [path]}]
    actions:
      - {firewall_action: block, firewall_name: waf-eu-1}
      - {firewall_action: block, firewall_name: waf-us-1}
`;

/**
 * An emulator on `clock` where bob may write rules with his own token, and the rule applied by
 * wafctl, which names its creator `wafctl` (`settings.username`'s default) in the create: the
 * rule's `username` until someone updates it.
 */
async function applied(
  sync: { syncDelayMs?: number; syncFail?: string[] },
  clock: ManualClock = manualClock(),
): Promise<{ firewall: TestFirewall; dir: string; clock: ManualClock }> {
  const firewall = await startTestFirewall({
    seed: { ...ruleWritersSeed(['bob']), rules: [] },
    clock,
    ...sync,
  });
  const dir = await writeConfig({ 'rules.yaml': CONFIG });
  Object.assign(opened, { firewall, dir });
  const apply = await runCli(['apply', dir, '--auto-approve'], { env: firewall.env, clock });
  expect(apply.code, apply.stderr).toBe(0);
  return { firewall, dir, clock };
}

/** The live rule's id and `timestamp_update` as an ISO time (what `changed_at` must say). */
async function liveRule(firewall: TestFirewall): Promise<{ id: string; updatedAt: string }> {
  const [rule] = await firewall.api.applicationRules.list();
  if (rule?.timestamp_update === undefined) throw new Error('no rule, or no timestamp_update');
  return { id: rule.id, updatedAt: new Date(Math.floor(rule.timestamp_update / 1000)).toISOString() };
}

const drift = (dir: string, firewall: TestFirewall, clock: ManualClock, ...flags: string[]) =>
  runCli(['drift', dir, ...flags], { env: firewall.env, clock });

describe('drift sees enforcement', () => {
  it('a rule applied to a firewall whose sync fails is drift, weakening protection, in text, JSON and markdown', async () => {
    const { firewall, dir, clock } = await applied({ syncFail: ['waf-eu-1'] });
    const { id, updatedAt } = await liveRule(firewall);

    const text = await drift(dir, firewall, clock);
    expect(text.code).toBe(2);
    expect(text.stdout.split('\n')).toEqual([
      'Drift detected: 1 managed rule is not enforced.',
      'Security impact of the drift (what was changed outside wafctl): 1 unenforced rule weakens protection.',
      `  ! weakens_protection  ${ADDRESS}: not enforced on waf-eu-1: sync error`,
      `  ! ${ADDRESS}: not enforced on waf-eu-1: sync error (changed by wafctl, 2026-11-27 08:00 UTC)`,
      '',
    ]);

    const json = await drift(dir, firewall, clock, '--format', 'json');
    expect(json.code).toBe(2);
    const document = JSON.parse(json.stdout);
    expect(driftDocumentSchema.safeParse(document).success).toBe(true);
    expect(document).toMatchObject({ drift: true, objects: 1, changes: [] });
    expect(document.enforcement).toEqual([
      {
        kind: 'application_rule',
        key: 'shop.example.com/Block admin',
        id,
        changed_by: 'wafctl',
        changed_at: updatedAt,
        firewalls: [{ firewall: 'waf-eu-1', status: 'error', state: 'error' }],
        impact: [{ class: 'weakens_protection', reason: 'not enforced on waf-eu-1: sync error' }],
      },
    ]);

    const markdown = await drift(dir, firewall, clock, '--format', 'markdown');
    expect(markdown.code).toBe(2);
    expect(markdown.stdout).toContain(
      `- \`${ADDRESS}\`: not enforced on waf-eu-1: sync error (changed by wafctl, 2026-11-27 08:00 UTC)`,
    );
    expect(markdown.stdout).toContain(`- **weakens_protection** \`${ADDRESS}\`: not enforced on waf-eu-1`);

    const gated = await drift(dir, firewall, clock, '--fail-on', 'weakens_protection');
    expect(gated.code).toBe(3);
    expect(gated.stderr).toContain(ADDRESS);

    const table = await runCli(['get', 'application-rules'], { env: firewall.env, clock });
    expect(table.stdout.split('\n')[1]).toMatch(/\swaf-eu-1:error waf-us-1:synced\s+wafctl\s/);
  });

  it('all synced: no drift, as before', async () => {
    const { firewall, dir, clock } = await applied({});
    const text = await drift(dir, firewall, clock);
    expect([text.code, text.stdout]).toEqual([0, 'No drift: the firewall matches the configuration.\n']);
    const json = JSON.parse((await drift(dir, firewall, clock, '--format', 'json')).stdout);
    expect(json).toMatchObject({ drift: false, objects: 0 });
    expect(json).not.toHaveProperty('enforcement');
  });

  it('a pending action is drift once it is older than the grace, not before', async () => {
    // The emulator's time starts two hours back: wafctl's clock reads the rule's change as that old.
    const clock = manualClock(Date.now() - 2 * HOUR);
    const { firewall, dir } = await applied({ syncDelayMs: 24 * HOUR }, clock);
    clock.advance(2 * HOUR);
    const text = await drift(dir, firewall, clock);
    expect(text.code).toBe(2);
    expect(text.stdout).toContain(
      `  ! weakens_protection  ${ADDRESS}: not enforced on waf-eu-1: pending for 2 h; not enforced on waf-us-1: pending for 2 h`,
    );
  });

  it('judges the grace on the clock drift is given', async () => {
    const { firewall, clock } = await applied({ syncDelayMs: HOUR });
    const checked = validateSources([{ file: 'rules.yaml', text: CONFIG }], { env: {} });
    if (!checked.ok) throw new Error(JSON.stringify(checked.problems));
    const driftAt = (now: number) =>
      refreshAndPlan(checked.config, firewall.api, {
        concurrency: 2,
        impactDirection: 'drift',
        now: () => now,
      });

    clock.advance(ENFORCEMENT_GRACE_MS);
    expect((await driftAt(clock.now())).enforcement).toBeUndefined();
    clock.advance(5 * 60_000);
    const late = await driftAt(clock.now());
    expect(late.enforcement?.[0]?.impact.map((i) => i.reason)).toEqual([
      'not enforced on waf-eu-1: pending for 20 min',
      'not enforced on waf-us-1: pending for 20 min',
    ]);
    // Synced once the delay has passed on the emulator's clock: enforced, whatever the time.
    clock.advance(HOUR);
    expect((await driftAt(clock.now())).enforcement).toBeUndefined();
  });
});

describe('drift names who changed what', () => {
  it("a hand change with another user's token is reported with that user and the rule's time", async () => {
    const { firewall, dir, clock } = await applied({});
    const { id } = await liveRule(firewall);
    clock.advance(2 * HOUR + 5 * 60_000);
    await firewall.as('bob').applicationRules.update(id, { priority: 'low' });
    const { updatedAt } = await liveRule(firewall);
    expect(updatedAt).toMatch(/^2026-11-27T10:05:00\./);

    const json = JSON.parse((await drift(dir, firewall, clock, '--format', 'json')).stdout);
    expect(json.changes).toMatchObject([
      { action: 'update', key: 'shop.example.com/Block admin', id, changed_by: 'bob', changed_at: updatedAt },
    ]);

    const text = await drift(dir, firewall, clock);
    expect(text.code).toBe(2);
    expect(text.stdout).toContain(
      `    ~ ${ADDRESS}: priority differs (changed by bob, 2026-11-27 10:05 UTC)\n`,
    );

    const markdown = (await drift(dir, firewall, clock, '--format', 'markdown')).stdout.split('\n');
    const opening = markdown.indexOf('#### Who changed what');
    expect(opening).toBeGreaterThan(0);
    expect(markdown.slice(opening, opening + 4)).toEqual([
      '#### Who changed what',
      '',
      `- bob, 2026-11-27 10:05 UTC: \`${ADDRESS}\``,
      '',
    ]);
    expect(markdown.findIndex((line) => line.startsWith('####'))).toBe(opening);

    // The plan of the same firewall says nothing of it: its output is what it was.
    const plan = await runCli(['plan', dir, '--format', 'json'], { env: firewall.env, clock });
    expect(plan.stdout).not.toMatch(/changed_by|changed_at|enforcement/);
  });
});
