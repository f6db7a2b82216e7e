import { describe, expect, it } from 'vitest';
import { planDocumentSchema } from '../../../src/core/plan-document.js';
import { notificationsKind } from '../../../src/kinds/notifications.js';
import { planChanges } from '../../../src/plan/planner.js';
import { renderJsonPlan } from '../../../src/plan/render/json.js';
import { samplePlan } from '../fixtures.js';

describe('renderJsonPlan', () => {
  it('follows the contract: format_version 1, summary, and changes with kind/key/action/id/fields/before/after', () => {
    const doc = JSON.parse(renderJsonPlan(samplePlan())) as {
      format_version: number;
      summary: Record<string, number>;
      changes: Array<Record<string, unknown>>;
    };
    expect(doc.format_version).toBe(1);
    expect(doc.summary).toMatchObject({
      create: 1,
      update: 2,
      replace: 1,
      delete: 1,
      unchanged: 0,
      unmanaged: 1,
    });
    expect(doc.changes.map((c) => [c.kind, c.key, c.action, c.id])).toEqual([
      ['group', 'auditors', 'create', undefined],
      ['group', 'soc-analysts', 'update', 'g-7'],
      ['application_rule', 'shop.example.com/Block admin', 'update', 'ar-1'],
      ['application_rule', 'shop.example.com/Block export', 'replace', 'ar-2'],
      ['application_rule', 'shop.example.com/Old rule', 'delete', 'ar-3'],
    ]);
    expect(doc.changes[2]).toMatchObject({
      fields: ['priority'],
      before: { priority: 'low' },
      after: { priority: 'high' },
    });
    expect(doc.changes[3]).toMatchObject({ forced_by: ['conditions'] });
    for (const change of doc.changes) {
      for (const field of ['kind', 'key', 'action', 'fields', 'before', 'after'])
        expect(change).toHaveProperty(field);
    }
  });

  it('matches the schema apply --plan reads, strictly: no field of the contract missing or mistyped', () => {
    const parsed = planDocumentSchema.strict().safeParse(JSON.parse(renderJsonPlan(samplePlan())));
    expect(parsed.error?.issues ?? []).toEqual([]);
    const broken = JSON.parse(renderJsonPlan(samplePlan())) as { changes: Record<string, unknown>[] };
    delete broken.changes[1]?.fingerprint;
    expect(planDocumentSchema.safeParse(broken).success).toBe(false);
  });

  it('prints each change impact (possibly empty) and the summary counts per class', () => {
    const splunk = (enabled: boolean) => ({
      name: 'splunk',
      enabled,
      settings: { destination_address: '10.0.0.5', destination_port: 514, format: 'cef', protocol: 'udp' },
    });
    const plan = planChanges([
      {
        kind: 'notification',
        immutable: [],
        impact: notificationsKind.impact,
        scope: { prune: false, match: {} },
        desired: [
          { key: 'splunk', attributes: splunk(false), protect: false, ignoreChanges: [] },
          { key: 'new', attributes: { ...splunk(true), name: 'new' }, protect: false, ignoreChanges: [] },
        ],
        remote: [{ id: 'splunk', key: 'splunk', attributes: splunk(true) }],
      },
    ]);
    const doc = JSON.parse(renderJsonPlan(plan)) as {
      summary: { impact: unknown };
      changes: { key: string; impact: unknown }[];
    };
    expect(doc.summary.impact).toEqual({ weakens_protection: 0, broadens_access: 0, reduces_audit: 1 });
    expect(doc.changes.map((c) => [c.key, c.impact])).toEqual([
      ['new', []],
      ['splunk', [{ class: 'reduces_audit', reason: 'disabled (enabled: true -> false)' }]],
    ]);
  });
});
