/**
 * Saved plans are hostile input: reading keeps only each change's intent (bounded, strictly
 * validated), and `apply --plan` rebuilds the rest from the live objects with the settings the plan
 * recorded (replanSavedPlan), refusing a plan the planner could not have made.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { baseUrlInUse } from '../../../src/cli/planning.js';
import { DEFAULT_FIREWALL_ACTIONS } from '../../../src/core/firewall-actions.js';
import type { Attributes, Plan } from '../../../src/core/model.js';
import type { ManageScope } from '../../../src/core/scope.js';
import { groupsKind } from '../../../src/kinds/groups.js';
import { replanSavedPlan } from '../../../src/ops/apply/replan.js';
import {
  normalizeBaseUrl,
  readSavedPlan,
  renderSavedPlan,
  type SavedPlan,
  type SavedPlanContext,
} from '../../../src/ops/apply/saved-plan.js';
import { DEFAULT_SAFETY } from '../../../src/plan/assess.js';
import { planChanges } from '../../../src/plan/planner.js';
import { OLD_PLAN_DOCUMENT } from '../../core/old-plan.js';
import { startTestFirewall, type TestFirewall } from '../../helpers/firewall.js';

const group = (name: string, fields: Partial<Attributes> = {}): Attributes => ({
  name,
  description: '',
  is_admin: false,
  permissions: [],
  users: [],
  ...fields,
});

const ALL: ManageScope = { prune: false, match: {} };

function context(groups: ManageScope = ALL, overrides: Partial<SavedPlanContext> = {}): SavedPlanContext {
  return {
    baseUrl: 'http://127.0.0.1:1',
    username: 'bot',
    safety: DEFAULT_SAFETY,
    firewallActions: DEFAULT_FIREWALL_ACTIONS,
    scopes: { group: groups, application_rule: ALL, notification: ALL, schedule: ALL },
    ...overrides,
  };
}

/** A group created out of band, with its id. */
const createGroup = (api: TestFirewall['api'], name: string, description = '') =>
  api.groups.create({ name, description, is_admin: false, permissions: [], user_ids: [] });

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wafctl-saved-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let n = 0;
async function roundTrip(plan: Plan, ctx: SavedPlanContext = context()): Promise<SavedPlan> {
  const path = join(dir, `plan-${n++}.json`);
  await writeFile(path, renderSavedPlan(plan, ctx));
  return readSavedPlan(path);
}

describe('the saved plan file', () => {
  it('records where it was made and what it was judged by, and reads back intents only', async () => {
    const plan = planChanges([
      {
        kind: 'group',
        immutable: [],
        impact: groupsKind.impact,
        scope: ALL,
        desired: [
          { key: 'ops', attributes: group('ops', { is_admin: true }), protect: false, ignoreChanges: [] },
        ],
        remote: [{ id: 'g-1', key: 'ops', attributes: group('ops') }],
      },
    ]);
    const ctx = context(
      { prune: true, match: { name: ['team-*'] } },
      {
        safety: { maxDeletePercent: 50, minExisting: 3 },
        firewallActions: { blocking: ['challenge'], observing: [], allowing: ['allow'] },
      },
    );
    const text = renderSavedPlan(plan, ctx);
    const doc = JSON.parse(text) as Record<string, unknown>;
    expect(doc).toMatchObject({
      base_url: 'http://127.0.0.1:1',
      username: 'bot',
      settings: {
        safety: { max_delete_percent: 50, min_existing: 3 },
        firewall_actions: { blocking: ['challenge'], observing: [], allowing: ['allow'] },
      },
      manage: { groups: { prune: true, match: { name: ['team-*'] } }, application_rules: ALL },
    });
    const saved = await roundTrip(plan, ctx);
    const { path: _path, changes, problems, ...read } = saved;
    expect(read).toEqual(ctx);
    expect(problems).toEqual([]);
    // Nothing of what the change does (fields, before, after, impact) survives the read.
    expect(changes).toEqual([
      {
        action: 'update',
        kind: 'group',
        key: 'ops',
        id: 'g-1',
        fingerprint: plan.changes[0]?.action === 'update' ? plan.changes[0].fingerprint : '',
        after: group('ops', { is_admin: true }),
      },
    ]);
  });

  it('is refused past its size bound before it is parsed', async () => {
    const path = join(dir, 'big.json');
    await writeFile(path, `${' '.repeat(2000)}{}`);
    await expect(readSavedPlan(path, { maxBytes: 1000 })).rejects.toThrow(
      `cannot read the saved plan ${path}: it is larger than 1000 bytes`,
    );
  });

  it('is validated strictly: an unknown field, or no base URL, is refused', async () => {
    const path = join(dir, 'strict.json');
    const plan = planChanges([
      {
        kind: 'group',
        immutable: [],
        scope: ALL,
        desired: [{ key: 'ops', attributes: group('ops'), protect: false, ignoreChanges: [] }],
        remote: [],
      },
    ]);
    const doc = JSON.parse(renderSavedPlan(plan, context())) as Record<string, unknown> & {
      changes: Record<string, unknown>[];
    };
    (doc.changes[0] as Record<string, unknown>).targett = {};
    await writeFile(path, JSON.stringify(doc));
    await expect(readSavedPlan(path)).rejects.toThrow(/is not a saved plan of this wafctl: changes\.0: /);
    delete (doc.changes[0] as Record<string, unknown>).targett;
    delete doc.base_url;
    await writeFile(path, JSON.stringify(doc));
    await expect(readSavedPlan(path)).rejects.toThrow(/is not a saved plan of this wafctl: base_url: /);
  });
});

describe('a saved plan written before changes carried `objects`', () => {
  /** What the previous wafctl wrote besides the plan document (a literal, as it wrote it). */
  const OLD_CONTEXT = {
    base_url: 'embedded',
    username: 'bot',
    settings: {
      safety: { max_delete_percent: 30, min_existing: 0 },
      firewall_actions: {
        blocking: ['block', 'deny', 'drop', 'reject', 'captcha'],
        observing: ['log', 'monitor', 'alert', 'count'],
        allowing: ['allow', 'bypass', 'whitelist'],
      },
    },
    manage: {
      groups: { prune: true, match: {} },
      application_rules: { prune: true, match: {} },
      notifications: { prune: false, match: {} },
      schedules: { prune: false, match: {} },
    },
  };

  it("is still read: an update's intent is its target", async () => {
    const path = join(dir, 'old.json');
    await writeFile(path, JSON.stringify({ ...OLD_PLAN_DOCUMENT, ...OLD_CONTEXT }, null, 2));
    const saved = await readSavedPlan(path);
    expect(saved.changes.map((c) => [c.action, c.key, 'after' in c ? c.after : c.duplicate_of])).toEqual([
      ['create', 'new', { name: 'new', description: '', users: [] }],
      ['update', 'ops', { name: 'ops', description: 'b', users: ['u2'] }],
      ['delete', 'ops', 'g-1'],
      ['replace', 'h/r', { rq_host: 'h', description: 'r', conditions: ['new'] }],
    ]);
    const { path: _path, changes: _changes, problems, ...read } = saved;
    expect(problems).toEqual([]);
    expect(read).toEqual({
      baseUrl: 'embedded',
      username: 'bot',
      safety: { maxDeletePercent: 30, minExisting: 0 },
      firewallActions: DEFAULT_FIREWALL_ACTIONS,
      scopes: {
        group: { prune: true, match: {} },
        application_rule: { prune: true, match: {} },
        notification: ALL,
        schedule: ALL,
      },
    });
  });

  it('and a plan naming a family this wafctl does not know is refused', async () => {
    const path = join(dir, 'unknown-kind.json');
    const doc = structuredClone({ ...OLD_PLAN_DOCUMENT, ...OLD_CONTEXT });
    (doc.changes[1] as { kind: string }).kind = 'firewall';
    await writeFile(path, JSON.stringify(doc));
    await expect(readSavedPlan(path)).rejects.toThrow(
      /is not a saved plan of this wafctl: changes\.1\.kind: Invalid option: expected one of "group"\|/,
    );
  });
});

describe('base URLs', () => {
  it('are recorded without credentials, query or trailing slash; embedded stays embedded', () => {
    expect(normalizeBaseUrl('HTTPS://Waf.Example.com:443/api-root//?token=x#y')).toBe(
      'https://waf.example.com/api-root',
    );
    expect(normalizeBaseUrl('http://user:pw@10.0.0.1:8080/')).toBe('http://10.0.0.1:8080');
    expect(normalizeBaseUrl('embedded')).toBe('embedded');
    expect(normalizeBaseUrl('not a url')).toBeUndefined();
    expect(baseUrlInUse({ url: 'embedded' }, {})).toBe('embedded');
    expect(baseUrlInUse({}, { WAF_URL: 'http://a.example/' })).toBe('http://a.example');
    expect(baseUrlInUse({ url: 'http://b.example' }, { WAF_URL: 'http://a.example' })).toBe(
      'http://b.example',
    );
    expect(baseUrlInUse({}, { WAF_URL: '' })).toBeUndefined();
  });
});

describe('replanSavedPlan', () => {
  let firewall: TestFirewall;
  beforeEach(async () => {
    firewall = await startTestFirewall();
  });
  afterEach(async () => {
    await firewall.close();
  });

  /** The planner's plan for `desired` against the live groups, as `plan` makes it. */
  async function planGroups(desired: Attributes[], scope: ManageScope = ALL): Promise<Plan> {
    const remote = await groupsKind.fetchAll(firewall.api, { concurrency: 2 });
    return planChanges([
      {
        kind: 'group',
        immutable: groupsKind.immutable,
        impact: groupsKind.impact,
        scope,
        desired: desired.map((attributes) => ({
          key: String(attributes.name),
          attributes,
          protect: false,
          ignoreChanges: [],
        })),
        remote,
      },
    ]);
  }

  // Judged by the policy the plan records: these tests are of the rebuild, not of which policy is in force.
  const replan = (saved: SavedPlan) => replanSavedPlan(saved, firewall.api, 2, saved);

  it('rebuilds a plan equal to the planner’s, from the live objects and the intent', async () => {
    await createGroup(firewall.api, 'ops', 'a');
    const plan = await planGroups([group('ops', { description: 'b' }), group('new')]);
    // What a plan leaves alone (here the built-in admins group) needs the configuration: not replanned.
    const { unmanaged: _leftAlone, ...changes } = plan;
    expect(await replan(await roundTrip(plan))).toEqual({
      ...changes,
      summary: { ...plan.summary, unmanaged: 0 },
    });
  });

  it('shows and judges the target it sends, whatever the file says the change does', async () => {
    await createGroup(firewall.api, 'ops', 'a');
    const plan = await planGroups([group('ops', { description: 'b' })]);
    const path = join(dir, 'tampered.json');
    const doc = JSON.parse(renderSavedPlan(plan, context())) as { changes: { target: Attributes }[] };
    doc.changes[0]!.target.is_admin = true;
    await writeFile(path, JSON.stringify(doc));
    const rebuilt = await replan(await readSavedPlan(path));
    expect(rebuilt.changes).toEqual([
      expect.objectContaining({
        action: 'update',
        fields: ['description', 'is_admin'],
        before: group('ops', { description: 'a' }),
        after: group('ops', { description: 'b', is_admin: true }),
        impact: [{ class: 'broadens_access', reason: 'made administrator' }],
      }),
    ]);
    expect(rebuilt.summary.impact.broadens_access).toBe(1);
  });

  it('recomputes the safety warning from the live in-scope count and the recorded settings', async () => {
    for (const name of ['team-a', 'team-b', 'team-c', 'other']) {
      await createGroup(firewall.api, name);
    }
    const scope: ManageScope = { prune: true, match: { name: ['team-*'] } };
    const plan = await planGroups([group('team-a')], scope);
    expect(plan.warnings).toEqual([]); // 3 in scope: below the default min_existing of 10
    const strict = { safety: { maxDeletePercent: 50, minExisting: 3 } };
    const saved = await roundTrip(plan, context(scope, strict));
    expect((await replan(saved)).warnings).toEqual([
      { kind: 'group', deletes: 2, duplicates: 0, existing: 3, max_delete_percent: 50 },
    ]);
  });

  it('refuses what the planner could not have made: a prune outside the scope, a false duplicate', async () => {
    for (const name of ['team-a', 'other']) {
      await createGroup(firewall.api, name);
    }
    const plan = await planGroups([], { prune: true, match: {} });
    const saved = await roundTrip(plan, context({ prune: true, match: { name: ['team-*'] } }));
    const other = saved.changes.find((c) => c.key === 'other');
    const team = saved.changes.find((c) => c.key === 'team-a');
    if (team?.action !== 'delete' || other?.action !== 'delete') throw new Error('expected two deletes');
    team.duplicate_of = other.id;
    const error = await replan(saved).catch((e: Error) => e);
    expect((error as Error).message).toBe(
      [
        `Saved plan ${saved.path} does not agree with itself or the live state (was it edited?); nothing was applied. Run plan again.`,
        `  group.other (id ${other.id}) is outside the manage scope the plan records`,
        `  group.team-a (id ${team.id}) is deleted as a duplicate of id ${other.id}, which is not a surviving object with its key`,
      ].join('\n'),
    );
    expect(await firewall.api.groups.list()).toHaveLength(3); // and the built-in admins group
  });

  it('refuses an update whose new state leaves the scope (an edited rename, or a field match reads)', async () => {
    const team = await createGroup(firewall.api, 'team-a');
    const scope: ManageScope = { prune: true, match: { name: ['team-*'] } };
    const plan = await planGroups([group('team-a', { description: 'b' })], scope);
    const saved = await roundTrip(plan, context(scope));
    const update = saved.changes[0];
    if (update?.action !== 'update') throw new Error('expected an update');
    update.after = { ...update.after, name: 'other-outside' };
    update.renamed_from = 'team-a';
    const error = await replan(saved).catch((e: Error) => e);
    expect((error as Error).message).toContain(
      `  group.team-a (id ${team.id}) (its new state) is outside the manage scope the plan records`,
    );
    expect((await firewall.api.groups.list()).map((g) => g.name)).toContain('team-a');
  });

  it('refuses a stale plan, naming what moved', async () => {
    const ops = await createGroup(firewall.api, 'ops', 'a');
    const plan = await planGroups([group('ops', { description: 'b' }), group('new')]);
    const saved = await roundTrip(plan);
    await firewall.api.groups.update(ops.id, {
      name: 'ops',
      description: 'c',
      permissions: [],
      user_ids: [],
    });
    await createGroup(firewall.api, 'new');
    await expect(replan(saved)).rejects.toThrow(
      [
        'Saved plan is stale; nothing was applied. Run plan again.',
        '  group.new was planned as a create but now exists',
        `  group.ops (id ${ops.id}) changed since the plan was made`,
      ].join('\n'),
    );
  });
});
