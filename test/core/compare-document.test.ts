/**
 * The comparison's JSON (`compare --format json`): written through its schema, exactly what compare
 * wrote before it had one (`from`, `to` and `compared` first, then the plan document), and valid
 * against that schema.
 */
import { describe, expect, it } from 'vitest';
import { compareDocumentSchema, compareToJson } from '../../src/core/compare-document.js';
import { planToJson } from '../../src/plan/render/json.js';
import { duplicatePlan, samplePlan } from '../plan/fixtures.js';

describe('the comparison document', () => {
  for (const compared of ['live', 'desired'] as const) {
    it(`writes ${compared}: the plan document, after from, to and compared, byte for byte`, () => {
      for (const plan of [samplePlan({ impactDirection: 'drift' }), duplicatePlan()]) {
        const live = compared === 'live';
        const written = compareToJson(plan, { from: 'staging', to: 'production', live });
        const before = { from: 'staging', to: 'production', compared, ...planToJson(plan) };
        expect(JSON.stringify(written, null, 2)).toBe(JSON.stringify(before, null, 2));
        expect(compareDocumentSchema.safeParse(JSON.parse(JSON.stringify(written))).success).toBe(true);
      }
    });
  }

  it('refuses a comparison of something other than live firewalls or configurations', () => {
    const written = compareToJson(samplePlan(), { from: 'a', to: 'b', live: true });
    const parsed = compareDocumentSchema.safeParse({ ...written, compared: 'files' });
    expect(parsed.error?.issues.map((issue) => issue.path.join('.'))).toEqual(['compared']);
  });
});
