import { describe, expect, it } from 'vitest';
import type { ApplicationRule } from '../../src/api/index.js';
import { sameJson } from '../../src/core/canonical.js';
import { applicationRulesKind, matchesRow } from '../../src/kinds/application-rules.js';
import { groupsKind } from '../../src/kinds/groups.js';
import { notificationsKind } from '../../src/kinds/notifications.js';
import { schedulesKind } from '../../src/kinds/schedules.js';
import { fakeApi } from './fake-api.js';

const options = { concurrency: 4 };

const remoteRule = (id: string, complete: boolean): ApplicationRule => ({
  id,
  rq_host: 'shop.example.com',
  description: `Rule ${id}`,
  priority: 'high',
  enabled: true,
  duration: null,
  start_time: null,
  username: 'someone',
  timestamp_create: 1,
  // 2026-11-27 08:02:00.000999 UTC, in microseconds as the API gives it.
  timestamp_update: 1_795_766_520_000_999,
  conditions: [
    {
      id: 'c1',
      operator: 'match',
      not_op: false,
      expressions: [{ expression: 'b', condition_id: 'c1' }, { expression: 'a' }],
      targets: [{ target: 'query' }, { target: 'path' }],
    },
  ],
  actions: [
    { firewall_action: 'log', firewall_name: 'waf-2', sync_status: 'synced', application_rule_id: id },
    { firewall_action: 'block', firewall_name: 'waf-1' },
  ],
  complete,
});

/** remoteRule('1', ...) as a configuration declares it, its sets in canonical order. */
const rule1Desired = () =>
  applicationRulesKind.attributes({
    rq_host: 'shop.example.com',
    description: 'Rule 1',
    priority: 'high',
    enabled: true,
    duration: null,
    start_time: null,
    conditions: [{ operator: 'match', not_op: false, expressions: ['a', 'b'], targets: ['path', 'query'] }],
    actions: [
      { firewall_action: 'block', firewall_name: 'waf-1' },
      { firewall_action: 'log', firewall_name: 'waf-2' },
    ],
    protect: false,
    ignore_changes: [],
  });

describe('kinds normalise desired and remote objects into one comparable shape', () => {
  it('groups: permissions by catalog name, members by id, sets in canonical order; one GET-one per group', async () => {
    const { api, calls } = fakeApi({
      groups: [
        {
          id: 'g1',
          name: 'ops',
          description: 'Operators',
          is_admin: false,
          created_at: '2026-01-01T00:00:00Z',
          permissions: [
            { permission_id: 1, service_id: 'svc', permission_name: 'Handle rules', inserted_at: 'x' },
            { permission_id: 0, service_id: '' },
          ],
          users: [
            { id: 'u-2', username: 'bob' },
            { id: 'u-1', username: 'alice' },
          ],
        },
      ],
    });
    const [remote] = await groupsKind.fetchAll(api, options);
    const desired = groupsKind.attributes({
      name: 'ops',
      description: 'Operators',
      is_admin: false,
      permissions: [
        { permission: 0, service_id: '' },
        { permission: 1, service_id: 'svc' },
      ],
      users: ['u-1', 'u-2'],
      protect: true,
      ignore_changes: ['users'],
    });
    // created_at (ISO) becomes milliseconds: it picks the oldest of duplicates.
    expect(remote).toEqual({
      id: 'g1',
      key: 'ops',
      attributes: desired,
      createdAt: Date.parse('2026-01-01T00:00:00Z'),
      // Each member's username as the record gives it: administrators are checked by it.
      usernames: new Map([
        ['u-1', 'alice'],
        ['u-2', 'bob'],
      ]),
    });
    expect(desired.permissions).toEqual([
      { permission: 'Explore alerts', service_id: '' },
      { permission: 'Handle rules', service_id: 'svc' },
    ]);
    expect(calls).toEqual(['groups.list', 'groups.get g1']);
  });

  it('application rules: conditions, expressions, targets and actions as sets; only incomplete rows hydrated', async () => {
    const { api, calls } = fakeApi({ applicationRules: [remoteRule('1', true), remoteRule('2', false)] });
    const remote = await applicationRulesKind.fetchAll(api, options);
    expect(calls).toEqual(['applicationRules.pages', 'applicationRules.get 2']);
    const desired = rule1Desired();
    // Who last changed it and when (milliseconds), and each action's sync status, in the row's
    // order: the one without a `sync_status` has none (not guessed).
    expect(remote[0]).toEqual({
      id: '1',
      key: 'shop.example.com/Rule 1',
      attributes: desired,
      createdAt: 1,
      changedBy: 'someone',
      changedAt: Date.UTC(2026, 10, 27, 8, 2),
      enforcement: [
        { firewall: 'waf-2', status: 'synced' },
        { firewall: 'waf-1', status: undefined },
      ],
    });
    expect(remote[1]?.attributes.actions).toEqual(desired.actions);
  });

  it('application rules: a row equal to its desired rule holds the desired attributes, any difference does not', async () => {
    const desired = rule1Desired();
    // The row in canonical order (matched in place) and as remoteRule lists it (normalised first).
    const canonical: ApplicationRule = {
      ...remoteRule('1', true),
      conditions: [
        {
          operator: 'match',
          not_op: false,
          expressions: [{ expression: 'a' }, { expression: 'b' }],
          targets: [{ target: 'path' }, { target: 'query' }],
        },
      ],
      actions: [
        { firewall_action: 'block', firewall_name: 'waf-1' },
        { firewall_action: 'log', firewall_name: 'waf-2' },
      ],
    };
    const condition = canonical.conditions[0]!;
    const { not_op: _, ...withoutNotOp } = condition;
    // One change to every field the rule is compared by, in turn.
    const variants: Record<string, ApplicationRule> = {
      canonical,
      'listed in another order': remoteRule('1', true),
      rq_host: { ...canonical, rq_host: 'other.example.com' },
      description: { ...canonical, description: 'Rule 2' },
      priority: { ...canonical, priority: 'low' },
      enabled: { ...canonical, enabled: false },
      duration: { ...canonical, duration: 60 },
      start_time: { ...canonical, start_time: 5 },
      operator: { ...canonical, conditions: [{ ...condition, operator: 'contains' }] },
      not_op: { ...canonical, conditions: [{ ...condition, not_op: true }] },
      'not_op left out': { ...canonical, conditions: [withoutNotOp] },
      expression: {
        ...canonical,
        conditions: [{ ...condition, expressions: [{ expression: 'a' }, { expression: 'c' }] }],
      },
      'an expression fewer': {
        ...canonical,
        conditions: [{ ...condition, expressions: [{ expression: 'a' }] }],
      },
      target: {
        ...canonical,
        conditions: [{ ...condition, targets: [{ target: 'path' }, { target: 'x' }] }],
      },
      'a condition more': { ...canonical, conditions: [condition, { ...condition, operator: 'contains' }] },
      firewall_action: {
        ...canonical,
        actions: [{ firewall_action: 'log', firewall_name: 'waf-1' }, canonical.actions[1]!],
      },
      firewall_name: {
        ...canonical,
        actions: [canonical.actions[0]!, { firewall_action: 'log', firewall_name: 'waf-3' }],
      },
      'an action fewer': { ...canonical, actions: [canonical.actions[0]!] },
    };
    for (const [name, row] of Object.entries(variants)) {
      const { api } = fakeApi({ applicationRules: [row] });
      const [plain] = await applicationRulesKind.fetchAll(api, options);
      const [sharing] = await applicationRulesKind.fetchAll(api, { ...options, desired: () => desired });
      const equal = sameJson(plain?.attributes, desired);
      expect({ name, equal, sharing: sharing?.attributes === desired }).toEqual({
        name,
        equal,
        sharing: equal,
      });
      expect(sharing?.attributes).toEqual(plain?.attributes);
      const inPlace = matchesRow(desired as Parameters<typeof matchesRow>[0], row);
      expect({ name, inPlace }).toEqual({
        name,
        inPlace: name === 'canonical' || name === 'not_op left out',
      });
      expect(equal).toBe(
        name === 'canonical' || name === 'listed in another order' || name === 'not_op left out',
      );
    }
  });

  it('application rules: the in-place match agrees with the one equality on -0 and 0', async () => {
    for (const [want, live] of [
      [0, -0],
      [-0, 0],
    ] as const) {
      const desired = { ...rule1Desired(), duration: want, start_time: want };
      // The row in canonical order, so that it is matched in place, not normalised first.
      const listed = remoteRule('1', true);
      const row: ApplicationRule = {
        ...listed,
        duration: live,
        start_time: live,
        conditions: listed.conditions.map((c) => ({
          ...c,
          expressions: [...c.expressions].sort((x, y) => x.expression.localeCompare(y.expression)),
          targets: [...c.targets].sort((x, y) => x.target.localeCompare(y.target)),
        })),
        actions: [...listed.actions].sort((x, y) => x.firewall_name.localeCompare(y.firewall_name)),
      };
      expect(matchesRow(desired as Parameters<typeof matchesRow>[0], row)).toBe(true);
      const { api } = fakeApi({ applicationRules: [row] });
      const [plain] = await applicationRulesKind.fetchAll(api, options);
      const [sharing] = await applicationRulesKind.fetchAll(api, { ...options, desired: () => desired });
      expect(sameJson(plain?.attributes, desired)).toBe(true);
      expect(sharing?.attributes).toBe(desired);
    }
  });

  it('application rules without a description are keyed by host and an empty description', async () => {
    const { api } = fakeApi({ applicationRules: [{ ...remoteRule('3', true), description: null }] });
    const [remote] = await applicationRulesKind.fetchAll(api, options);
    expect(remote?.key).toBe('shop.example.com/');
  });

  it('notifications are keyed and addressed by name; schedules compare hosts and recipients as sets', async () => {
    const settings = {
      destination_address: '10.0.0.5',
      destination_port: 514,
      format: 'cef',
      protocol: 'udp',
    } as const;
    const { api } = fakeApi({
      notifications: [{ name: 'siem', type: 'siem', enabled: true, settings }],
      schedules: [
        {
          id: 's1',
          name: 'weekly',
          hosts: ['b.example.com', 'a.example.com'],
          services: null,
          type: 'summary',
          schedule: 'weekly',
          send_to: ['y@example.com', 'x@example.com'],
          send_via: 'email',
          timezone: 'UTC',
          scheduled_at: 5,
        },
      ],
    });
    const [notification] = await notificationsKind.fetchAll(api, options);
    expect(notification).toEqual({
      id: 'siem',
      key: 'siem',
      attributes: notificationsKind.attributes({
        name: 'siem',
        type: 'siem',
        enabled: true,
        settings,
        protect: false,
        ignore_changes: [],
      }),
    });
    const [schedule] = await schedulesKind.fetchAll(api, options);
    expect(schedule?.attributes).toEqual(
      schedulesKind.attributes({
        name: 'weekly',
        hosts: ['a.example.com', 'b.example.com'],
        services: null,
        type: 'summary',
        schedule: 'weekly',
        send_to: ['x@example.com', 'y@example.com'],
        send_via: 'email',
        timezone: 'UTC',
        protect: false,
        ignore_changes: [],
      }),
    );
    expect(schedule?.createdAt).toBe(5);
  });
});
