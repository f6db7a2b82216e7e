/** Saved plans keep the security impact the reviewer saw: `apply --plan --fail-on` judges exactly it. */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSavedPlan, renderSavedPlan } from '../../src/apply/saved-plan.js';
import { applicationRulesKind } from '../../src/kinds/application-rules.js';
import { groupsKind } from '../../src/kinds/groups.js';
import type { Plan } from '../../src/plan/model.js';
import { planChanges } from '../../src/plan/planner.js';

const rule = (firewall_action: string) => ({
  rq_host: 'shop.example.com',
  description: 'Block admin',
  priority: 'high',
  enabled: true,
  duration: null,
  start_time: null,
  conditions: [{ operator: 'match', not_op: false, expressions: ['^/admin'], targets: ['path'] }],
  actions: [{ firewall_action, firewall_name: 'waf-eu-1' }],
});
const group = (is_admin: boolean) => ({ name: 'ops', description: '', is_admin, permissions: [], users: [] });

/** A replace that weakens (custom classes: `challenge` is unknown) and an update that broadens. */
function plan(): Plan {
  return planChanges(
    [
      {
        kind: 'application_rule',
        immutable: applicationRulesKind.immutable,
        impact: applicationRulesKind.impact,
        scope: { prune: false, match: {} },
        desired: [
          { key: 'shop.example.com/Block admin', attributes: rule('log'), protect: false, ignoreChanges: [] },
        ],
        remote: [{ id: 'ar-1', key: 'shop.example.com/Block admin', attributes: rule('challenge') }],
      },
      {
        kind: 'group',
        immutable: groupsKind.immutable,
        impact: groupsKind.impact,
        scope: { prune: false, match: {} },
        desired: [{ key: 'ops', attributes: group(true), protect: false, ignoreChanges: [] }],
        remote: [{ id: 'g-1', key: 'ops', attributes: group(false) }],
      },
    ],
    { firewallActions: { blocking: ['challenge'], observing: ['log'], allowing: [] } },
  );
}

describe('saved plans and security impact', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wafctl-saved-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps every change impact and the summary counts through plan --out and apply --plan', async () => {
    const original = plan();
    expect(original.changes.map((c) => c.impact)).toEqual([
      [{ class: 'broadens_access', reason: 'made administrator' }],
      [{ class: 'weakens_protection', reason: 'action challenge -> log (blocking -> observing)' }],
    ]);
    const path = join(dir, 'plan.json');
    await writeFile(path, renderSavedPlan(original, 'bot'));
    const { plan: read } = await readSavedPlan(path);
    expect(read.changes.map((c) => c.impact)).toEqual(original.changes.map((c) => c.impact));
    expect(read.summary.impact).toEqual({ weakens_protection: 1, broadens_access: 1, reduces_audit: 0 });
  });

  it('refuses a saved plan whose change has no impact, or an unknown class', async () => {
    const path = join(dir, 'broken.json');
    await writeFile(path, renderSavedPlan(plan(), 'bot'));
    const saved = JSON.parse(await readFile(path, 'utf8')) as { changes: Record<string, unknown>[] };
    delete saved.changes[0]?.impact;
    await writeFile(path, JSON.stringify(saved));
    await expect(readSavedPlan(path)).rejects.toThrow(
      /is not a saved plan of this wafctl: changes\.0\.impact/,
    );

    (saved.changes[0] as { impact: unknown }).impact = [{ class: 'weakens_everything', reason: 'x' }];
    await writeFile(path, JSON.stringify(saved));
    await expect(readSavedPlan(path)).rejects.toThrow(/changes\.0\.impact\.0\.class/);
  });
});
