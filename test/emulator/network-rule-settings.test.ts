/** /api/v1/settings/rules in the emulator: GET, PUT (partial), validation and who may. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { type Client, startTestEmulator } from './helpers.js';

const PATH = '/api/v1/settings/rules';
const SEED = {
  users: [
    { id: 'u-1', username: 'nogroups', token: 'token-none' },
    { id: 'u-2', username: 'loader', token: 'token-load-network' },
  ],
};
type Settings = { settings: { automation: Record<string, unknown>; expire_strategy: string } };

let emulator: RunningEmulator;
let api: Client;
beforeAll(async () => {
  ({ emulator, api } = await startTestEmulator({ seed: SEED }));
  await api.post('/api/v1/groups', {
    attrs: { name: 'loaders', permissions: [{ permission_id: 3, service_id: '' }], user_ids: ['u-2'] },
  });
});
afterAll(() => emulator.close());

describe('/api/v1/settings/rules', () => {
  it('GET answers the vendor defaults, PUT changes only the fields sent', async () => {
    const got = await api.get<Settings>(PATH);
    expect(got.status).toBe(200);
    expect(got.body.message).toBe('List of rules settings');
    expect(got.body.data?.settings).toEqual({
      automation: { default_duration_minutes: 1440, enable: false, update_firewall: false, whitelist: [] },
      expire_strategy: 'delete',
    });
    const put = await api.put<Settings>(PATH, {
      automation: { update_firewall: true, whitelist: ['10.0.0.1', '2001:db8::/32'] },
      expire_strategy: 'disable',
    });
    expect(put.status).toBe(200);
    expect(put.body.message).toBe('Rules settings updated');
    expect(put.body.data?.settings).toEqual({
      automation: {
        default_duration_minutes: 1440,
        enable: false,
        update_firewall: true,
        whitelist: ['10.0.0.1', '2001:db8::/32'],
      },
      expire_strategy: 'disable',
    });
    expect((await api.get<Settings>(PATH)).body.data?.settings.expire_strategy).toBe('disable');
  });

  it.each([
    ['a bad address', { automation: { whitelist: ['10.0.0.256'] } }],
    ['a bad prefix', { automation: { whitelist: ['10.0.0.0/33'] } }],
    ['an IPv6 prefix too long', { automation: { whitelist: ['2001:db8::/129'] } }],
    ['an unknown field', { automation: { whitelist: [] }, other: 1 }],
    ['a wrong type', { automation: { enable: 'yes' } }],
    ['an unknown strategy', { expire_strategy: 'archive' }],
  ])('PUT with %s is a 400 and changes nothing', async (_, body) => {
    const before = (await api.get<Settings>(PATH)).body.data;
    const put = await api.put(PATH, body);
    expect(put.status).toBe(400);
    expect(put.body.message).toBe('Error updating rules settings');
    expect((await api.get<Settings>(PATH)).body.data).toEqual(before);
  });

  it('a user needs "Load network rules" (or admin): else 403', async () => {
    expect((await api.as('token-none').get(PATH)).status).toBe(403);
    expect((await api.as('token-none').put(PATH, { expire_strategy: 'delete' })).status).toBe(403);
    expect((await api.as(null).get(PATH)).status).toBe(403);
    expect((await api.as('token-load-network').get(PATH)).status).toBe(200);
    expect((await api.as('token-load-network').put(PATH, { expire_strategy: 'delete' })).status).toBe(200);
  });
});
