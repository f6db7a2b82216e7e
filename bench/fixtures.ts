/**
 * Deterministic synthetic objects. Object `i` of a kind has one shape in the API (what the harness
 * seeds) and one in the desired-state YAML (what wafctl is given); the two describe the same object,
 * so a configuration written from them plans no changes against a firewall seeded from them.
 */
import type { ApplicationRuleInput, GroupInput, NotificationInput, ScheduleInput } from '../src/api/index.js';

/** Users of the emulator's demo directory (groups may only name existing users). */
const DEMO_USER_IDS = ['u-1001', 'u-1002', 'u-1003', 'u-1004', 'u-1005', 'u-1006'];
const HOSTS = 100;

export const BENCH_USERNAME = 'bench-bot';

const host = (i: number) => `app-${i % HOSTS}.bench.example.com`;

/** Mostly one condition and one action, as most rules are; some carry more, so sets get sorted. */
export function ruleInput(i: number, priority = 'high'): ApplicationRuleInput {
  const expressions = i % 4 === 0 ? [`^/probe/${i}/`, `^/probe-alt/${i}/`] : [`^/probe/${i}/`];
  const conditions: ApplicationRuleInput['conditions'] = [
    {
      operator: 'match',
      expressions: expressions.map((expression) => ({ expression })),
      targets: [{ target: 'path' }],
    },
  ];
  if (i % 5 === 0) {
    conditions.push({
      operator: 'contains',
      not_op: true,
      expressions: [{ expression: 'sqlmap' }, { expression: 'nikto' }],
      targets: [{ target: 'request:user-agent' }],
    });
  }
  const actions = [{ firewall_action: 'block', firewall_name: 'waf-eu-1' }];
  if (i % 3 === 0) actions.push({ firewall_action: 'block', firewall_name: 'waf-us-1' });
  return {
    rq_host: host(i),
    description: `Block probe ${i}`,
    priority,
    username: BENCH_USERNAME,
    conditions,
    actions,
  };
}

export function ruleYaml(i: number, priority = 'high') {
  const input = ruleInput(i, priority);
  return {
    rq_host: input.rq_host,
    description: input.description,
    priority: input.priority,
    conditions: input.conditions.map((c) => ({
      operator: c.operator,
      ...(c.not_op ? { not_op: true } : {}),
      expressions: c.expressions.map((e) => e.expression),
      targets: c.targets.map((t) => t.target),
    })),
    actions: input.actions,
  };
}

export function groupInput(i: number): GroupInput {
  return {
    name: `team-${i}`,
    description: `Synthetic team ${i}`,
    is_admin: false,
    permissions: [{ permission_id: 0, service_id: `svc-${i % 10}` }],
    user_ids: [DEMO_USER_IDS[0] ?? 'u-1001', DEMO_USER_IDS[1 + (i % 5)] ?? 'u-1002'],
  };
}

export function groupYaml(i: number) {
  const input = groupInput(i);
  return {
    name: input.name,
    description: input.description,
    permissions: [{ permission: 'Explore alerts', service_id: `svc-${i % 10}` }],
    users: input.user_ids,
  };
}

export function notificationInput(i: number): NotificationInput {
  return {
    name: `siem-${i}`,
    type: 'siem',
    enabled: true,
    settings: {
      destination_address: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
      destination_port: 514,
      format: 'cef',
      protocol: 'udp',
    },
  };
}

export const notificationYaml = notificationInput;

export function scheduleInput(i: number): ScheduleInput {
  return {
    name: `report-${i}`,
    hosts: [host(i)],
    services: null,
    type: 'summary',
    schedule: 'weekly',
    send_to: [`team-${i}@example.com`],
    send_via: 'email',
    timezone: 'Europe/Paris',
  };
}

export const scheduleYaml = scheduleInput;

/** `[0, 1, ..., n - 1]`. */
export const indices = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
