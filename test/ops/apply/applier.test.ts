/**
 * The applier against the real emulator, in-process: what an interruption, unreadable answers,
 * duplicates and two applies of one plan leave behind — and that the next plan repairs it.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FaultKind } from '../../../src/emulator/index.js';
import { applyPlan } from '../../../src/ops/apply/applier.js';
import type { ApplyReport } from '../../../src/ops/apply/model.js';
import { renderApplyReport } from '../../../src/ops/apply/report.js';
import { startTestFirewall, type TestFirewall } from '../../helpers/firewall.js';
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

const open: TestFirewall[] = [];
async function firewall(options: Parameters<typeof startTestFirewall>[0] = {}): Promise<TestFirewall> {
  const started = await startTestFirewall(options);
  open.push(started);
  return started;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((f) => f.close()));
});

const applyOptions = { parallelism: 1, batchSize: 100, username: 'test' };

/** `create b: done` lines, in the order the applier recorded them. */
const outcomes = (report: ApplyReport) =>
  report.results.map(
    (r) => `${r.operation} ${r.change.key.replace('shop.example.com/', '')}: ${r.outcome.status}`,
  );

async function converge(f: TestFirewall, desired: Desired): Promise<void> {
  const report = await applyPlan(await planLive(f.api, desired), f.api, applyOptions);
  expect(
    report.results.every((r) => r.outcome.status === 'done'),
    renderApplyReport(report),
  ).toBe(true);
  expect((await planLive(f.api, desired)).changes).toEqual([]);
  expect(await doubledKeys(f.api)).toEqual([]);
}

describe('an interrupted apply', () => {
  it('starts nothing after the signal, completes the replacement it started, and the next apply finishes', async () => {
    const f = await firewall();
    await converge(f, { application_rule: [rule('a', '^/a-old'), rule('z', '^/z')] });
    const desired = { application_rule: [rule('a', '^/a-new'), rule('b', '^/b'), rule('c', '^/c')] };
    const plan = await planLive(f.api, desired);
    expect(plan.changes.map((c) => `${c.action} ${c.key}`)).toEqual([
      'replace shop.example.com/a',
      'create shop.example.com/b',
      'create shop.example.com/c',
      'delete shop.example.com/z',
    ]);

    const controller = new AbortController();
    const report = await applyPlan(plan, f.api, {
      ...applyOptions,
      batchSize: 1,
      signal: controller.signal,
      // The signal arrives as the first create (the replacement's new half) finishes.
      onCall: (event) => event.operation === 'create' && controller.abort(),
    });
    expect(outcomes(report)).toEqual([
      'create a: done',
      'create b: interrupted',
      'create c: interrupted',
      'delete a: done', // the old half: the replacement is completed, no key left doubled
      'delete z: interrupted',
    ]);
    expect(await doubledKeys(f.api)).toEqual([]);
    const text = renderApplyReport(report);
    expect(text).toContain('  ! application_rule.shop.example.com/b: create not started (interrupted)\n');
    expect(text).toContain(
      'Apply interrupted: Resources: 1 added, 0 changed, 1 destroyed; 3 not started (0 failed, 0 skipped).\n',
    );

    const rest = await planLive(f.api, desired);
    expect(rest.changes.map((c) => `${c.action} ${c.key}`)).toEqual([
      'create shop.example.com/b',
      'create shop.example.com/c',
      'delete shop.example.com/z',
    ]);
    await converge(f, desired);
  });
});

describe('an apply killed outright', () => {
  it('between the create and the delete of a replacement leaves the key doubled; the next plan heals it', async () => {
    const f = await firewall();
    await converge(f, { application_rule: [rule('a', '^/a-old')] });
    const [old] = (await f.api.applicationRules.list()).map((r) => r.id);
    const desired = { application_rule: [rule('a', '^/a-new')] };

    // The create reaches the server; the process dies before reading its answer.
    const killed = killedAfter(f.api, 0);
    void applyPlan(await planLive(f.api, desired), killed.api, applyOptions);
    await killed.inFlight();
    expect(await doubledKeys(f.api)).toEqual(['application_rule.shop.example.com/a']);

    const healing = await planLive(f.api, desired);
    const [, created] = (await f.api.applicationRules.list()).map((r) => r.id);
    // The new copy equals the configuration and survives; the old one is the duplicate.
    expect(healing.changes).toEqual([
      expect.objectContaining({ action: 'delete', id: old, duplicate_of: created }),
    ]);
    await converge(f, desired);
  });
});

describe('answers a proxy garbled after the work was done', () => {
  const before: Desired = {
    group: [group('ops', 'old'), group('retired')],
    application_rule: [rule('a', '^/a'), rule('b', '^/b-old'), rule('z', '^/z')],
    notification: [notification('siem')],
    schedule: [schedule('weekly'), schedule('daily')],
  };
  const after: Desired = {
    group: [group('ops', 'new'), group('sec')],
    application_rule: [rule('a', '^/a', 'low'), rule('b', '^/b-new'), rule('c', '^/c')],
    notification: [notification('siem', 6514), notification('siem-2')],
    schedule: [schedule('weekly', ['soc@example.com'])],
  };

  it.each<FaultKind>(['html_after', 'truncated_after', 'status_error_after'])(
    '%s on every write: every change verified done by re-reading, nothing created twice',
    async (kind) => {
      const statePath = join(await mkdtemp(join(tmpdir(), 'wafctl-garbled-')), 'state.json');
      const setup = await firewall({ statePath });
      await converge(setup, before);
      await setup.close();

      const garbled = await firewall({ statePath, faultRate: 1, faultKinds: [kind] });
      const plan = await planLive(garbled.api, after);
      await garbled.resetStats();
      const report = await applyPlan(plan, garbled.api, applyOptions);
      expect(report.results.map((r) => r.outcome)).toEqual(
        report.results.map(() => expect.objectContaining({ status: 'done', ambiguous: true })),
      );
      // 4 creates, 4 updates, 4 deletes (the replaced rule's old half included), all verified.
      expect(renderApplyReport(report)).toMatch(
        /\nApply complete! Resources: 4 added, 4 changed, 4 destroyed \(12 ambiguous, verified done\)\.\n$/,
      );
      // One POST per create call: an unreadable answer is re-read, never answered by a second POST.
      const posts = Object.entries((await garbled.stats()).by_route).filter(([route]) =>
        route.startsWith('POST'),
      );
      expect(Object.fromEntries(posts)).toEqual({
        'POST /api/v1/groups': 1,
        'POST /api/v1/application_rules': 1,
        'POST /api/v1/settings/notifications': 1,
      });
      await garbled.close();

      await converge(await firewall({ statePath }), after);
    },
  );
});

describe('duplicates', () => {
  /** Two rules with one key, through the API (a plan never creates them). */
  async function doubled(f: TestFirewall): Promise<string[]> {
    const input = {
      rq_host: 'shop.example.com',
      description: 'a',
      priority: 'high',
      username: 'someone',
      conditions: [
        { operator: 'match', expressions: [{ expression: '^/a' }], targets: [{ target: 'path' }] },
      ],
      actions: [{ firewall_action: 'block', firewall_name: 'waf-eu-1' }],
    };
    return f.api.applicationRules.create([input, input]);
  }

  it('are deleted once the survivor matches the configuration, and kept while it cannot be made to', async () => {
    const f = await firewall();
    const [oldest, younger] = await doubled(f);

    // The survivor's update is refused (the emulator requires a priority): the duplicate stays.
    const refused = await applyPlan(
      await planLive(f.api, { application_rule: [rule('a', '^/a', '')] }),
      f.api,
      applyOptions,
    );
    expect(outcomes(refused)).toEqual(['update a: failed', 'delete a: skipped']);
    expect(renderApplyReport(refused)).toContain(
      `delete skipped: kept: the copy that survives (id ${oldest}) could not be updated first`,
    );
    expect((await f.api.applicationRules.list()).map((r) => r.id)).toEqual([oldest, younger]);

    const healed = await applyPlan(
      await planLive(f.api, { application_rule: [rule('a', '^/a', 'low')] }),
      f.api,
      applyOptions,
    );
    expect(outcomes(healed)).toEqual(['update a: done', 'delete a: done']);
    expect((await f.api.applicationRules.list()).map((r) => [r.id, r.priority])).toEqual([[oldest, 'low']]);
  });

  it('of a protected key are refused for that key only', async () => {
    const f = await firewall();
    await doubled(f);
    const desired = { application_rule: [rule('a', '^/a'), rule('b', '^/b')] };
    const plan = await planLive(f.api, desired, new Set(['shop.example.com/a']));
    const report = await applyPlan(plan, f.api, applyOptions);
    expect(outcomes(report)).toEqual(['create b: done']);
    expect(report.refused.map((p) => p.key)).toEqual(['shop.example.com/a']);
    expect(await doubledKeys(f.api)).toEqual(['application_rule.shop.example.com/a']);
  });
});

describe('two applies of one plan at the same time', () => {
  it('leave duplicates and refusals that the next plan repairs', async () => {
    const f = await firewall();
    await converge(f, { application_rule: [rule('a', '^/a-old')], group: [] });
    const desired = {
      application_rule: [rule('a', '^/a-new'), rule('b', '^/b')],
      group: [group('ops')],
      schedule: [schedule('weekly')],
    };
    // Both plan before either applies: both "create b", both "replace a".
    const [first, second] = [await planLive(f.api, desired), await planLive(f.api, desired)];
    const reports = await Promise.all([first, second].map((plan) => applyPlan(plan, f.api, applyOptions)));
    // Names are unique in the emulator: the slower create of a group or schedule is refused.
    const failed = reports.flatMap((r) => r.results.filter((x) => x.outcome.status === 'failed'));
    expect(failed.map((r) => r.change.kind).sort()).toEqual(['group', 'schedule']);
    expect(await doubledKeys(f.api)).toEqual([
      'application_rule.shop.example.com/a',
      'application_rule.shop.example.com/b',
    ]);

    const healing = await planLive(f.api, desired);
    expect(
      healing.changes.map((c) =>
        c.action === 'delete' ? `delete ${c.key} (duplicate of ${c.duplicate_of})` : c.action,
      ),
    ).toEqual([
      expect.stringMatching(/^delete shop\.example\.com\/a \(duplicate of \d+\)$/),
      expect.stringMatching(/^delete shop\.example\.com\/b \(duplicate of \d+\)$/),
    ]);
    await converge(f, desired);
  });
});
