/** A small plan with one change of every action, built through the real planner. */
import type { KindName, Plan } from '../../src/core/model.js';
import { KINDS } from '../../src/kinds/index.js';
import { type PlanOptions, planChanges } from '../../src/plan/planner.js';

/** The kind's real security impact rules, so that rendered plans show what users will see. */
const impactOf = (name: KindName) => KINDS.find((kind) => kind.name === name)?.impact ?? [];

/** `options.impactDirection: 'drift'` classifies as a drift report does. */
export function samplePlan(options: PlanOptions = {}): Plan {
  const rule = (description: string, priority: string, expressions: string[]) => ({
    rq_host: 'shop.example.com',
    description,
    priority,
    enabled: true,
    conditions: [{ operator: 'match', not_op: false, expressions, targets: ['path'] }],
    actions: [{ firewall_action: 'block', firewall_name: 'waf-eu-1' }],
  });
  return planChanges(
    [
      {
        kind: 'group',
        impact: impactOf('group'),
        immutable: [],
        scope: { prune: false, match: {} },
        desired: [
          {
            key: 'soc-analysts',
            attributes: {
              name: 'soc-analysts',
              description: 'Tier-1 analysts',
              is_admin: false,
              users: ['u-1001', 'u-1003'],
            },
            protect: false,
            ignoreChanges: [],
          },
          {
            key: 'auditors',
            attributes: { name: 'auditors', description: 'Read-only', is_admin: false, users: [] },
            protect: false,
            ignoreChanges: [],
          },
        ],
        remote: [
          {
            id: 'g-7',
            key: 'soc-analysts',
            attributes: {
              name: 'soc-analysts',
              description: 'Tier-1 analysts',
              is_admin: false,
              users: ['u-1001', 'u-1002'],
            },
          },
        ],
      },
      {
        kind: 'application_rule',
        impact: impactOf('application_rule'),
        immutable: ['conditions', 'actions'],
        scope: { prune: true, match: { rq_host: ['*.example.com'] } },
        desired: [
          {
            key: 'shop.example.com/Block admin',
            attributes: rule('Block admin', 'high', ['^/admin']),
            protect: false,
            ignoreChanges: [],
          },
          {
            key: 'shop.example.com/Block export',
            attributes: rule('Block export', 'low', ['^/export/v2']),
            protect: false,
            ignoreChanges: [],
          },
        ],
        remote: [
          {
            id: 'ar-1',
            key: 'shop.example.com/Block admin',
            attributes: rule('Block admin', 'low', ['^/admin']),
          },
          {
            id: 'ar-2',
            key: 'shop.example.com/Block export',
            attributes: rule('Block export', 'low', ['^/export']),
          },
          { id: 'ar-3', key: 'shop.example.com/Old rule', attributes: rule('Old rule', 'low', ['^/old']) },
          {
            id: 'ar-4',
            key: 'other.net/Foreign',
            attributes: { ...rule('Foreign', 'low', ['x']), rq_host: 'other.net' },
          },
        ],
      },
    ],
    options,
  );
}

/**
 * A rule that an interrupted apply left doubled (ids 41 and 42, 42 equal to the configuration) and
 * a pruned one: one duplicate delete, one prune.
 */
export function duplicatePlan(): Plan {
  const rule = (expression: string) => ({
    rq_host: 'shop.example.com',
    description: 'Block admin',
    priority: 'high',
    conditions: [{ operator: 'match', not_op: false, expressions: [expression], targets: ['path'] }],
  });
  return planChanges([
    {
      kind: 'application_rule',
      immutable: ['conditions'],
      scope: { prune: true, match: {} },
      desired: [
        {
          key: 'shop.example.com/Block admin',
          attributes: rule('^/admin'),
          protect: false,
          ignoreChanges: [],
        },
      ],
      remote: [
        { id: '41', key: 'shop.example.com/Block admin', attributes: rule('^/adm'), createdAt: 1 },
        { id: '42', key: 'shop.example.com/Block admin', attributes: rule('^/admin'), createdAt: 2 },
        { id: '7', key: 'shop.example.com/Old', attributes: { ...rule('^/old'), description: 'Old' } },
      ],
    },
  ]);
}
