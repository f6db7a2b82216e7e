/** Renames that keep identity (`renamed_from:`), and the suggestion of one on a delete and a create. */

import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { KindName } from '../../src/core/model.js';
import { planDocumentSchema } from '../../src/core/plan-document.js';
import type { ManageScope } from '../../src/core/scope.js';
import {
  type DesiredObject,
  type KindPlanInput,
  planChanges,
  type RemoteObject,
} from '../../src/plan/planner.js';
import { planToJson, renderJsonPlan } from '../../src/plan/render/json.js';
import { renderMarkdownPlan } from '../../src/plan/render/markdown.js';
import { renderTextPlan } from '../../src/plan/render/text.js';

const want = (key: string, attributes: Record<string, unknown>, extra: Partial<DesiredObject> = {}) =>
  ({ key, attributes, protect: false, ignoreChanges: [], ...extra }) satisfies DesiredObject;
const have = (id: string, key: string, attributes: Record<string, unknown>): RemoteObject => ({
  id,
  key,
  attributes,
});
const KEEP: ManageScope = { prune: false, match: {} };
const PRUNE: ManageScope = { prune: true, match: {} };

function group(desired: DesiredObject[], remote: RemoteObject[], scope = KEEP): KindPlanInput {
  return { kind: 'group', immutable: [], keyFields: ['name'], desired, remote, scope };
}

const rule = (description: string, extra: Record<string, unknown> = {}) => ({
  rq_host: 'shop.example.com',
  description,
  priority: '1',
  conditions: ['c'],
  ...extra,
});
function rules(desired: DesiredObject[], remote: RemoteObject[], scope = KEEP): KindPlanInput {
  return {
    kind: 'application_rule' as KindName,
    immutable: ['conditions'],
    keyFields: ['rq_host', 'description'],
    fixedKeyFields: ['rq_host'],
    desired,
    remote,
    scope,
  };
}
const ruleKey = (r: { rq_host: string; description: string }) => `${r.rq_host}/${r.description}`;

describe('renamed_from', () => {
  it('updates the object with the old key in place, keeping its id', () => {
    const plan = planChanges([
      group(
        [want('soc', { name: 'soc', description: 'x' }, { renamed_from: 'analysts' })],
        [have('g-1', 'analysts', { name: 'analysts', description: 'x' })],
        PRUNE,
      ),
    ]);
    expect(plan.changes).toHaveLength(1);
    expect(plan.changes[0]).toMatchObject({
      action: 'update',
      key: 'soc',
      id: 'g-1',
      renamed_from: 'analysts',
      fields: ['name'],
      after: { name: 'soc', description: 'x' },
    });
    expect(plan.summary).toMatchObject({ create: 0, update: 1, delete: 0, unmanaged: 0 });
    expect(plan.notes).toBeUndefined();

    const text = renderTextPlan(plan, { color: false });
    expect(text).toContain('  # group.soc will be updated in-place\n  # renamed from "analysts"\n');
    expect(text).toContain('~ name = "analysts" -> "soc"');
    const markdown = renderMarkdownPlan(plan);
    expect(markdown).toContain('will be updated in-place (renamed from &quot;analysts&quot;)');
    const json = planToJson(plan);
    expect(json.changes[0]).toMatchObject({ renamed_from: 'analysts' });
    // And back: the saved-plan reader decodes it.
    const decoded = z.decode(planDocumentSchema, JSON.parse(renderJsonPlan(plan)));
    expect(decoded.changes[0]).toMatchObject({ renamed_from: 'analysts' });
  });

  it('renames a rule by description in place; a combined change of other fields is one update', () => {
    const old = rule('Block admin');
    const renamed = rule('Block the admin panel', { priority: '2' });
    const plan = planChanges([
      rules(
        [want(ruleKey(renamed), renamed, { renamed_from: ruleKey(old) })],
        [have('r-1', ruleKey(old), old)],
      ),
    ]);
    expect(plan.changes).toMatchObject([
      {
        action: 'update',
        id: 'r-1',
        key: 'shop.example.com/Block the admin panel',
        renamed_from: 'shop.example.com/Block admin',
        fields: ['description', 'priority'],
      },
    ]);
  });

  it('replaces when a key field the API does not update changes, and says why', () => {
    const old = rule('Block admin');
    const moved = rule('Block admin', { rq_host: 'www.example.com' });
    const plan = planChanges([
      rules([want(ruleKey(moved), moved, { renamed_from: ruleKey(old) })], [have('r-1', ruleKey(old), old)]),
    ]);
    expect(plan.changes).toMatchObject([
      { action: 'replace', id: 'r-1', forced_by: ['rq_host'], renamed_from: 'shop.example.com/Block admin' },
    ]);
    const text = renderTextPlan(plan, { color: false });
    expect(text).toContain(
      '  # renamed from "shop.example.com/Block admin": cannot be renamed in place: the API does not update rq_host\n',
    );
    expect(text).toContain('# forces replacement');
    expect(planToJson(plan).changes[0]).toMatchObject({
      action: 'replace',
      renamed_from: 'shop.example.com/Block admin',
    });
  });

  it('refuses a protected object whose rename would replace it', () => {
    const plan = planChanges([
      {
        kind: 'notification',
        immutable: [],
        keyFields: ['name'],
        fixedKeyFields: ['name'],
        scope: KEEP,
        desired: [want('siem-2', { name: 'siem-2', port: 1 }, { renamed_from: 'siem', protect: true })],
        remote: [have('siem', 'siem', { name: 'siem', port: 1 })],
      },
    ]);
    expect(plan.changes).toEqual([]);
    expect(plan.problems[0]?.message).toMatch(/renamed from "siem": the API does not update name/);
  });

  it('when both keys exist, the new one is the match and the old one is left as any undeclared object', () => {
    const remote = [have('g-1', 'analysts', { name: 'analysts' }), have('g-2', 'soc', { name: 'soc' })];
    const desired = [want('soc', { name: 'soc' }, { renamed_from: 'analysts' })];
    const kept = planChanges([group(desired, remote)]);
    expect(kept.changes).toEqual([]);
    expect(kept.unmanaged).toMatchObject([{ key: 'analysts', id: 'g-1', reason: 'not_declared' }]);
    expect(kept.notes).toHaveLength(1);
    expect(kept.notes?.[0]?.message).toContain('both "analysts" (id g-1) and "soc" (id g-2) exist');
    const pruned = planChanges([group(desired, remote, PRUNE)]);
    expect(pruned.changes).toMatchObject([{ action: 'delete', key: 'analysts', id: 'g-1' }]);
    expect(renderTextPlan(kept, { color: false })).toContain(
      'Note: group.soc: renamed_from "analysts": both',
    );
  });

  it('a renamed_from that matches nothing is a note, and the object is created', () => {
    const plan = planChanges([
      group([want('soc', { name: 'soc' }, { renamed_from: 'gone', source: 'groups.yaml:3:5' })], []),
    ]);
    expect(plan.changes).toMatchObject([{ action: 'create', key: 'soc' }]);
    expect(plan.changes[0]).not.toHaveProperty('renamed_from');
    expect(plan.problems).toEqual([]);
    expect(plan.notes).toEqual([
      {
        kind: 'group',
        key: 'soc',
        message:
          'renamed_from "gone" (declared at groups.yaml:3:5) matches nothing: no live group has that key; "soc" is created (the line can stay until the files are cleaned up)',
      },
    ]);
    const json = planToJson(plan);
    expect(json.notes).toEqual(plan.notes);
  });

  it('after the rename (only the new key live), renamed_from matches nothing: a note, no change', () => {
    const plan = planChanges([
      group(
        [want('soc', { name: 'soc' }, { renamed_from: 'analysts' })],
        [have('g-1', 'soc', { name: 'soc' })],
      ),
    ]);
    expect(plan.changes).toEqual([]);
    expect(plan.notes?.map((n) => n.message)).toEqual([
      'renamed_from "analysts" matches nothing: no live group has that key and "soc" exists, so the rename is done; the line can be removed',
    ]);
    expect(plan.summary.unchanged).toBe(1);
  });

  it('one live object is renamed once; duplicates of the old key are deleted after the survivor', () => {
    const plan = planChanges([
      group(
        [
          want('a', { name: 'a' }, { renamed_from: 'old' }),
          want('b', { name: 'b' }, { renamed_from: 'old' }),
        ],
        [have('g-1', 'old', { name: 'old' })],
      ),
    ]);
    expect(plan.changes.map((c) => `${c.action} ${c.key}`)).toEqual(['update a', 'create b']);
    expect(plan.notes?.[0]?.message).toContain('another object is renamed from it');

    const dup = planChanges([
      group(
        [want('a', { name: 'a' }, { renamed_from: 'old' })],
        [have('g-1', 'old', { name: 'old' }), have('g-2', 'old', { name: 'old' })],
      ),
    ]);
    expect(dup.changes).toMatchObject([
      { action: 'update', key: 'a', renamed_from: 'old' },
      {
        action: 'delete',
        key: 'old',
        duplicate_of: dup.changes[0] && 'id' in dup.changes[0] ? dup.changes[0].id : '',
      },
    ]);
  });

  it('plans without renames have neither notes nor suggestions in their JSON', () => {
    const plan = planChanges([
      group([want('a', { name: 'a', x: 2 })], [have('g-1', 'a', { name: 'a', x: 1 })]),
    ]);
    const json = planToJson(plan);
    expect(json).not.toHaveProperty('notes');
    expect(json).not.toHaveProperty('rename_suggestions');
    expect(json.changes[0]).not.toHaveProperty('renamed_from');
  });
});

describe('rename suggestions', () => {
  it('suggests the renamed_from line for a delete and a create equal but for the key', () => {
    const old = rule('Block admin');
    const renamed = rule('Block the admin panel');
    const plan = planChanges([
      rules([want(ruleKey(renamed), renamed)], [have('r-1', ruleKey(old), old)], PRUNE),
    ]);
    expect(plan.changes.map((c) => c.action)).toEqual(['delete', 'create']);
    expect(plan.rename_suggestions).toEqual([
      {
        kind: 'application_rule',
        from: 'shop.example.com/Block admin',
        to: 'shop.example.com/Block the admin panel',
      },
    ]);
    const hint =
      'Hint: application_rule.shop.example.com/Block admin looks renamed to application_rule.shop.example.com/Block the admin panel: add renamed_from: "shop.example.com/Block admin" to keep its id';
    expect(renderTextPlan(plan, { color: false })).toContain(hint);
    expect(renderMarkdownPlan(plan)).toContain(
      '> **Hint:** `application_rule.shop.example.com/Block admin` looks renamed to `application_rule.shop.example.com/Block the admin panel`: add `renamed_from: "shop.example.com/Block admin"` to keep its id',
    );
    expect(planToJson(plan).rename_suggestions).toEqual(plan.rename_suggestions);
  });

  it('also for an undeclared object left alone (prune off)', () => {
    const plan = planChanges([
      group([want('soc', { name: 'soc', d: 1 })], [have('g-1', 'analysts', { name: 'analysts', d: 1 })]),
    ]);
    expect(plan.rename_suggestions).toEqual([{ kind: 'group', from: 'analysts', to: 'soc' }]);
  });

  it('never when other attributes differ, when it would be a guess, or in a drift report', () => {
    const differ = planChanges([
      group(
        [want('soc', { name: 'soc', d: 1 })],
        [have('g-1', 'analysts', { name: 'analysts', d: 2 })],
        PRUNE,
      ),
    ]);
    expect(differ.rename_suggestions).toBeUndefined();
    const two = planChanges([
      group(
        [want('soc', { name: 'soc', d: 1 })],
        [have('g-1', 'a', { name: 'a', d: 1 }), have('g-2', 'b', { name: 'b', d: 1 })],
        PRUNE,
      ),
    ]);
    expect(two.rename_suggestions).toBeUndefined();
    const drift = planChanges(
      [
        group(
          [want('soc', { name: 'soc', d: 1 })],
          [have('g-1', 'analysts', { name: 'analysts', d: 1 })],
          PRUNE,
        ),
      ],
      { impactDirection: 'drift' },
    );
    expect(drift.rename_suggestions).toBeUndefined();
  });
});
