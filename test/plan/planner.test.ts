import { describe, expect, it } from 'vitest';
import type { Change, KindName } from '../../src/core/model.js';
import { DEFAULT_SCOPE, type ManageScope } from '../../src/core/scope.js';
import {
  type DesiredObject,
  type KindPlanInput,
  planChanges,
  type RemoteObject,
} from '../../src/plan/planner.js';
import { seededRandom } from '../helpers/random.js';

const want = (
  key: string,
  attributes: Record<string, unknown>,
  extra: Partial<DesiredObject> = {},
): DesiredObject => ({
  key,
  attributes,
  protect: false,
  ignoreChanges: [],
  ...extra,
});
const have = (id: string, key: string, attributes: Record<string, unknown>): RemoteObject => ({
  id,
  key,
  attributes,
});

function input(
  desired: DesiredObject[],
  remote: RemoteObject[],
  scope: ManageScope = DEFAULT_SCOPE,
  kind: KindName = 'notification',
): KindPlanInput {
  return { kind, immutable: ['conditions'], desired, remote, scope };
}

const actions = (changes: Change[]) => changes.map((c) => `${c.action} ${c.key}`);

describe('planChanges', () => {
  it('creates what is missing, updates only changed fields, leaves equal objects alone', () => {
    const plan = planChanges([
      input(
        [
          want('a', { name: 'a', port: 1 }),
          want('b', { name: 'b', port: 2 }),
          want('c', { name: 'c', port: 3 }),
        ],
        [have('1', 'b', { name: 'b', port: 2 }), have('2', 'c', { name: 'c', port: 4 })],
      ),
    ]);
    expect(actions(plan.changes)).toEqual(['create a', 'update c']);
    const update = plan.changes[1];
    expect(update).toMatchObject({ id: '2', fields: ['port'], before: { port: 4 }, after: { port: 3 } });
    expect(plan.summary).toMatchObject({
      create: 1,
      update: 1,
      replace: 0,
      delete: 0,
      unchanged: 1,
      unmanaged: 0,
    });
  });

  it('compares by the one equality: -0 is 0 and key order does not matter, so nothing changes', () => {
    const plan = planChanges([
      input(
        [want('a', { name: 'a', port: -0, settings: { y: 1, x: [0] } })],
        [have('1', 'a', { settings: { x: [-0], y: 1 }, port: 0, name: 'a' })],
      ),
    ]);
    expect(plan.changes).toEqual([]);
  });

  it('replaces an object whose immutable field changed and names the field', () => {
    const plan = planChanges([
      input(
        [want('r', { conditions: ['x'], priority: 'high' })],
        [have('9', 'r', { conditions: ['y'], priority: 'low' })],
      ),
    ]);
    expect(plan.changes).toHaveLength(1);
    expect(plan.changes[0]).toMatchObject({
      action: 'replace',
      id: '9',
      forced_by: ['conditions'],
      fields: ['conditions', 'priority'],
    });
    expect(plan.summary.replace).toBe(1);
  });

  it('turns a replace of a protected object into a problem and plans nothing for it', () => {
    const plan = planChanges([
      input(
        [want('r', { conditions: ['x'] }, { protect: true, source: 'rules.yaml:3:5' })],
        [have('9', 'r', { conditions: ['y'] })],
      ),
    ]);
    expect(plan.changes).toEqual([]);
    expect(plan.problems).toEqual([
      expect.objectContaining({
        key: 'r',
        message: expect.stringContaining('protected (declared at rules.yaml:3:5)'),
      }),
    ]);
  });

  it('honours ignore_changes, also on immutable fields, and keeps ignored values in the update after', () => {
    const plan = planChanges([
      input(
        [
          want(
            'g',
            { users: ['u1'], conditions: ['new'], description: 'd2' },
            { ignoreChanges: ['users', 'conditions'] },
          ),
        ],
        [have('5', 'g', { users: ['u1', 'u2'], conditions: ['old'], description: 'd1' })],
      ),
    ]);
    // Whole objects on both sides; `fields` says which of their fields changed.
    expect(plan.changes).toEqual([
      expect.objectContaining({
        action: 'update',
        fields: ['description'],
        before: { users: ['u1', 'u2'], conditions: ['old'], description: 'd1' },
        after: { users: ['u1', 'u2'], conditions: ['old'], description: 'd2' },
      }),
    ]);
  });

  it('deletes undeclared in-scope objects only when prune is on, and never touches out-of-scope ones', () => {
    const remote = [
      have('1', 'shop.example.com/a', { rq_host: 'shop.example.com' }),
      have('2', 'other.net/b', { rq_host: 'other.net' }),
    ];
    const scope = { prune: true, match: { rq_host: ['*.example.com'] } };
    const pruned = planChanges([input([], remote, scope, 'application_rule')]);
    expect(actions(pruned.changes)).toEqual(['delete shop.example.com/a']);
    expect(pruned.summary.unmanaged).toBe(1);

    const kept = planChanges([input([], remote, { ...scope, prune: false }, 'application_rule')]);
    expect(kept.changes).toEqual([]);
    expect(kept.summary.unmanaged).toBe(2);
  });

  it('reports a declared object outside the manage scope instead of creating it', () => {
    const scope = { prune: true, match: { rq_host: ['*.example.com'] } };
    const plan = planChanges([input([want('x.org/a', { rq_host: 'x.org' })], [], scope, 'application_rule')]);
    expect(plan.changes).toEqual([]);
    expect(plan.problems[0]?.message).toContain('outside the manage scope');
  });

  it('never creates a second object when the key exists outside the scope (match on a non-key field)', () => {
    const scope = { prune: true, match: { priority: ['high'] } };
    const plan = planChanges([
      input(
        [want('h/a', { rq_host: 'h', description: 'a', priority: 'high' })],
        [have('7', 'h/a', { rq_host: 'h', description: 'a', priority: 'low' })],
        scope,
        'application_rule',
      ),
    ]);
    expect(plan.changes).toEqual([]);
    expect(plan.problems[0]?.message).toContain(
      'exists outside the manage scope of application_rules (id 7)',
    );
  });

  describe('duplicates: several in-scope remote objects with one key', () => {
    const dup = (id: string, attributes: Record<string, unknown>, createdAt?: number): RemoteObject => ({
      ...have(id, 'dup', attributes),
      ...(createdAt === undefined ? {} : { createdAt }),
    });
    const deletes = (changes: Change[]) =>
      changes.flatMap((c) => (c.action === 'delete' ? [`${c.id} dup-of ${c.duplicate_of ?? '-'}`] : []));

    it('keeps the one equal to the configuration, however young, and deletes the others as duplicates', () => {
      const plan = planChanges([
        input(
          [want('dup', { v: 2 })],
          [dup('1', { v: 1 }, 100), dup('2', { v: 2 }, 300), dup('3', { v: 3 }, 200)],
        ),
      ]);
      expect(plan.problems).toEqual([]);
      expect(deletes(plan.changes)).toEqual(['1 dup-of 2', '3 dup-of 2']);
      expect(plan.summary).toMatchObject({ delete: 2, update: 0, unchanged: 1 });
    });

    it('with none equal, keeps the oldest by creation time, then updates it', () => {
      const plan = planChanges([
        input(
          [want('dup', { v: 9 })],
          [dup('1', { v: 1 }, 300), dup('2', { v: 2 }, 100), dup('3', { v: 3 })],
        ),
      ]);
      expect(actions(plan.changes)).toEqual(['update dup', 'delete dup', 'delete dup']);
      expect(plan.changes[0]).toMatchObject({ id: '2', before: { v: 2 }, after: { v: 9 } });
      // Without a creation time, an object counts as younger than any that has one.
      expect(deletes(plan.changes)).toEqual(['1 dup-of 2', '3 dup-of 2']);
    });

    it('without creation times, keeps the smallest id, numerically when ids are numbers', () => {
      const numeric = planChanges([
        input([want('dup', { v: 9 })], [dup('10', { v: 1 }), dup('9', { v: 1 })]),
      ]);
      expect(numeric.changes[0]).toMatchObject({ action: 'update', id: '9' });
      const text = planChanges([
        input([want('dup', { v: 9 })], [dup('ar-b', { v: 1 }), dup('ar-a', { v: 1 })]),
      ]);
      expect(text.changes[0]).toMatchObject({ action: 'update', id: 'ar-a' });
    });

    it('replaces the survivor when an immutable field changed, and still deletes the duplicates', () => {
      const plan = planChanges([
        input(
          [want('dup', { conditions: ['new'] })],
          [dup('1', { conditions: ['a'] }), dup('2', { conditions: ['b'] })],
        ),
      ]);
      expect(actions(plan.changes)).toEqual(['replace dup', 'delete dup']);
      expect(plan.changes[0]).toMatchObject({ id: '1' });
      expect(deletes(plan.changes)).toEqual(['2 dup-of 1']);
    });

    it('compares without ignored fields when looking for the copy equal to the configuration', () => {
      const plan = planChanges([
        input(
          [want('dup', { v: 1, note: 'x' }, { ignoreChanges: ['note'] })],
          [dup('1', { v: 0, note: 'a' }), dup('2', { v: 1, note: 'b' })],
        ),
      ]);
      expect(deletes(plan.changes)).toEqual(['1 dup-of 2']);
      expect(plan.summary.unchanged).toBe(1);
    });

    it('makes a protected key with duplicates an error for that key only', () => {
      const plan = planChanges([
        input(
          [want('dup', { v: 1 }, { protect: true, source: 'n.yaml:2:5' }), want('other', { v: 1 })],
          [dup('1', { v: 1 }), dup('2', { v: 1 })],
        ),
      ]);
      expect(actions(plan.changes)).toEqual(['create other']);
      expect(plan.problems).toEqual([
        {
          kind: 'notification',
          key: 'dup',
          message:
            'protected (declared at n.yaml:2:5): 2 remote objects share this key (ids 1, 2) and deleting the duplicates would delete protected objects; nothing is planned for it. Delete all but one by hand, or remove "protect: true" to let wafctl keep id 1 and delete the others',
        },
      ]);
    });

    it('deletes every undeclared duplicate when pruning (a prune, not a duplicate), and none otherwise', () => {
      const remote = [dup('1', { v: 1 }), dup('2', { v: 1 })];
      const pruned = planChanges([input([], remote, { prune: true, match: {} })]);
      expect(deletes(pruned.changes)).toEqual(['1 dup-of -', '2 dup-of -']);
      expect(pruned.problems).toEqual([]);

      const kept = planChanges([input([], remote)]);
      expect(kept.changes).toEqual([]);
      expect(kept.summary.unmanaged).toBe(2);
    });

    it('never touches a same-key copy outside the scope', () => {
      const scope = { prune: true, match: { host: ['*.example.com'] } };
      const plan = planChanges([
        input(
          [want('dup', { host: 'a.example.com', v: 1 })],
          [dup('1', { host: 'a.example.com', v: 1 }), dup('2', { host: 'elsewhere.net', v: 1 })],
          scope,
        ),
      ]);
      expect(plan.changes).toEqual([]);
      expect(plan.summary).toMatchObject({ unchanged: 1, unmanaged: 1 });
    });

    it('does not count duplicate deletes toward the safety threshold, and says how many they are (issue 41)', () => {
      const remote = [
        ...Array.from({ length: 12 }, (_, i) => have(`k${i}`, `k${i}`, {})),
        ...Array.from({ length: 4 }, (_, i) => have(`d${i}`, 'k0', {})),
      ];
      // 4 prunes of the 12 objects that are not duplicates (33%) are above the limit; the 4
      // duplicates ride along, counted neither as deletes nor as existing (4 of 16 would be 25%).
      const pruning = planChanges([
        input(
          Array.from({ length: 8 }, (_, i) => want(`k${i}`, {})),
          remote,
          { prune: true, match: {} },
        ),
      ]);
      expect(pruning.warnings).toEqual([
        { kind: 'notification', deletes: 8, duplicates: 4, existing: 12, max_delete_percent: 30 },
      ]);
      // Only duplicates (two applies at once left them): no loss, no warning.
      const copies = planChanges([
        input(
          Array.from({ length: 12 }, (_, i) => want(`k${i}`, {})),
          remote,
          { prune: true, match: {} },
        ),
      ]);
      expect(copies.summary.delete).toBe(4);
      expect(copies.warnings).toEqual([]);
    });
  });

  it('warns when pure deletes exceed the safety share of existing objects', () => {
    const remote = Array.from({ length: 10 }, (_, i) => have(String(i), `k${i}`, {}));
    const desired = Array.from({ length: 6 }, (_, i) => want(`k${i}`, {}));
    const plan = planChanges([input(desired, remote, { prune: true, match: {} })]);
    expect(plan.summary.delete).toBe(4);
    expect(plan.warnings).toEqual([
      { kind: 'notification', deletes: 4, duplicates: 0, existing: 10, max_delete_percent: 30 },
    ]);

    const few = planChanges([input([], remote.slice(0, 9), { prune: true, match: {} })]);
    expect(few.warnings).toEqual([]); // fewer than min_existing objects: no threshold
    const lenient = planChanges([input(desired, remote, { prune: true, match: {} })], {
      safety: { maxDeletePercent: 40, minExisting: 10 },
    });
    expect(lenient.warnings).toEqual([]);
  });

  it('orders changes by kind, then key, whatever the input order', () => {
    const plan = planChanges([
      input([want('b', {}), want('a', {})], [], DEFAULT_SCOPE, 'schedule'),
      input([want('z', {})], [], DEFAULT_SCOPE, 'group'),
    ]);
    expect(plan.changes.map((c) => `${c.kind}:${c.key}`)).toEqual(['group:z', 'schedule:a', 'schedule:b']);
  });

  it('gives a changed remote record a different fingerprint', () => {
    const before = planChanges([input([want('a', { v: 1 })], [have('1', 'a', { v: 2 })])]);
    const after = planChanges([input([want('a', { v: 1 })], [have('1', 'a', { v: 3 })])]);
    const fp = (c: Change | undefined) => (c && 'fingerprint' in c ? c.fingerprint : undefined);
    expect(fp(before.changes[0])).toMatch(/^[0-9a-f]{32}$/);
    expect(fp(before.changes[0])).not.toBe(fp(after.changes[0]));
  });
});

/** Applies a plan's effect to a remote state the way a perfect applier would. */
function applyEffect(remote: RemoteObject[], changes: Change[], nextId: () => string): RemoteObject[] {
  const byId = new Map(remote.map((r) => [r.id, r]));
  for (const change of changes) {
    if (change.action === 'create') byId.set(nextId(), { id: '', key: change.key, attributes: change.after });
    if (change.action === 'update')
      byId.set(change.id, { id: change.id, key: change.key, attributes: change.after });
    if (change.action === 'replace') {
      byId.delete(change.id);
      byId.set(nextId(), { id: '', key: change.key, attributes: change.after });
    }
    if (change.action === 'delete') byId.delete(change.id);
  }
  return [...byId].map(([id, r]) => ({ ...r, id }));
}

describe('planChanges property: applying the plan converges', () => {
  it('plans no changes after its own effect and leaves no duplicate, for 300 random states', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const random = seededRandom(seed);
      const pickInt = (n: number) => Math.floor(random() * n);
      const attrs = () => ({
        host: pickInt(2) ? 'a.example.com' : 'b.other.net',
        level: pickInt(3),
        conditions: [pickInt(2)],
      });
      let counter = 0;
      const nextId = () => `new-${++counter}`;
      const keys = ['k0', 'k1', 'k2', 'k3', 'k4', 'k5'];
      const desired = keys
        .filter(() => random() < 0.6)
        .map((key) =>
          want(key, attrs(), { ignoreChanges: pickInt(4) === 0 ? ['level'] : [], protect: pickInt(8) === 0 }),
        );
      // One in four keys held by two or three remote objects: the plan must heal them too.
      const copies = () => (random() < 0.25 ? 2 + pickInt(2) : 1);
      const remote = keys
        .filter(() => random() < 0.6)
        .flatMap((key, i) => Array.from({ length: copies() }, (_, j) => have(`r${i}-${j}`, key, attrs())));
      const scope: ManageScope = {
        prune: random() < 0.5,
        match: pickInt(2) ? { host: ['*.example.com'] } : {},
      };
      const first = planChanges([input(desired, remote, scope)]);
      const converged = applyEffect(remote, first.changes, nextId);
      const second = planChanges([input(desired, converged, scope)]);
      // Objects the first plan refused (problems) are expected to stay different; nothing else may.
      const refused = new Set(first.problems.map((p) => p.key));
      const leftover = second.changes.filter((c) => !refused.has(c.key));
      expect(leftover, `seed ${seed}`).toEqual([]);
      // Healed: every key the plan may act on (declared, or pruned) is held by one in-scope object.
      const declared = new Set(desired.map((d) => d.key));
      const inScope = converged.filter(
        (r) =>
          !refused.has(r.key) &&
          (scope.prune || declared.has(r.key)) &&
          (scope.match.host === undefined || r.attributes.host === 'a.example.com'),
      );
      expect(new Set(inScope.map((r) => r.key)).size, `seed ${seed}`).toBe(inScope.length);
    }
  });
});
