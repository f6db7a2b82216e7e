import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { type Client, notificationInput, startTestEmulator, type WireNotification } from './helpers.js';

let emulator: RunningEmulator;
let api: Client;

beforeAll(async () => {
  ({ emulator, api } = await startTestEmulator());
  // The name the duplicate-name cases collide with, created here: tests run in any order.
  await create({ name: TAKEN });
});
afterAll(() => emulator.close());

type One = { notification: WireNotification };
type List = { notifications: WireNotification[] };

const BASE = '/api/v1/settings/notifications';
const TAKEN = 'splunk';

async function create(overrides: Record<string, unknown>): Promise<WireNotification> {
  const reply = await api.post<One>(BASE, { notification: notificationInput(overrides) });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  const notification = reply.body.data?.notification;
  if (notification === undefined) throw new Error('no data.notification');
  return notification;
}

async function list(): Promise<WireNotification[]> {
  return (await api.get<List>(BASE)).body.data?.notifications ?? [];
}

describe('notification systems', () => {
  it('POST creates and returns data.notification', async () => {
    const input = notificationInput({ name: 'created-here' });
    const reply = await api.post<One>(BASE, { notification: input });
    expect(reply.status).toBe(200);
    expect(reply.body.message).toBe('Notification created');
    expect(reply.body.data?.notification).toEqual(input);
  });

  it('GET list and GET one (the name is the path key, URL-encoded)', async () => {
    await create({ name: 'siem eu/1', type: 'generic' });
    const all = await api.get<List>(BASE);
    expect(all.status).toBe(200);
    expect(all.body.message).toBe('List of notifications');
    expect(all.body.data?.notifications.map((n) => n.name)).toEqual(
      expect.arrayContaining([TAKEN, 'siem eu/1']),
    );
    const one = await api.get<One>(`${BASE}/${encodeURIComponent('siem eu/1')}`);
    expect(one.status).toBe(200);
    expect(one.body.message).toBe('Notification retrieved');
    expect(one.body.data?.notification).toMatchObject({ name: 'siem eu/1', type: 'generic' });
  });

  it('GET one of an unknown name is a 400', async () => {
    const reply = await api.get(`${BASE}/nope`);
    expect(reply.status).toBe(400);
    expect(reply.body.message).toBe('Error retrieving notifications');
  });

  it.each([
    ['an invalid IP address', { settings: { ...settings(), destination_address: '10.0.0.300' } }],
    [
      'a host name instead of an IP',
      { settings: { ...settings(), destination_address: 'logs.example.com' } },
    ],
    ['a port out of range', { settings: { ...settings(), destination_port: 70000 } }],
    ['a port as a string', { settings: { ...settings(), destination_port: '514' } }],
    ['an unknown format', { settings: { ...settings(), format: 'xml' } }],
    ['an unknown protocol', { settings: { ...settings(), protocol: 'http' } }],
    ['an unknown type', { type: 'webhook' }],
    [
      'a missing settings field',
      { settings: { destination_address: '10.0.0.5', destination_port: 514, format: 'cef' } },
    ],
    ['a missing enabled', { enabled: undefined }],
    ['a duplicate name', { name: TAKEN }],
  ])('POST with %s is a 400 and creates nothing', async (_case, overrides) => {
    const before = await list();
    const reply = await api.post(BASE, {
      notification: notificationInput({ name: 'new-one', ...overrides }),
    });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toBe('Error creating notification');
    expect(await list()).toEqual(before);
  });

  it('POST with malformed JSON is a 400', async () => {
    const reply = await api.request('POST', BASE, { rawBody: '{"notification":' });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toBe('Error creating notification');
  });

  it('PUT merges settings: omitted fields keep their value', async () => {
    await create({ name: 'put-me' });
    const reply = await api.put<One>(`${BASE}/put-me`, {
      attrs: { settings: { destination_address: '192.0.2.10', destination_port: 6514 } },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.message).toBe('Notification updated');
    expect(reply.body.data?.notification).toEqual({
      name: 'put-me',
      enabled: true,
      type: 'siem',
      settings: { destination_address: '192.0.2.10', destination_port: 6514, format: 'cef', protocol: 'udp' },
    });
    const toggled = await api.put<One>(`${BASE}/put-me`, { attrs: { enabled: false, type: 'generic' } });
    expect(toggled.body.data?.notification).toMatchObject({
      enabled: false,
      type: 'generic',
      settings: { destination_port: 6514 },
    });
  });

  it.each([
    ['a rename', { name: 'renamed' }],
    ['an invalid IP address', { settings: { destination_address: 'nope' } }],
    ['an invalid port', { settings: { destination_port: 0 } }],
    ['an unknown field', { colour: 'red' }],
  ])('PUT with %s is a 400 and changes nothing', async (_case, attrs) => {
    const before = await create({
      name: `put-invalid-${Object.keys(attrs)[0]}-${JSON.stringify(attrs).length}`,
    });
    const reply = await api.put(`${BASE}/${before.name}`, { attrs });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toBe('Error updating notification');
    expect((await api.get<One>(`${BASE}/${before.name}`)).body.data?.notification).toEqual(before);
  });

  it('PUT of an unknown name is a 400; repeating the current name is allowed', async () => {
    const unknown = await api.put(`${BASE}/nope`, { attrs: { enabled: false } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toBe('Error updating notification');
    await create({ name: 'same-name' });
    const same = await api.put(`${BASE}/same-name`, { attrs: { name: 'same-name', enabled: false } });
    expect(same.status).toBe(200);
  });

  it('DELETE returns the deleted notification; deleting again is a 400', async () => {
    const created = await create({ name: 'delete-me' });
    const reply = await api.delete<One>(`${BASE}/delete-me`);
    expect(reply.status).toBe(200);
    expect(reply.body.message).toBe('Notification deleted');
    expect(reply.body.data?.notification).toEqual(created);
    const again = await api.delete(`${BASE}/delete-me`);
    expect(again.status).toBe(400);
    expect(again.body.message).toBe('Error deleting notification');
  });
});

function settings(): Record<string, unknown> {
  return { destination_address: '10.0.0.5', destination_port: 514, format: 'cef', protocol: 'udp' };
}
