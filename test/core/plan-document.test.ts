/**
 * The plan document's one codec: the JSON it writes keeps the contract's meaning (an update's
 * before/after are its changed fields) and adds the whole objects; it reads back what it writes, and
 * what wafctl wrote before `objects` existed.
 */
import { describe, expect, it } from 'vitest';
import { changedView, planDocumentSchema } from '../../src/core/plan-document.js';
import { planToJson } from '../../src/plan/render/json.js';
import { duplicatePlan, samplePlan } from '../plan/fixtures.js';
import { OLD_PLAN_DOCUMENT, oldPlanAgain } from './old-plan.js';

const decode = (json: unknown) => {
  const parsed = planDocumentSchema.safeParse(json);
  expect(parsed.error?.issues ?? []).toEqual([]);
  return parsed.data!;
};

describe('the plan document', () => {
  it('holds whole objects in memory: an update has the whole remote object and the whole object after', () => {
    const update = oldPlanAgain().changes.find((c) => c.action === 'update');
    expect(update).toMatchObject({
      fields: ['description'],
      before: { name: 'ops', description: 'a', users: ['u2'] },
      after: { name: 'ops', description: 'b', users: ['u2'] },
    });
    if (update?.action !== 'update') throw new Error('expected an update');
    expect(changedView(update)).toEqual({ before: { description: 'a' }, after: { description: 'b' } });
  });

  it('writes what the previous wafctl wrote, plus the whole objects of every change', () => {
    const written = planToJson(oldPlanAgain());
    const withoutObjects = {
      ...written,
      changes: written.changes.map(({ objects: _, ...change }) => change),
    };
    // Field for field and in the same order: the JSON's meaning does not change.
    expect(JSON.stringify(withoutObjects)).toBe(JSON.stringify(OLD_PLAN_DOCUMENT));
    expect(written.changes.map((c) => [c.action, c.objects])).toEqual([
      ['create', { before: null, after: { name: 'new', description: '', users: [] } }],
      [
        'update',
        {
          before: { name: 'ops', description: 'a', users: ['u2'] },
          after: { name: 'ops', description: 'b', users: ['u2'] },
        },
      ],
      ['delete', { before: { name: 'ops', description: 'c', users: ['u2'] }, after: null }],
      [
        'replace',
        {
          before: { rq_host: 'h', description: 'r', conditions: ['old'] },
          after: { rq_host: 'h', description: 'r', conditions: ['new'] },
        },
      ],
    ]);
  });

  it("reads a plan written before `objects` existed: an update's whole before is rebuilt from target", () => {
    const { format_version, ...plan } = decode(structuredClone(OLD_PLAN_DOCUMENT));
    expect(format_version).toBe(1);
    expect(plan).toEqual(oldPlanAgain());
    // Even older: a warning without its count of duplicates.
    const older = structuredClone(OLD_PLAN_DOCUMENT) as { warnings: Record<string, unknown>[] };
    delete older.warnings[0]?.duplicates;
    expect(decode(older).warnings).toEqual([
      { kind: 'group', deletes: 1, duplicates: 0, existing: 2, max_delete_percent: 30 },
    ]);
  });

  it('reads back exactly what it writes', () => {
    for (const plan of [
      samplePlan(),
      samplePlan({ impactDirection: 'drift' }),
      duplicatePlan(),
      oldPlanAgain(),
    ]) {
      const { format_version: _, ...read } = decode(JSON.parse(JSON.stringify(planToJson(plan))));
      expect(read).toEqual(plan);
    }
  });

  it('refuses whole objects of the wrong shape for their action', () => {
    const doc = JSON.parse(JSON.stringify(planToJson(oldPlanAgain()))) as {
      changes: { objects: { before: unknown; after: unknown } }[];
    };
    doc.changes[0]!.objects.before = {};
    const parsed = planDocumentSchema.safeParse(doc);
    expect(parsed.error?.issues.map((i) => i.path.join('.'))).toEqual(['changes.0.objects.before']);
  });
});
