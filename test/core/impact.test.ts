/**
 * Security impact, table first: each row is (kind, the object before, the object after, action
 * classes) -> the impacts the real planner attaches with the real kind's table. `undefined` before
 * is a create, `undefined` after a delete (pruned).
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_FIREWALL_ACTIONS, type FirewallActions } from '../../src/core/firewall-actions.js';
import { classifyChange, type ImpactRule, listed } from '../../src/core/impact.js';
import type { Attributes, Change } from '../../src/core/model.js';
import { applicationRulesKind } from '../../src/kinds/application-rules.js';
import { groupsKind } from '../../src/kinds/groups.js';
import { KINDS, type Kind } from '../../src/kinds/index.js';
import { networkRuleSettingsKind } from '../../src/kinds/network-rule-settings.js';
import { notificationsKind } from '../../src/kinds/notifications.js';
import { schedulesKind } from '../../src/kinds/schedules.js';
import { planChanges } from '../../src/plan/planner.js';

const PRUNE = { prune: true, match: {} };

/** The one change the real planner makes of `before` -> `after` (both undefined: no change). */
function planned(
  kind: Kind,
  before: Attributes | undefined,
  after: Attributes | undefined,
  firewallActions: FirewallActions = DEFAULT_FIREWALL_ACTIONS,
): Change {
  const key = kind.keyOf((after ?? before) as Attributes);
  const plan = planChanges(
    [
      {
        kind: kind.name,
        immutable: kind.immutable,
        impact: kind.impact,
        scope: PRUNE,
        desired: after ? [{ key, attributes: after, protect: false, ignoreChanges: [] }] : [],
        remote: before ? [{ id: 'id-1', key, attributes: before }] : [],
      },
    ],
    { firewallActions },
  );
  expect(plan.changes).toHaveLength(1);
  return plan.changes[0]!;
}

/** `class: reason` strings, the way a reviewer reads them. */
const impacts = (change: Change) => change.impact.map((i) => `${i.class}: ${i.reason}`);

const action = (firewall_action: string, firewall_name = 'waf-eu-1') => ({ firewall_action, firewall_name });
const condition = (not_op = false, expressions = ['^/admin']) => ({
  operator: 'match',
  not_op,
  expressions,
  targets: ['path'],
});
const rule = (changes: Attributes = {}): Attributes => ({
  rq_host: 'shop.example.com',
  description: 'Block admin',
  priority: 'high',
  enabled: true,
  duration: null,
  start_time: null,
  conditions: [condition()],
  actions: [action('block')],
  ...changes,
});
const group = (changes: Attributes = {}): Attributes => ({
  name: 'soc',
  description: 'Analysts',
  is_admin: false,
  permissions: [],
  users: [],
  ...changes,
});
const notification = (changes: Attributes = {}, settings: Attributes = {}): Attributes => ({
  name: 'splunk',
  type: 'siem',
  enabled: true,
  settings: {
    destination_address: '10.0.0.5',
    destination_port: 514,
    format: 'cef',
    protocol: 'udp',
    ...settings,
  },
  ...changes,
});
const schedule = (changes: Attributes = {}): Attributes => ({
  name: 'weekly',
  hosts: ['shop.example.com'],
  services: null,
  type: 'summary',
  schedule: 'weekly',
  send_to: ['secops@example.com'],
  send_via: 'email',
  timezone: 'Europe/Paris',
  ...changes,
});
const handle = (service_id = 'svc-shop') => ({ permission: 'Handle rules', service_id });
const ruleSettings = (automation: Record<string, unknown> = {}): Attributes => ({
  automation: {
    enable: true,
    update_firewall: true,
    default_duration_minutes: 1440,
    whitelist: ['10.0.0.1'],
    ...automation,
  },
  expire_strategy: 'delete',
});
const users = (n: number) => Array.from({ length: n }, (_, i) => `u-${1001 + i}`);

/** Custom classes: `challenge` blocks, `allow` merely observes, nothing allows. */
const CUSTOM: FirewallActions = {
  blocking: ['block', 'challenge'],
  observing: ['log', 'allow'],
  allowing: [],
};

type Row = [
  name: string,
  kind: Kind,
  before: Attributes | undefined,
  after: Attributes | undefined,
  expected: string[],
  classes?: FirewallActions,
];

const W = 'weakens_protection';
const B = 'broadens_access';
const R = 'reduces_audit';

// biome-ignore format: one row per case reads as a table
const ROWS: Row[] = [
  // Application rules: weakens_protection.
  ['rule deleted', applicationRulesKind, rule(), undefined, [`${W}: deleted`]],
  ['rule disabled', applicationRulesKind, rule(), rule({ enabled: false }), [`${W}: disabled (enabled: true -> false)`]],
  ['rule block -> log', applicationRulesKind, rule(), rule({ actions: [action('log')] }),
    [`${W}: action block -> log (blocking -> observing)`]],
  ['rule block -> allow: one entry per reason', applicationRulesKind, rule(), rule({ actions: [action('allow')] }),
    [`${W}: action block -> allow (blocking -> allowing)`, `${W}: allowing action added: allow`]],
  ['rule block -> unknown action', applicationRulesKind, rule(), rule({ actions: [action('tarpit')] }),
    [`${W}: action block -> tarpit (blocking -> unknown: not a known blocking action)`]],
  ['rule actions matched ignoring case', applicationRulesKind, rule({ actions: [action('Block')] }),
    rule({ actions: [action('LOG')] }), [`${W}: action Block -> LOG (blocking -> observing)`]],
  ['rule blocking moved to another firewall', applicationRulesKind, rule(),
    rule({ actions: [action('block', 'waf-us-1')] }), [`${W}: blocking action removed: block on waf-eu-1`]],
  ['rule stops blocking on one of two firewalls', applicationRulesKind,
    rule({ actions: [action('block'), action('block', 'waf-us-1')] }),
    rule({ actions: [action('log'), action('block', 'waf-us-1')] }),
    [`${W}: action block -> log on waf-eu-1 (blocking -> observing)`]],
  ['rule gains an allowing action', applicationRulesKind, rule({ actions: [action('allow')] }),
    rule({ actions: [action('allow'), action('bypass')] }), [`${W}: allowing action added: bypass`]],
  ['created allowing rule', applicationRulesKind, undefined, rule({ actions: [action('allow')] }),
    [`${W}: allowing action added: allow`]],
  ['disabled allowing rule enabled', applicationRulesKind, rule({ enabled: false, actions: [action('allow')] }),
    rule({ actions: [action('allow')] }), [`${W}: enabled with an allowing action: allow (enabled: false -> true)`]],
  ['rule conditions changed (a replace)', applicationRulesKind, rule(),
    rule({ conditions: [condition(false, ['^/adm'])] }), [`${W}: match changed: conditions`]],
  ['rule not_op changed (a replace)', applicationRulesKind, rule(), rule({ conditions: [condition(true)] }),
    [`${W}: match changed: not_op false -> true`]],
  ['rule disabled and moved to log: the disable says it', applicationRulesKind, rule(),
    rule({ enabled: false, actions: [action('log')] }), [`${W}: disabled (enabled: true -> false)`]],
  // Application rules: neutral.
  ['rule log -> block (tightening)', applicationRulesKind, rule({ actions: [action('log')] }), rule(), []],
  ['rule allow -> block (tightening)', applicationRulesKind, rule({ actions: [action('allow')] }), rule(), []],
  ['rule gains a second action, still blocking', applicationRulesKind, rule(),
    rule({ actions: [action('block'), action('log')] }), []],
  ['rule priority changed', applicationRulesKind, rule(), rule({ priority: 'low' }), []],
  ['rule enabled (blocking)', applicationRulesKind, rule({ enabled: false }), rule(), []],
  ['created blocking rule', applicationRulesKind, undefined, rule(), []],
  ['created disabled allowing rule', applicationRulesKind, undefined,
    rule({ enabled: false, actions: [action('allow')] }), []],
  ['disabled rule deleted', applicationRulesKind, rule({ enabled: false }), undefined, []],
  ['disabled rule: conditions and actions changed', applicationRulesKind, rule({ enabled: false }),
    rule({ enabled: false, conditions: [condition(true)], actions: [action('allow')] }), []],
  // Application rules under settings.firewall_actions.
  ['custom classes: block -> challenge stays blocking', applicationRulesKind, rule(),
    rule({ actions: [action('challenge')] }), [], CUSTOM],
  ['default classes: block -> challenge is unknown', applicationRulesKind, rule(),
    rule({ actions: [action('challenge')] }),
    [`${W}: action block -> challenge (blocking -> unknown: not a known blocking action)`]],
  ['custom classes: a created allow rule only observes', applicationRulesKind, undefined,
    rule({ actions: [action('allow')] }), [], CUSTOM],
  ['custom classes: block -> allow is observing', applicationRulesKind, rule(), rule({ actions: [action('allow')] }),
    [`${W}: action block -> allow (blocking -> observing)`], CUSTOM],

  // Groups: broadens_access.
  ['group made admin', groupsKind, group(), group({ is_admin: true }), [`${B}: made administrator`]],
  ['created admin group', groupsKind, undefined, group({ is_admin: true }), [`${B}: made administrator`]],
  ['group permission added', groupsKind, group(), group({ permissions: [handle()] }),
    [`${B}: permission added: Handle rules (service svc-shop)`]],
  ['group permission widened to all services', groupsKind, group({ permissions: [handle()] }),
    group({ permissions: [handle('')] }), [`${B}: permission added: Handle rules (all services)`]],
  ['group member added', groupsKind, group({ users: ['u-1001'] }), group({ users: ['u-1001', 'u-1003'] }),
    [`${B}: member added: u-1003`]],
  ['created group with permissions and members', groupsKind, undefined,
    group({ permissions: [{ permission: 'Explore alerts', service_id: '' }, handle()], users: users(2) }),
    [`${B}: permissions added: Explore alerts (all services), Handle rules (service svc-shop)`,
      `${B}: members added: u-1001, u-1002`]],
  // Why a member matters: in an administrator group, the member becomes an administrator.
  ['member added to an administrator group', groupsKind, group({ is_admin: true, users: ['u-1001'] }),
    group({ is_admin: true, users: ['u-1001', 'u-1005'] }),
    [`${B}: member added to an administrator group: u-1005`]],
  ['group made admin and members added at once', groupsKind, group({ users: ['u-1001'] }),
    group({ is_admin: true, users: users(3) }),
    [`${B}: made administrator`, `${B}: members added to an administrator group: u-1002, u-1003`]],
  ['created admin group with a member', groupsKind, undefined, group({ is_admin: true, users: ['u-1001'] }),
    [`${B}: made administrator`, `${B}: member added to an administrator group: u-1001`]],
  ['member added to a group that stops being administrator', groupsKind, group({ is_admin: true }),
    group({ users: ['u-1001'] }), [`${B}: member added: u-1001`]],
  ['group gains 5,000 members: one bounded reason', groupsKind, group(), group({ users: users(5000) }),
    [`${B}: members added: u-1001, u-1002, u-1003, u-1004, u-1005 and 4995 more`]],
  // Groups: neutral.
  ['group member removed', groupsKind, group({ users: users(2) }), group({ users: users(1) }), []],
  ['group permission removed', groupsKind, group({ permissions: [handle()] }), group(), []],
  ['group admin revoked', groupsKind, group({ is_admin: true }), group(), []],
  ['group description changed', groupsKind, group(), group({ description: 'Tier 2' }), []],
  ['group deleted', groupsKind, group({ is_admin: true, users: users(3) }), undefined, []],
  ['created plain empty group', groupsKind, undefined, group(), []],

  // Schedules.
  ['schedule recipient added', schedulesKind, schedule(),
    schedule({ send_to: ['ops@example.com', 'secops@example.com'] }), [`${B}: recipient added: ops@example.com`]],
  ['created schedule: its recipients count', schedulesKind, undefined,
    schedule({ send_to: ['a@example.com', 'b@example.com'] }), [`${B}: recipients added: a@example.com, b@example.com`]],
  ['schedule deleted', schedulesKind, schedule(), undefined, [`${R}: deleted`]],
  ['schedule recipient removed', schedulesKind, schedule({ send_to: ['a@example.com', 'b@example.com'] }),
    schedule({ send_to: ['a@example.com'] }), []],
  ['schedule hosts and timezone changed', schedulesKind, schedule(),
    schedule({ hosts: ['a.example.com'], timezone: 'UTC' }), []],

  // Notifications: reduces_audit.
  ['notification deleted', notificationsKind, notification(), undefined, [`${R}: deleted`]],
  ['notification disabled', notificationsKind, notification(), notification({ enabled: false }),
    [`${R}: disabled (enabled: true -> false)`]],
  ['notification address changed', notificationsKind, notification(),
    notification({}, { destination_address: '10.0.0.9' }), [`${R}: redirected: destination_address 10.0.0.5 -> 10.0.0.9`]],
  ['notification port changed', notificationsKind, notification(), notification({}, { destination_port: 6514 }),
    [`${R}: redirected: destination_port 514 -> 6514`]],
  ['notification protocol changed', notificationsKind, notification(), notification({}, { protocol: 'tcp' }),
    [`${R}: redirected: protocol udp -> tcp`]],
  ['notification address and port changed: one entry each', notificationsKind, notification(),
    notification({}, { destination_address: '::1', destination_port: 6514 }),
    [`${R}: redirected: destination_address 10.0.0.5 -> ::1`, `${R}: redirected: destination_port 514 -> 6514`]],
  // Notifications: neutral.
  ['notification format changed', notificationsKind, notification(), notification({}, { format: 'json' }), []],
  ['notification type changed', notificationsKind, notification(), notification({ type: 'generic' }), []],
  ['notification enabled', notificationsKind, notification({ enabled: false }), notification(), []],
  ['created notification', notificationsKind, undefined, notification(), []],
  ['disabled notification deleted', notificationsKind, notification({ enabled: false }), undefined, []],
  ['disabled notification redirected', notificationsKind, notification({ enabled: false }),
    notification({ enabled: false }, { destination_address: '10.0.0.9' }), []],
  // Network-rule settings (a singleton: only updates).
  ['allowlist address added', networkRuleSettingsKind, ruleSettings(), ruleSettings({ whitelist: ['10.0.0.1', '10.9.0.0/16'] }),
    [`${B}: whitelist address added: 10.9.0.0/16`]],
  ['automation disabled', networkRuleSettingsKind, ruleSettings(), ruleSettings({ enable: false }),
    [`${W}: automation disabled (enable: true -> false)`]],
  ['rules no longer loaded on the firewall', networkRuleSettingsKind, ruleSettings(), ruleSettings({ update_firewall: false }),
    [`${W}: rules no longer loaded on the firewall (update_firewall: true -> false)`]],
  ['allowlist address removed, duration changed', networkRuleSettingsKind, ruleSettings(),
    ruleSettings({ whitelist: [], default_duration_minutes: 60 }), []],
];

describe('security impact, per kind (the real planner and tables)', () => {
  it.each(ROWS)('%s', (_name, kind, before, after, expected, classes) => {
    expect(impacts(planned(kind, before, after, classes))).toEqual(expected);
  });

  it('covers every class, every kind and neutral rows', () => {
    const kinds = new Set(ROWS.map((row) => row[1].name));
    expect([...kinds].sort()).toEqual(KINDS.map((k) => k.name).sort());
    const classes = new Set(ROWS.flatMap((row) => row[4].map((reason) => reason.split(':')[0])));
    expect([...classes].sort()).toEqual([B, R, W]);
    for (const kind of KINDS) {
      expect(
        ROWS.some((row) => row[1] === kind && row[4].length === 0),
        kind.name,
      ).toBe(true);
    }
  });

  it('gives a duplicate delete no impact: a copy with the same key survives', () => {
    for (const [kind, attributes] of [
      [applicationRulesKind, rule()],
      [notificationsKind, notification()],
      [schedulesKind, schedule()],
    ] as const) {
      const key = kind.keyOf(attributes);
      const plan = planChanges([
        {
          kind: kind.name,
          immutable: kind.immutable,
          impact: kind.impact,
          scope: PRUNE,
          desired: [{ key, attributes, protect: false, ignoreChanges: [] }],
          remote: [
            { id: '1', key, attributes },
            { id: '2', key, attributes },
          ],
        },
      ]);
      expect(plan.changes.map((c) => [c.action, c.impact])).toEqual([['delete', []]]);
      expect(plan.summary.impact).toEqual({ weakens_protection: 0, broadens_access: 0, reduces_audit: 0 });
    }
  });

  it('leaves ignored fields out: an update never applies them', () => {
    const key = applicationRulesKind.keyOf(rule());
    const plan = planChanges([
      {
        kind: 'application_rule',
        immutable: applicationRulesKind.immutable,
        impact: applicationRulesKind.impact,
        scope: PRUNE,
        desired: [
          {
            key,
            attributes: rule({ enabled: false, priority: 'low' }),
            protect: false,
            ignoreChanges: ['enabled'],
          },
        ],
        remote: [{ id: '1', key, attributes: rule() }],
      },
    ]);
    expect(plan.changes.map((c) => [c.action, c.fields, c.impact])).toEqual([['update', ['priority'], []]]);
  });
});

describe('the engine', () => {
  const change: Change = {
    kind: 'group',
    key: 'g',
    action: 'create',
    fields: [],
    before: null,
    after: {},
    impact: [],
  };

  it('runs rows in class order then table order, one entry per distinct class and reason', () => {
    const rows: ImpactRule[] = [
      { class: 'reduces_audit', reasons: () => ['b'] },
      { class: 'weakens_protection', reasons: () => ['a', 'a'] },
      { class: 'reduces_audit', reasons: () => ['b', 'c'] },
      { class: 'broadens_access', reasons: () => ['a'] },
    ];
    expect(classifyChange(change, rows)).toEqual([
      { class: 'weakens_protection', reason: 'a' },
      { class: 'broadens_access', reason: 'a' },
      { class: 'reduces_audit', reason: 'b' },
      { class: 'reduces_audit', reason: 'c' },
    ]);
    expect(classifyChange(change, [])).toEqual([]);
  });

  it('lists at most five values per reason', () => {
    expect(listed('member added', 'members added', [])).toEqual([]);
    expect(listed('member added', 'members added', ['u-1'])).toEqual(['member added: u-1']);
    expect(listed('member added', 'members added', users(6))).toEqual([
      'members added: u-1001, u-1002, u-1003, u-1004, u-1005 and 1 more',
    ]);
  });
});

describe('planChanges attaches impacts and counts them', () => {
  it('counts changes with at least one impact of each class, not reasons', () => {
    const input = (kind: Kind, desired: Attributes[], remote: Attributes[]) => ({
      kind: kind.name,
      immutable: kind.immutable,
      impact: kind.impact,
      scope: PRUNE,
      desired: desired.map((attributes) => ({
        key: kind.keyOf(attributes),
        attributes,
        protect: false,
        ignoreChanges: [],
      })),
      remote: remote.map((attributes, i) => ({
        id: `${kind.name}-${i}`,
        key: kind.keyOf(attributes),
        attributes,
      })),
    });
    const plan = planChanges([
      input(
        applicationRulesKind,
        [rule({ actions: [action('allow')] })],
        [rule(), rule({ description: 'Old' })],
      ),
      input(groupsKind, [group({ is_admin: true, users: users(2) }), group({ name: 'b' })], [group()]),
      input(notificationsKind, [notification({ enabled: false })], [notification()]),
      input(schedulesKind, [], [schedule()]),
    ]);
    expect(plan.changes.map((c) => `${c.action} ${c.kind}.${c.key} ${c.impact.length}`)).toEqual([
      'create group.b 0',
      'update group.soc 2',
      'replace application_rule.shop.example.com/Block admin 2',
      'delete application_rule.shop.example.com/Old 1',
      'update notification.splunk 1',
      'delete schedule.weekly 1',
    ]);
    expect(plan.summary.impact).toEqual({ weakens_protection: 2, broadens_access: 1, reduces_audit: 2 });
  });

  it('attaches nothing for a kind without a table', () => {
    const plan = planChanges([
      {
        kind: 'notification',
        immutable: [],
        scope: PRUNE,
        desired: [],
        remote: [{ id: '1', key: 'splunk', attributes: notification() }],
      },
    ]);
    expect(plan.changes[0]?.impact).toEqual([]);
    expect(plan.summary.impact).toEqual({ weakens_protection: 0, broadens_access: 0, reduces_audit: 0 });
  });
});

describe('drift direction: what was changed outside wafctl', () => {
  /** The plan's change from `live` to `configured`, classified as a drift report does. */
  function drifted(kind: Kind, live: Attributes | undefined, configured: Attributes | undefined): string[] {
    const key = kind.keyOf((configured ?? live) as Attributes);
    const plan = planChanges(
      [
        {
          kind: kind.name,
          immutable: kind.immutable,
          impact: kind.impact,
          scope: PRUNE,
          desired: configured ? [{ key, attributes: configured, protect: false, ignoreChanges: [] }] : [],
          remote: live ? [{ id: 'id-1', key, attributes: live }] : [],
        },
      ],
      { impactDirection: 'drift' },
    );
    return plan.changes.flatMap(impacts);
  }

  it.each([
    [
      'a rule disabled by hand',
      applicationRulesKind,
      rule({ enabled: false }),
      rule(),
      ['weakens_protection: disabled (enabled: true -> false)'],
    ],
    ['a rule deleted by hand', applicationRulesKind, undefined, rule(), ['weakens_protection: deleted']],
    ['a blocking rule added by hand', applicationRulesKind, rule(), undefined, []],
    [
      'an allow rule added by hand',
      applicationRulesKind,
      rule({ actions: [action('allow')] }),
      undefined,
      ['weakens_protection: allowing action added: allow'],
    ],
    [
      'a member added by hand',
      groupsKind,
      group({ users: ['u-1', 'u-2'] }),
      group({ users: ['u-1'] }),
      ['broadens_access: member added: u-2'],
    ],
    ['a member removed by hand', groupsKind, group({ users: [] }), group({ users: ['u-1'] }), []],
    [
      'the SIEM disabled by hand',
      notificationsKind,
      notification({ enabled: false }),
      notification(),
      ['reduces_audit: disabled (enabled: true -> false)'],
    ],
  ])('%s', (_name, kind, live, configured, expected) => {
    expect(drifted(kind as Kind, live, configured)).toEqual(expected);
  });

  it('is the reverse of the apply direction', () => {
    // Applying re-enables the rule: nothing weakens. The hand change that disabled it did.
    expect(impacts(planned(applicationRulesKind, rule({ enabled: false }), rule()))).toEqual([]);
  });
});
