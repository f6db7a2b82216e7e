import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import {
  type Client,
  notificationInput,
  ruleInput,
  scheduleAttrs,
  startTestEmulator,
  type WireGroup,
} from './helpers.js';

const TOKENS = {
  none: 'token-nogroups',
  explore: 'token-explore',
  handle: 'token-handle',
  admin: 'token-isadmin',
} as const;

const SEED = {
  users: [
    { id: 'u-1', username: 'nogroups', token: TOKENS.none },
    { id: 'u-2', username: 'explorer', token: TOKENS.explore },
    { id: 'u-3', username: 'handler', token: TOKENS.handle },
    { id: 'u-4', username: 'boss', token: TOKENS.admin },
    { id: 'u-5', username: 'tokenless' },
  ],
};

let emulator: RunningEmulator;
let admin: Client;
let handleGroup: WireGroup;

beforeAll(async () => {
  ({ emulator, api: admin } = await startTestEmulator({ seed: SEED }));
  const group = async (attrs: Record<string, unknown>) =>
    (await admin.post<{ group: WireGroup }>('/api/v1/groups', { attrs })).body.data?.group;
  await group({ name: 'explorers', permissions: [{ permission_id: 0, service_id: '' }], user_ids: ['u-2'] });
  const handlers = await group({
    name: 'handlers',
    permissions: [{ permission_id: 1, service_id: 'svc-only-this-one' }],
    user_ids: ['u-3'],
  });
  if (handlers === undefined) throw new Error('could not create the handlers group');
  handleGroup = handlers;
  await group({ name: 'superusers', is_admin: true, user_ids: ['u-4'] });
  await admin.post('/api/v1/application_rules', { rules: [ruleInput()] });
});
afterAll(() => emulator.close());

const FORBIDDEN = { status: 'error', message: 'Forbidden' };

/** One request per privilege the contract distinguishes. */
const PROBES = {
  'read rules': async (api) => (await api.get('/api/v1/rules?paginate=false')).status,
  'read application rules': async (api) => (await api.get('/api/v1/application_rules?paginate=false')).status,
  'write application rules': async (api) =>
    (await api.post('/api/v1/application_rules', { rules: [ruleInput()] })).status,
  'read groups': async (api) => (await api.get('/api/v1/groups')).status,
  'write groups': async (api) =>
    (await api.post('/api/v1/groups', { attrs: { name: `g-${Math.random()}` } })).status,
  'read notifications': async (api) => (await api.get('/api/v1/settings/notifications')).status,
  'write notifications': async (api) =>
    (
      await api.post('/api/v1/settings/notifications', {
        notification: notificationInput({ name: `n-${Math.random()}` }),
      })
    ).status,
  'read schedules': async (api) => (await api.get('/api/v1/reports/schedules?paginate=false')).status,
  'write schedules': async (api) =>
    (await api.post('/api/v1/reports/schedules', { attrs: scheduleAttrs({ name: `s-${Math.random()}` }) }))
      .status,
} satisfies Record<string, (api: Client) => Promise<number>>;

const EXPECTED: Record<keyof typeof TOKENS, string[]> = {
  none: ['read schedules'],
  explore: ['read rules', 'read application rules', 'read schedules'],
  handle: ['read rules', 'read application rules', 'write application rules', 'read schedules'],
  admin: Object.keys(PROBES),
};

describe('authentication', () => {
  it.each([
    ['no Authorization header', { token: null }],
    ['a malformed header (no scheme)', { authorization: TOKENS.handle }],
    ['a malformed header (Basic)', { authorization: `Basic ${TOKENS.handle}` }],
    ['a malformed header (Bearer without token)', { authorization: 'Bearer' }],
    ['an unknown token', { token: 'not-a-known-token' }],
  ])('%s is a 403 Forbidden', async (_case, options) => {
    const reply = await admin.get('/api/v1/rules?paginate=false', options);
    expect(reply.status).toBe(403);
    expect(reply.body).toEqual(FORBIDDEN);
  });

  it('the admin token may do everything', async () => {
    for (const [name, probe] of Object.entries(PROBES)) expect(await probe(admin), name).toBe(200);
  });

  it.each(Object.keys(EXPECTED) as (keyof typeof TOKENS)[])('privileges of the "%s" user', async (who) => {
    const api = admin.as(TOKENS[who]);
    for (const [name, probe] of Object.entries(PROBES)) {
      expect(await probe(api), `${who}: ${name}`).toBe(EXPECTED[who].includes(name) ? 200 : 403);
    }
  });

  it('a forbidden write changes nothing and has the exact 403 body', async () => {
    const api = admin.as(TOKENS.explore);
    const before = (await admin.get('/api/v1/application_rules?paginate=false')).body.pagination?.total_count;
    const reply = await api.post('/api/v1/application_rules', { rules: [ruleInput()] });
    expect(reply.body).toEqual(FORBIDDEN);
    expect((await admin.get('/api/v1/application_rules?paginate=false')).body.pagination?.total_count).toBe(
      before,
    );
  });

  it('privileges follow the groups of the current store, immediately', async () => {
    const newcomer = admin.as(TOKENS.none);
    expect(await PROBES['write application rules'](newcomer)).toBe(403);
    await admin.put(`/api/v1/groups/${handleGroup.id}`, { attrs: { user_ids: ['u-3', 'u-1'] } });
    expect(await PROBES['write application rules'](newcomer)).toBe(200);
    await admin.put(`/api/v1/groups/${handleGroup.id}`, { attrs: { user_ids: ['u-3'] } });
    expect(await PROBES['write application rules'](newcomer)).toBe(403);
  });

  it('a schedule created by an is_admin member is scheduled_by that user', async () => {
    const reply = await admin
      .as(TOKENS.admin)
      .post<{ schedule: { scheduled_by: string } }>('/api/v1/reports/schedules', {
        attrs: scheduleAttrs({ name: 'by-boss' }),
      });
    expect(reply.body.data?.schedule.scheduled_by).toBe('boss');
  });

  it('the seed replaces the demo directory: demo user ids are unknown', async () => {
    const reply = await admin.post('/api/v1/groups', { attrs: { name: 'demo-users', user_ids: ['u-1001'] } });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toBe('Error creating new group');
    const seeded = await admin.post<{ group: WireGroup }>('/api/v1/groups', {
      attrs: { name: 'seeded', user_ids: ['u-5'] },
    });
    expect(seeded.body.data?.group.users).toEqual([{ id: 'u-5', username: 'tokenless' }]);
  });

  it('/__emulator/stats needs no token', async () => {
    const response = await fetch(`${emulator.url}/__emulator/stats`);
    expect(response.status).toBe(200);
  });
});

describe('authentication without any token-holding user', () => {
  it('only the admin token works, and the demo users can be group members', async () => {
    const { emulator: demo, api } = await startTestEmulator();
    try {
      expect((await api.get('/api/v1/groups')).status).toBe(200);
      expect((await api.get('/api/v1/groups', { token: TOKENS.handle })).status).toBe(403);
      const reply = await api.post<{ group: WireGroup }>('/api/v1/groups', {
        attrs: { name: 'demo', user_ids: ['u-1001', 'u-1006'] },
      });
      expect(reply.body.data?.group.users).toEqual([
        { id: 'u-1001', username: 'alice' },
        { id: 'u-1006', username: 'frank' },
      ]);
    } finally {
      await demo.close();
    }
  });
});
