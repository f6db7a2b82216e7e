/** Targeted runs (issue 32): `selectPlan` and `checkSelection`, on plans made by the real planner. */
import { describe, expect, it } from 'vitest';
import { WafctlError } from '../../src/core/errors.js';
import type { Change, Plan } from '../../src/core/model.js';
import { planChanges } from '../../src/plan/planner.js';
import {
  checkSelection,
  isPartial,
  type Selection,
  selectionFlags,
  selectPlan,
} from '../../src/plan/targets.js';
import { duplicatePlan, samplePlan } from './fixtures.js';

const select = (partial: Partial<Selection>): Selection => ({
  target: [],
  exclude: [],
  kind: [],
  ...partial,
});
const addresses = (plan: Plan) =>
  plan.changes.map((change) => `${change.kind}.${change.key}:${change.action}`);

describe('selectPlan', () => {
  const plan = samplePlan();

  it('keeps every change of a whole selection', () => {
    expect(addresses(selectPlan(plan, select({})))).toEqual(addresses(plan));
    expect(isPartial(select({}))).toBe(false);
    expect(isPartial(select({ kind: ['group'] }))).toBe(true);
  });

  it('--target with a glob: only the matching changes, and a summary that counts them', () => {
    const partial = selectPlan(plan, select({ target: ['application_rule.shop.example.com/Block *'] }));
    expect(addresses(partial)).toEqual([
      'application_rule.shop.example.com/Block admin:update',
      'application_rule.shop.example.com/Block export:replace',
    ]);
    expect(partial.summary).toMatchObject({ create: 0, update: 1, replace: 1, delete: 0 });
    expect(partial.summary.unchanged).toBe(plan.summary.unchanged);
  });

  it('--exclude and --kind narrow further; the star matches dots and slashes', () => {
    expect(addresses(selectPlan(plan, select({ kind: ['group'] })))).toEqual([
      'group.auditors:create',
      'group.soc-analysts:update',
    ]);
    expect(
      addresses(selectPlan(plan, select({ target: ['*'], exclude: ['application_rule.*', 'group.aud*'] }))),
    ).toEqual(['group.soc-analysts:update']);
    expect(addresses(selectPlan(plan, select({ target: ['group.*'], kind: ['application_rule'] })))).toEqual(
      [],
    );
  });

  it('a target matches the whole address, not a part of it; one matching nothing is refused (issue 40)', () => {
    expect(() => selectPlan(plan, select({ target: ['group.soc'] }))).toThrow(
      /^--target "group.soc" matches nothing in this plan, which has \d+ changes; the closest addresses: group\.soc-analysts, /,
    );
    expect(addresses(selectPlan(plan, select({ target: ['group.soc-analysts'] })))).toEqual([
      'group.soc-analysts:update',
    ]);
    // Regular-expression characters in a key are matched as themselves.
    expect(() =>
      selectPlan(plan, select({ target: ['application_rule.shop.example.com/Block.admin'] })),
    ).toThrow(/matches nothing in this plan/);
    // A target that matches nothing of a plan with no changes: nothing to hide, no error.
    const empty = { ...plan, changes: [] };
    expect(addresses(selectPlan(empty, select({ target: ['group.soc'] })))).toEqual([]);
    // Two targets, one a typo: still refused, naming the typo.
    expect(() => selectPlan(plan, select({ target: ['group.soc-analysts', 'grop.x'] }))).toThrow(/"grop\.x"/);
  });

  it("a key's duplicates share its address: selected together", () => {
    const partial = selectPlan(
      duplicatePlan(),
      select({ target: ['application_rule.shop.example.com/Block admin'] }),
    );
    expect(partial.changes.map((change) => change.action).sort()).toEqual(['delete']);
    expect(partial.changes.every((change) => change.key === 'shop.example.com/Block admin')).toBe(true);
    expect(
      selectPlan(duplicatePlan(), select({ exclude: ['application_rule.shop.example.com/Block admin'] }))
        .changes,
    ).toEqual(duplicatePlan().changes.filter((change) => change.key === 'shop.example.com/Old'));
  });

  it('a rename is selected by its old or new address, and cannot be split by --exclude', () => {
    const rename = {
      ...(plan.changes.find((change) => change.action === 'update' && change.kind === 'group') as Change),
      key: 'soc',
      renamed_from: 'soc-analysts',
    } as Change;
    const renamed: Plan = { ...plan, changes: [rename] };
    expect(selectPlan(renamed, select({ target: ['group.soc-analysts'] })).changes).toEqual([rename]);
    expect(selectPlan(renamed, select({ target: ['group.soc'] })).changes).toEqual([rename]);
    expect(selectPlan(renamed, select({ exclude: ['group.soc*'] })).changes).toEqual([]);
    let refused: unknown;
    try {
      selectPlan(renamed, select({ target: ['group.soc'], exclude: ['group.soc-analysts'] }));
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(WafctlError);
    expect((refused as Error).message).toBe(
      'group.soc is renamed from group.soc-analysts, and --exclude leaves out group.soc-analysts: one change updates both, so it cannot be split; target both addresses or exclude both',
    );
  });

  it('keeps the problems and unmanaged objects of the selected addresses only', () => {
    const partial = selectPlan(plan, select({ kind: ['group'] }));
    expect(partial.unmanaged).toBeUndefined();
    expect(selectPlan(plan, select({ kind: ['application_rule'] })).unmanaged).toEqual(plan.unmanaged);
  });

  it('counts the safety threshold against the whole family', () => {
    const remote = Array.from({ length: 10 }, (_, i) => ({
      id: String(i),
      key: `r${i}`,
      attributes: { name: `r${i}` },
    }));
    const whole = planChanges(
      [{ kind: 'group', immutable: [], desired: [], remote, scope: { prune: true, match: {} } }],
      { safety: { maxDeletePercent: 30, minExisting: 5 } },
    );
    expect(whole.warnings).toEqual([
      { kind: 'group', deletes: 10, duplicates: 0, existing: 10, max_delete_percent: 30 },
    ]);
    // Three of ten is within 30 %; four is not.
    expect(selectPlan(whole, select({ target: ['group.r1', 'group.r2', 'group.r3'] })).warnings).toEqual([]);
    expect(
      selectPlan(whole, select({ target: ['group.r1', 'group.r2', 'group.r3', 'group.r4'] })).warnings,
    ).toEqual([{ kind: 'group', deletes: 4, duplicates: 0, existing: 10, max_delete_percent: 30 }]);
  });
});

describe('checkSelection', () => {
  it('accepts addresses as plans print them', () => {
    const selection = select({ target: ['application_rule.shop.example.com/*'], exclude: ['group.soc'] });
    expect(checkSelection(selection)).toBe(selection);
    expect(selectionFlags(selection)).toBe(
      '--target "application_rule.shop.example.com/*" --exclude "group.soc"',
    );
  });

  it.each([
    [
      'application_rules.x',
      '--target "application_rules.x": unknown kind "application_rules" (write application_rule.KEY, as plans print it)',
    ],
    ['grup.soc', '--target "grup.soc": unknown kind "grup" (did you mean "group"?)'],
    ['soc', '--target "soc": expected KIND.KEY as plans print it'],
    ['group.', '--target "group.": expected KIND.KEY as plans print it'],
  ])('refuses %j', (address, message) => {
    expect(() => checkSelection(select({ target: [address] }))).toThrow(message);
  });
});
