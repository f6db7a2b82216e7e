/**
 * The groups descriptor against the real Seer Box
 * (https://docs.seerbox.it/main/configuration/authentication-and-authorization): the built-in
 * `admins` group is never managed, and permission ids outside the spec's catalog round-trip.
 */
import { describe, expect, it } from 'vitest';
import type { ApiClient, Group } from '../../src/api/index.js';
import { formatProblem } from '../../src/config/problems.js';
import { validateSources } from '../../src/config/validate-sources.js';
import type { Attributes } from '../../src/core/model.js';
import { groupsKind } from '../../src/kinds/groups.js';
import { type KindPlanInput, planChanges } from '../../src/plan/planner.js';
import { unmanagedLine } from '../../src/plan/render/summary.js';
import { fakeApi } from './fake-api.js';

const options = { concurrency: 4 };

const ADMINS: Group = {
  id: '0',
  name: 'admins',
  description: 'Built-in administrators',
  is_admin: true,
  permissions: [],
  users: [{ id: 'u-1000', username: 'admin' }],
};

const FIREWALLS: Group = {
  id: '5',
  name: 'firewall-team',
  description: '',
  is_admin: false,
  permissions: [
    { permission_id: 7, permission_name: 'Handle firewalls', service_id: '' },
    { permission_id: 0, permission_name: 'Explore alerts', service_id: '' },
  ],
  users: [{ id: 'u-1', username: 'yara' }],
};

function load(text: string) {
  return validateSources([{ file: 'groups.yaml', text }], { env: {} });
}

/** The groups a file declares, as the planner compares them. */
function declared(text: string): Attributes[] {
  const result = load(text);
  if (!result.ok) throw new Error(result.problems.map(formatProblem).join('\n'));
  return result.config.state.groups.map((g) => groupsKind.attributes(g));
}

function input(desired: Attributes[], remote: Awaited<ReturnType<typeof groupsKind.fetchAll>>, prune = true) {
  return {
    kind: 'group',
    immutable: groupsKind.immutable,
    impact: groupsKind.impact,
    scope: { prune, match: {} },
    desired: desired.map((attributes) => ({
      key: groupsKind.keyOf(attributes),
      attributes,
      protect: false,
      ignoreChanges: [],
    })),
    remote,
  } satisfies KindPlanInput;
}

describe('the admins group', () => {
  it('declared in a file, is a validation error at its name', () => {
    const result = load('groups:\n  - name: ops\n  - name: admins\n    is_admin: true\n');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems.map(formatProblem)).toEqual([
      'groups.yaml:3:11 groups[1].name: the admins group is built into Seer Box and cannot be managed: the server refuses to edit or delete it (its members are administrators); remove it from the file (export lists it as a comment)',
    ]);
  });

  it('is fetched read-only, with its members named for export', async () => {
    const api = fakeApi({ groups: [ADMINS, FIREWALLS] }).api;
    const [admins, other] = await groupsKind.fetchAll(api, options);
    expect(admins?.readOnly).toBe('built in, read-only (members: admin)');
    expect(other?.readOnly).toBeUndefined();
  });

  it('a prune never deletes it, nor plans any change to it, nor lists it as unmanaged (it is built in)', async () => {
    const remote = await groupsKind.fetchAll(fakeApi({ groups: [ADMINS, FIREWALLS] }).api, options);
    const plan = planChanges([input([], remote)]);
    expect(plan.changes.map((c) => [c.action, c.key])).toEqual([['delete', 'firewall-team']]);
    expect(plan.unmanaged).toBeUndefined();
    expect(plan.summary.unmanaged).toBe(0);
    expect(unmanagedLine(plan)).toBeUndefined();
    // Not counted among the existing objects of the safety threshold either: it cannot be deleted.
    expect(plan.warnings).toEqual([]);
  });

  it('declared anyway (a registry without the schema check), is a problem, never an update', async () => {
    const remote = await groupsKind.fetchAll(fakeApi({ groups: [ADMINS] }).api, options);
    const desired = { ...(remote[0]?.attributes as Attributes), description: 'mine now' };
    const plan = planChanges([input([desired], remote)]);
    expect(plan.changes).toEqual([]);
    expect(plan.problems).toEqual([
      {
        kind: 'group',
        key: 'admins',
        message: 'is read-only on the server (id 0); wafctl never changes it: remove the declaration',
      },
    ]);
  });
});

describe('permissions outside the catalog', () => {
  it('an integer id wafctl does not know is kept as the integer; a known id becomes its name', () => {
    const [group] = declared(
      'groups:\n  - name: g\n    permissions:\n      - permission: 7\n      - permission: 0\n        service_id: svc-shop\n',
    );
    expect(group?.permissions).toEqual([
      { permission: 'Explore alerts', service_id: 'svc-shop' },
      { permission: 7, service_id: '' },
    ]);
  });

  it('`permission: 0` and `permission: Explore alerts` are one permission (a duplicate)', () => {
    const result = load(
      'groups:\n  - name: g\n    permissions:\n      - permission: 0\n      - permission: Explore alerts\n',
    );
    expect(result.ok).toBe(false);
  });

  it('live, round-trips to the same attributes as the file, with the server name for export', async () => {
    const [live] = await groupsKind.fetchAll(fakeApi({ groups: [FIREWALLS] }).api, options);
    const [file] = declared(
      'groups:\n  - name: firewall-team\n    permissions:\n      - permission: 7\n      - permission: Explore alerts\n    users: [u-1]\n',
    );
    expect(live?.attributes).toEqual(file);
    const permissions = (live?.attributes.permissions ?? []) as { permission: unknown }[];
    const index = permissions.findIndex((p) => p.permission === 7);
    expect(live?.comments).toEqual([
      { path: ['permissions', index, 'permission'], text: "Handle firewalls (not in wafctl's catalog)" },
    ]);
    const plan = planChanges([
      input(file ? [file] : [], await groupsKind.fetchAll(fakeApi({ groups: [FIREWALLS] }).api, options)),
    ]);
    expect(plan.changes).toEqual([]);
  });

  it('is compared exactly: another unknown id is a change', async () => {
    const remote = await groupsKind.fetchAll(fakeApi({ groups: [FIREWALLS] }).api, options);
    const [file] = declared(
      'groups:\n  - name: firewall-team\n    permissions:\n      - permission: 8\n      - permission: Explore alerts\n    users: [u-1]\n',
    );
    const plan = planChanges([input(file ? [file] : [], remote)]);
    expect(plan.changes.map((c) => [c.action, c.fields])).toEqual([['update', ['permissions']]]);
  });

  it('an added unknown permission broadens access, like any added permission', async () => {
    const remote = await groupsKind.fetchAll(fakeApi({ groups: [FIREWALLS] }).api, options);
    const [file] = declared(
      'groups:\n  - name: firewall-team\n    permissions:\n      - permission: 7\n      - permission: 9\n        service_id: svc-shop\n      - permission: Explore alerts\n    users: [u-1]\n',
    );
    const plan = planChanges([input(file ? [file] : [], remote)]);
    expect(plan.changes[0]?.impact).toEqual([
      { class: 'broadens_access', reason: 'permission added: permission 9 (service svc-shop)' },
    ]);
    expect(plan.summary.impact.broadens_access).toBe(1);
  });

  it('sends an unknown id back to the API as the integer', async () => {
    const sent: unknown[] = [];
    const api = { groups: { create: async (attrs: unknown) => sent.push(attrs) } } as unknown as ApiClient;
    const [file] = declared('groups:\n  - name: g\n    permissions:\n      - permission: 7\n');
    if (file === undefined) throw new Error('no group');
    await groupsKind.writer.create({ api, username: 'me' }, [file as never]);
    expect(sent).toEqual([
      {
        name: 'g',
        description: '',
        is_admin: false,
        permissions: [{ permission_id: 7, service_id: '' }],
        user_ids: [],
      },
    ]);
  });
});
