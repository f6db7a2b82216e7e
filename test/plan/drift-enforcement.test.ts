/**
 * Drift sees enforcement and names who changed what (issue 44): the pure parts, on the planner's
 * inputs as refresh hands them over (src/plan/enforcement.ts, src/plan/attribution.ts).
 */
import { describe, expect, it } from 'vitest';
import { driftCount } from '../../src/core/model.js';
import type { ManageScope } from '../../src/core/scope.js';
import { KINDS } from '../../src/kinds/index.js';
import { withAttribution } from '../../src/plan/attribution.js';
import { durationText, ENFORCEMENT_GRACE_MS, withEnforcement } from '../../src/plan/enforcement.js';
import { type KindPlanInput, planChanges, type RemoteObject } from '../../src/plan/planner.js';
import { failOnMatches, failOnRefusal } from '../../src/plan/policy.js';
import { selectPlan } from '../../src/plan/targets.js';

const NOW = Date.parse('2026-11-27T10:00:00Z');
const MINUTE = 60_000;
const impact = KINDS.find((kind) => kind.name === 'application_rule')?.impact ?? [];

const rule = (description: string, priority = 'high', rqHost = 'shop.example.com') => ({
  rq_host: rqHost,
  description,
  priority,
  enabled: true,
  conditions: [{ operator: 'match', not_op: false, expressions: ['^/admin'], targets: ['path'] }],
  actions: [
    { firewall_action: 'block', firewall_name: 'waf-eu-1' },
    { firewall_action: 'block', firewall_name: 'waf-us-1' },
  ],
});

const declared = (description: string, extra: { renamed_from?: string } = {}) => ({
  key: `shop.example.com/${description}`,
  attributes: rule(description),
  protect: false,
  ignoreChanges: [],
  ...extra,
});

/**
 * A live rule whose actions report these statuses, changed `minutesAgo` before NOW by alice (`null`:
 * the record does not say).
 */
function live(
  id: string,
  description: string,
  statuses: [string | undefined, string | undefined],
  {
    minutesAgo = 60 as number | null,
    priority = 'high',
    rqHost = 'shop.example.com',
    by = 'alice' as string | null,
  } = {},
): RemoteObject {
  return {
    id,
    key: `${rqHost}/${description}`,
    attributes: rule(description, priority, rqHost),
    ...(by === null ? {} : { changedBy: by }),
    ...(minutesAgo === null ? {} : { changedAt: NOW - minutesAgo * MINUTE }),
    enforcement: [
      { firewall: 'waf-eu-1', status: statuses[0] },
      { firewall: 'waf-us-1', status: statuses[1] },
    ],
  };
}

function input(
  desired: ReturnType<typeof declared>[],
  remote: RemoteObject[],
  scope: ManageScope = { prune: false, match: { rq_host: ['*.example.com'] } },
): KindPlanInput {
  return { kind: 'application_rule', impact, immutable: ['conditions', 'actions'], scope, desired, remote };
}

/** The drift report's plan of `inputs`, as refresh makes it (attribution, then enforcement). */
function drift(inputs: KindPlanInput[], now = NOW) {
  const plan = planChanges(inputs, { impactDirection: 'drift' });
  return withEnforcement(withAttribution(plan, inputs), inputs, { now });
}

describe('enforcement findings', () => {
  it('a managed rule whose fields match but whose action is in sync error is drift, weakening protection', () => {
    const plan = drift([input([declared('Block admin')], [live('7', 'Block admin', ['error', 'synced'])])]);
    expect(plan.changes).toEqual([]);
    expect(plan.enforcement).toEqual([
      {
        kind: 'application_rule',
        key: 'shop.example.com/Block admin',
        id: '7',
        changed_by: 'alice',
        changed_at: '2026-11-27T09:00:00.000Z',
        firewalls: [{ firewall: 'waf-eu-1', status: 'error', state: 'error' }],
        impact: [{ class: 'weakens_protection', reason: 'not enforced on waf-eu-1: sync error' }],
      },
    ]);
    expect(driftCount(plan)).toBe(1);
    expect(failOnMatches(plan, ['weakens_protection'])).toHaveLength(1);
    expect(failOnRefusal(plan, ['weakens_protection'], 'x')?.message).toContain(
      'application_rule.shop.example.com/Block admin',
    );
  });

  it('an error is reported at once; pending only after the grace, with how long', () => {
    const fresh = drift([
      input([declared('Block admin')], [live('7', 'Block admin', ['pending', 'error'], { minutesAgo: 1 })]),
    ]);
    expect(fresh.enforcement?.[0]?.impact.map((i) => i.reason)).toEqual([
      'not enforced on waf-us-1: sync error',
    ]);
    const within = drift([
      input([declared('Block admin')], [live('7', 'Block admin', ['pending', 'synced'], { minutesAgo: 15 })]),
    ]);
    expect(within.enforcement).toBeUndefined();
    const old = drift([
      input(
        [declared('Block admin')],
        [live('7', 'Block admin', ['pending', 'synced'], { minutesAgo: 125 })],
      ),
    ]);
    expect(old.enforcement?.[0]?.impact).toEqual([
      { class: 'weakens_protection', reason: 'not enforced on waf-eu-1: pending for 2 h' },
    ]);
    expect(old.enforcement?.[0]?.firewalls).toEqual([
      { firewall: 'waf-eu-1', status: 'pending', state: 'pending' },
    ]);
  });

  it('the grace is judged on the clock given, not the system one', () => {
    const inputs = [
      input([declared('Block admin')], [live('7', 'Block admin', ['pending', 'synced'], { minutesAgo: 10 })]),
    ];
    expect(drift(inputs).enforcement).toBeUndefined();
    expect(drift(inputs, NOW + ENFORCEMENT_GRACE_MS).enforcement?.[0]?.impact[0]?.reason).toBe(
      'not enforced on waf-eu-1: pending for 25 min',
    );
  });

  it('an unknown status is shown as is and not enforced; another spelling of an error is read as one', () => {
    const plan = drift([
      input(
        [declared('Block admin'), declared('Block export')],
        [
          live('7', 'Block admin', ['Deploying', 'synced'], { minutesAgo: 60 * 50 }),
          live('8', 'Block export', ['FAILED', 'SUCCESS']),
        ],
      ),
    ]);
    expect(plan.enforcement?.map((f) => [f.key, f.firewalls, f.impact[0]?.reason])).toEqual([
      [
        'shop.example.com/Block admin',
        [{ firewall: 'waf-eu-1', status: 'Deploying', state: 'unknown' }],
        'not enforced on waf-eu-1: sync status "Deploying" for 2 d',
      ],
      [
        'shop.example.com/Block export',
        [{ firewall: 'waf-eu-1', status: 'FAILED', state: 'error' }],
        'not enforced on waf-eu-1: sync error ("FAILED")',
      ],
    ]);
  });

  it('without an update time, a pending action is reported at once, and nothing is made up', () => {
    const plan = drift([
      input(
        [declared('Block admin')],
        [live('7', 'Block admin', ['pending', 'synced'], { minutesAgo: null, by: null })],
      ),
    ]);
    const [finding] = plan.enforcement ?? [];
    expect(finding?.impact[0]?.reason).toBe(
      'not enforced on waf-eu-1: pending (the record gives no update time)',
    );
    expect(finding).not.toHaveProperty('changed_by');
    expect(finding).not.toHaveProperty('changed_at');
  });

  it('judges only managed rules: not an undeclared, out-of-scope or duplicate one, nor a status the API does not give', () => {
    const plan = drift([
      input(
        [declared('Block admin'), declared('Quiet')],
        [
          // 8 equals the configuration and survives; 9 is its duplicate, deleted.
          live('8', 'Block admin', ['synced', 'synced']),
          live('9', 'Block admin', ['error', 'error'], { priority: 'low' }),
          live('10', 'Hand made', ['error', 'error']),
          live('11', 'Foreign', ['error', 'error'], { rqHost: 'other.net' }),
          live('12', 'Quiet', [undefined, undefined]),
        ],
      ),
    ]);
    expect(plan.changes.map((c) => [c.action, 'id' in c ? c.id : undefined])).toEqual([['delete', '9']]);
    expect(plan.enforcement).toBeUndefined();
  });

  it('judges the live rule a rename matched', () => {
    const plan = drift([
      input(
        [declared('New name', { renamed_from: 'shop.example.com/Old name' })],
        [live('7', 'Old name', ['error', 'synced'])],
      ),
    ]);
    expect(plan.changes.map((c) => c.action)).toEqual(['update']);
    expect(plan.enforcement?.map((f) => [f.id, f.key])).toEqual([['7', 'shop.example.com/Old name']]);
  });

  it('a targeted run keeps the findings it selects', () => {
    const plan = drift([
      input(
        [declared('Block admin'), declared('Block export')],
        [live('7', 'Block admin', ['error', 'synced']), live('8', 'Block export', ['error', 'synced'])],
      ),
    ]);
    const selected = selectPlan(plan, {
      target: ['application_rule.*export'],
      exclude: [],
      kind: [],
    });
    expect(selected.enforcement?.map((f) => f.id)).toEqual(['8']);
    expect(selectPlan(plan, { target: [], exclude: [], kind: ['group'] }).enforcement).toBeUndefined();
  });

  it('words durations as a person reads them', () => {
    expect(
      [0, 59 * MINUTE, 119 * MINUTE, 120 * MINUTE, 47.9 * 60 * MINUTE, 48 * 60 * MINUTE].map(durationText),
    ).toEqual(['0 min', '59 min', '119 min', '2 h', '47 h', '2 d']);
  });
});

describe('attribution', () => {
  it('each entry with a live record says who changed it and when; a create has no record', () => {
    const plan = drift([
      input(
        [declared('Block admin'), declared('Gone')],
        [
          live('7', 'Block admin', ['synced', 'synced'], { priority: 'low', by: 'bob', minutesAgo: 2 }),
          live('8', 'Hand made', ['synced', 'synced'], { by: 'carol' }),
        ],
        { prune: true, match: {} },
      ),
    ]);
    expect(
      plan.changes.map((c) => ({
        action: c.action,
        by: 'changed_by' in c ? c.changed_by : undefined,
        at: 'changed_at' in c ? c.changed_at : undefined,
      })),
    ).toEqual([
      { action: 'update', by: 'bob', at: '2026-11-27T09:58:00.000Z' },
      { action: 'create', by: undefined, at: undefined },
      { action: 'delete', by: 'carol', at: '2026-11-27T09:00:00.000Z' },
    ]);
    expect(plan.changes[1]).not.toHaveProperty('changed_by');
  });

  it('a read-only object that differs carries the time its record gives, and no user', () => {
    const admins = { key: 'admins', attributes: { name: 'admins', users: ['u-1'] } };
    const inputs: KindPlanInput[] = [
      {
        kind: 'group',
        immutable: [],
        scope: { prune: false, match: {} },
        desired: [],
        remote: [
          {
            id: 'g-1',
            key: 'admins',
            attributes: { name: 'admins', users: ['u-1', 'u-2'] },
            readOnly: 'built in',
            changedAt: Date.parse('2026-11-26T17:40:00+01:00'),
          },
        ],
        expected: [admins],
      },
    ];
    const [entry] = drift(inputs).read_only ?? [];
    expect(entry).toMatchObject({ id: 'g-1', changed_at: '2026-11-26T16:40:00.000Z' });
    expect(entry).not.toHaveProperty('changed_by');
  });

  it('a plan (not a drift report) carries none of it', () => {
    const inputs = [
      input([declared('Block admin')], [live('7', 'Block admin', ['error', 'error'], { priority: 'low' })]),
    ];
    const plan = planChanges(inputs);
    expect(plan.changes[0]).not.toHaveProperty('changed_by');
    expect(plan).not.toHaveProperty('enforcement');
  });
});
