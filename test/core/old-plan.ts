/**
 * A plan document as wafctl wrote it before changes carried \`objects\` (a literal, written by that
 * code), and the plan it was written from, planned again by this wafctl.
 */
import type { Plan } from '../../src/core/model.js';
import { planChanges } from '../../src/plan/planner.js';

/** A plan as the previous wafctl wrote it (no `objects`): a create, an update, a duplicate, a replace. */
export const OLD_PLAN_DOCUMENT = {
  format_version: 1,
  summary: {
    create: 1,
    update: 1,
    replace: 1,
    delete: 1,
    unchanged: 0,
    unmanaged: 0,
    impact: { weakens_protection: 0, broadens_access: 0, reduces_audit: 0 },
  },
  changes: [
    {
      kind: 'group',
      key: 'new',
      action: 'create',
      impact: [],
      fields: ['name', 'description', 'users'],
      before: null,
      after: { name: 'new', description: '', users: [] },
    },
    {
      kind: 'group',
      key: 'ops',
      action: 'update',
      impact: [],
      id: 'g-1',
      fields: ['description'],
      before: { description: 'a' },
      after: { description: 'b' },
      target: { name: 'ops', description: 'b', users: ['u2'] },
      fingerprint: '6ff32fe6978a2f8fb66278d33aac86cb',
    },
    {
      kind: 'group',
      key: 'ops',
      action: 'delete',
      impact: [],
      id: 'g-2',
      fields: ['name', 'description', 'users'],
      before: { name: 'ops', description: 'c', users: ['u2'] },
      after: null,
      fingerprint: '88cdd8e6648fe1c35eb4cb8c23864d6f',
      reason: 'duplicate',
      duplicate_of: 'g-1',
    },
    {
      kind: 'application_rule',
      key: 'h/r',
      action: 'replace',
      impact: [],
      id: 'ar-1',
      fields: ['conditions'],
      forced_by: ['conditions'],
      before: { rq_host: 'h', description: 'r', conditions: ['old'] },
      after: { rq_host: 'h', description: 'r', conditions: ['new'] },
      fingerprint: '3b202d9ed07d183be867facd4be97f29',
    },
  ],
  problems: [],
  warnings: [{ kind: 'group', deletes: 1, duplicates: 1, existing: 2, max_delete_percent: 30 }],
};

/** The plan OLD_PLAN_DOCUMENT was written from, planned again by this wafctl. */
export function oldPlanAgain(): Plan {
  const all = { prune: true, match: {} };
  const plan = planChanges(
    [
      {
        kind: 'group',
        immutable: [],
        scope: all,
        desired: [
          {
            key: 'ops',
            attributes: { name: 'ops', description: 'b', users: ['u1'] },
            protect: false,
            ignoreChanges: ['users'],
          },
          {
            key: 'new',
            attributes: { name: 'new', description: '', users: [] },
            protect: false,
            ignoreChanges: [],
          },
        ],
        remote: [
          { id: 'g-1', key: 'ops', attributes: { name: 'ops', description: 'a', users: ['u2'] } },
          { id: 'g-2', key: 'ops', attributes: { name: 'ops', description: 'c', users: ['u2'] } },
        ],
      },
      {
        kind: 'application_rule',
        immutable: ['conditions'],
        scope: all,
        desired: [
          {
            key: 'h/r',
            attributes: { rq_host: 'h', description: 'r', conditions: ['new'] },
            protect: false,
            ignoreChanges: [],
          },
        ],
        remote: [
          { id: 'ar-1', key: 'h/r', attributes: { rq_host: 'h', description: 'r', conditions: ['old'] } },
        ],
      },
    ],
    { safety: { maxDeletePercent: 30, minExisting: 0 } },
  );
  // The wafctl that wrote the document warned of duplicate deletes too; since issue 41 they count
  // toward no threshold, so the warning is the document's own, which this wafctl still reads and writes.
  if (plan.warnings.length > 0) throw new Error('the planner warns of duplicate deletes again');
  plan.warnings = [{ kind: 'group', deletes: 1, duplicates: 1, existing: 2, max_delete_percent: 30 }];
  return plan;
}
