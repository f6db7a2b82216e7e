/**
 * Strict input (issue 17): every string a write endpoint accepts must be well-formed Unicode and
 * within its documented length (names 256, descriptions 1024, targets 1024, expressions 4096, other
 * short text 256, counted in code points). Anything else is the endpoint's documented 400 with an
 * `errors` line naming the field, and changes nothing. Over the real HTTP server: the test client's
 * JSON.stringify sends a lone surrogate as a `\ud800` escape, which JSON.parse turns back into one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import {
  type Client,
  createRules,
  notificationInput,
  ruleInput,
  scheduleAttrs,
  startTestEmulator,
  type WireGroup,
  type WireSchedule,
} from './helpers.js';

const NOTIFICATIONS = '/api/v1/settings/notifications';
const SCHEDULES = '/api/v1/reports/schedules';
const RULES = '/api/v1/application_rules';

let emulator: RunningEmulator;
let api: Client;
const fixture = { group: '', rule: '', schedule: '' };

beforeAll(async () => {
  ({ emulator, api } = await startTestEmulator());
  const group = await api.post<{ group: WireGroup }>('/api/v1/groups', { attrs: { name: 'team' } });
  fixture.group = group.body.data?.group.id ?? '';
  fixture.rule = (await createRules(api, [ruleInput()]))[0] ?? '';
  await api.post(NOTIFICATIONS, { notification: notificationInput() });
  const schedule = await api.post<{ schedule: WireSchedule }>(SCHEDULES, { attrs: scheduleAttrs() });
  fixture.schedule = schedule.body.data?.schedule.id ?? '';
});
afterAll(() => emulator.close());

/** Everything the API lists, to show that a refused write changed nothing. */
async function everything(): Promise<unknown[]> {
  const paths = ['/api/v1/groups', `${RULES}?paginate=false`, NOTIFICATIONS, `${SCHEDULES}?paginate=false`];
  return Promise.all(paths.map(async (path) => (await api.get(path)).body.data));
}

const lone = (at: number) => `must be well-formed Unicode (a lone surrogate at position ${at})`;
const tooLong = (max: number, got: number) => `at most ${max} characters, got ${got}`;
const condition = (overrides: Record<string, unknown>) => ({
  conditions: [
    { operator: 'match', expressions: [{ expression: '^/a' }], targets: [{ target: 'path' }], ...overrides },
  ],
});

interface Case {
  method: 'POST' | 'PUT' | 'DELETE';
  path: () => string;
  /** The JSON body, or a function giving it once the fixture exists. */
  body: unknown;
  message: string;
  error: string;
}

const CASES: Record<string, Case> = {
  'group name, lone high surrogate': {
    method: 'POST',
    path: () => '/api/v1/groups',
    body: { attrs: { name: 'abc\ud800' } },
    message: 'Error creating new group',
    error: `attrs.name: ${lone(3)}`,
  },
  'group name, lone low surrogate': {
    method: 'POST',
    path: () => '/api/v1/groups',
    body: { attrs: { name: '\udc00\ud83d\ude00' } },
    message: 'Error creating new group',
    error: `attrs.name: ${lone(0)}`,
  },
  'group name, 257 characters': {
    method: 'POST',
    path: () => '/api/v1/groups',
    body: { attrs: { name: 'n'.repeat(257) } },
    message: 'Error creating new group',
    error: `attrs.name: ${tooLong(256, 257)}`,
  },
  'group description, 5000 characters': {
    method: 'POST',
    path: () => '/api/v1/groups',
    body: { attrs: { name: 'long', description: 'd'.repeat(5000) } },
    message: 'Error creating new group',
    error: `attrs.description: ${tooLong(1024, 5000)}`,
  },
  'group member id': {
    method: 'POST',
    path: () => '/api/v1/groups',
    body: { attrs: { name: 'members', user_ids: ['u-1001', 'u\ud800'] } },
    message: 'Error creating new group',
    error: `attrs.user_ids.1: ${lone(1)}`,
  },
  'group permission service_id': {
    method: 'POST',
    path: () => '/api/v1/groups',
    body: { attrs: { name: 'perm', permissions: [{ permission_id: 0, service_id: '\ud800' }] } },
    message: 'Error creating new group',
    error: `attrs.permissions.0.service_id: ${lone(0)}`,
  },
  'group update, description': {
    method: 'PUT',
    path: () => `/api/v1/groups/${fixture.group}`,
    body: { attrs: { description: 'ok\udfff' } },
    message: 'Error updating the group.',
    error: `attrs.description: ${lone(2)}`,
  },
  'rule expression (nested), second rule of a bulk create': {
    method: 'POST',
    path: () => RULES,
    body: { rules: [ruleInput(), ruleInput(condition({ expressions: [{ expression: '^/a\ud800' }] }))] },
    message: 'Error creating rules',
    error: `rules.1.conditions.0.expressions.0.expression: ${lone(3)}`,
  },
  'rule expression, 4097 characters': {
    method: 'POST',
    path: () => RULES,
    body: { rules: [ruleInput(condition({ expressions: [{ expression: 'e'.repeat(4097) }] }))] },
    message: 'Error creating rules',
    error: `rules.0.conditions.0.expressions.0.expression: ${tooLong(4096, 4097)}`,
  },
  'rule target': {
    method: 'POST',
    path: () => RULES,
    body: { rules: [ruleInput(condition({ targets: [{ target: 'request:\ud800' }] }))] },
    message: 'Error creating rules',
    error: `rules.0.conditions.0.targets.0.target: ${lone(8)}`,
  },
  'rule description, 1025 characters': {
    method: 'POST',
    path: () => RULES,
    body: { rules: [ruleInput({ description: 'd'.repeat(1025) })] },
    message: 'Error creating rules',
    error: `rules.0.description: ${tooLong(1024, 1025)}`,
  },
  'rule firewall name': {
    method: 'POST',
    path: () => RULES,
    body: { rules: [ruleInput({ actions: [{ firewall_action: 'block', firewall_name: 'waf\ud800' }] })] },
    message: 'Error creating rules',
    error: `rules.0.actions.0.firewall_name: ${lone(3)}`,
  },
  'rule rq_host, 300 characters': {
    method: 'POST',
    path: () => RULES,
    body: { rules: [ruleInput({ rq_host: 'h'.repeat(300) })] },
    message: 'Error creating rules',
    error: `rules.0.rq_host: ${tooLong(256, 300)}`,
  },
  'rule alert id': {
    method: 'POST',
    path: () => RULES,
    body: { rules: [ruleInput({ alert_set_ids: ['\ud800'] })] },
    message: 'Error creating rules',
    error: `rules.0.alert_set_ids.0: ${lone(0)}`,
  },
  'rule update, description': {
    method: 'PUT',
    path: () => `${RULES}/${fixture.rule}`,
    body: { attrs: { description: '\ud800' } },
    message: 'Error updating the rule',
    error: `attrs.description: ${lone(0)}`,
  },
  'rule bulk update, rule id': {
    method: 'PUT',
    path: () => `${RULES}/`,
    body: () => ({ attrs: { priority: 'low' }, rule_ids: [fixture.rule, '1\ud800'] }),
    message: 'Error updating the rule',
    error: `rule_ids.1: ${lone(1)}`,
  },
  'rule delete, rule id': {
    method: 'DELETE',
    path: () => RULES,
    body: { rule_ids: ['\ud800'] },
    message: 'Error deleting rules.',
    error: `rule_ids.0: ${lone(0)}`,
  },
  'notification name': {
    method: 'POST',
    path: () => NOTIFICATIONS,
    body: { notification: notificationInput({ name: '\ud800' }) },
    message: 'Error creating notification',
    error: `notification.name: ${lone(0)}`,
  },
  'notification name, 257 characters of 2 code units each': {
    method: 'POST',
    path: () => NOTIFICATIONS,
    body: { notification: notificationInput({ name: '\ud83d\ude00'.repeat(257) }) },
    message: 'Error creating notification',
    error: `notification.name: ${tooLong(256, 257)}`,
  },
  'notification update, destination address': {
    method: 'PUT',
    path: () => `${NOTIFICATIONS}/splunk`,
    body: { attrs: { settings: { destination_address: '10.0.0.\ud800' } } },
    message: 'Error updating notification',
    error: `attrs.settings.destination_address: ${lone(7)}`,
  },
  'schedule name': {
    method: 'POST',
    path: () => SCHEDULES,
    body: { attrs: scheduleAttrs({ name: 'weekly\ud800' }) },
    message: 'Error creating new schedule',
    error: `attrs.name: ${lone(6)}`,
  },
  'schedule recipient (checked before the e-mail form)': {
    method: 'POST',
    path: () => SCHEDULES,
    body: { attrs: scheduleAttrs({ name: 'other', send_to: ['secops\ud800@example.com'] }) },
    message: 'Error creating new schedule',
    error: `attrs.send_to.0: ${lone(6)}`,
  },
  'schedule host, 257 characters': {
    method: 'POST',
    path: () => SCHEDULES,
    body: { attrs: scheduleAttrs({ name: 'other', hosts: ['h'.repeat(257)] }) },
    message: 'Error creating new schedule',
    error: `attrs.hosts.0: ${tooLong(256, 257)}`,
  },
  'schedule update, timezone': {
    method: 'PUT',
    path: () => `${SCHEDULES}/${fixture.schedule}`,
    body: { attrs: { timezone: 'Europe/\ud800' } },
    message: 'Error updating schedule',
    error: `attrs.timezone: ${lone(7)}`,
  },
  'schedule delete, id': {
    method: 'DELETE',
    path: () => '/api/v1/reports/registries',
    body: { schedules_ids: ['\ud800'] },
    message: 'Error deleting report schedules',
    error: `schedules_ids.0: ${lone(0)}`,
  },
};

describe('strict input: a lone surrogate or an over-long string is a 400 naming the field', () => {
  it.each(Object.entries(CASES))('%s', async (_name, c) => {
    const before = await everything();
    const body = typeof c.body === 'function' ? c.body() : c.body;
    const reply = await api.request(c.method, c.path(), { body });
    expect(reply.status, JSON.stringify(reply.body)).toBe(400);
    expect(reply.body).toEqual({ status: 'error', message: c.message, errors: [c.error] });
    expect(await everything()).toEqual(before);
  });

  it('a raw `\\ud800` escape in the JSON text is refused too', async () => {
    const notification = JSON.stringify(notificationInput({ name: 'PLACEHOLDER' }));
    const rawBody = `{"notification": ${notification.replace('PLACEHOLDER', 'siem-\\ud800')}}`;
    const reply = await api.request('POST', NOTIFICATIONS, { rawBody });
    expect(reply.status).toBe(400);
    expect(reply.body.errors).toEqual([`notification.name: ${lone(5)}`]);
  });
});

describe('strict input: what stays accepted', () => {
  it('lengths up to the maxima, counted in code points (an emoji is one)', async () => {
    const group = await api.post('/api/v1/groups', {
      attrs: { name: '\ud83d\ude00'.repeat(256), description: 'd'.repeat(1024) },
    });
    expect(group.status, JSON.stringify(group.body)).toBe(200);
    const rules = await api.post(RULES, {
      rules: [
        ruleInput({
          ...condition({ expressions: [{ expression: 'e'.repeat(4096) }] }),
          rq_host: 'h'.repeat(256),
        }),
      ],
    });
    expect(rules.status, JSON.stringify(rules.body)).toBe(200);
  });

  it('a notification named with non-ASCII text is addressable by its name in the URL', async () => {
    const name = 'siem-\u00e9t\u00e9-\ud83d\ude00';
    expect((await api.post(NOTIFICATIONS, { notification: notificationInput({ name }) })).status).toBe(200);
    const path = `${NOTIFICATIONS}/${encodeURIComponent(name)}`;
    expect((await api.get(path)).status).toBe(200);
    expect((await api.put(path, { attrs: { enabled: false } })).status).toBe(200);
    expect((await api.delete(path)).status).toBe(200);
  });

  it('a path naming a lone surrogate (percent-encoded, so not UTF-8) is an unknown route: 404', async () => {
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const body = method === 'PUT' ? { attrs: { enabled: false } } : undefined;
      const reply = await api.request(method, `${NOTIFICATIONS}/splunk%ED%A0%80`, { body });
      expect(reply.status, method).toBe(404);
      expect(reply.body).toEqual({ status: 'error', message: 'Not found' });
    }
  });
});
