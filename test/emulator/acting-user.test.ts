/**
 * Who and when (issues 44 and 50): a rule's `username` is the spec's creator: the body's `username`
 * on create, else the acting user (the token's user, the signed-in user, `admin` for the admin
 * token); an update records the acting user. `timestamp_update` and a group's `updated_at` are the
 * time of each write, on the emulator's clock (a manual one here).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import {
  MANUAL_CLOCK_START,
  type ManualClock,
  manualClock,
  ruleWritersSeed,
  userToken,
} from '../helpers/firewall.js';
import {
  type Client,
  createRules,
  ruleInput,
  startTestEmulator,
  type WireApplicationRule,
  type WireGroup,
} from './helpers.js';

const START_MICROS = MANUAL_CLOCK_START * 1000;
const MINUTE = 60_000;

let clock: ManualClock;
let emulator: RunningEmulator;
let admin: Client;

beforeEach(async () => {
  clock = manualClock();
  // carol (u-1003) signs in: the same user, with a password instead of her token.
  const seed = ruleWritersSeed(['alice', 'bob', 'carol']);
  const carol = seed.users?.find((user) => user.username === 'carol');
  if (carol !== undefined) carol.password = 'carol-password-0001';
  ({ emulator, api: admin } = await startTestEmulator({ clock, seed }));
});
afterEach(() => emulator.close());

async function getRule(id: string): Promise<WireApplicationRule> {
  const reply = await admin.get<{ rule: WireApplicationRule }>(`/api/v1/application_rules/${id}`);
  if (reply.body.data === undefined) throw new Error(`GET rule ${id}: ${JSON.stringify(reply.body)}`);
  return reply.body.data.rule;
}

const who = (rule: WireApplicationRule) => ({
  username: rule.username,
  timestamp_create: rule.timestamp_create,
  timestamp_update: rule.timestamp_update,
});

/** A rule's input without a creator: the emulator then records the acting user. */
const unnamed = () => {
  const { username: _username, ...input } = ruleInput();
  return input;
};

describe('application rules record their creator, the acting user and the time', () => {
  it('create stores the creator the body names, whoever calls; an update by another user names that user', async () => {
    const [id = ''] = await createRules(admin.as(userToken('alice')), [
      ruleInput({ username: 'gitops-bot' }),
    ]);
    expect(who(await getRule(id))).toEqual({
      username: 'gitops-bot',
      timestamp_create: START_MICROS,
      timestamp_update: START_MICROS,
    });

    clock.advance(2 * MINUTE);
    const put = await admin
      .as(userToken('bob'))
      .put(`/api/v1/application_rules/${id}`, { attrs: { priority: 'low' } });
    expect(put.status).toBe(200);
    expect(who(await getRule(id))).toEqual({
      username: 'bob',
      timestamp_create: START_MICROS,
      timestamp_update: START_MICROS + 2 * MINUTE * 1000,
    });
  });

  it("a create that names no creator records the token's user", async () => {
    const [id = ''] = await createRules(admin.as(userToken('alice')), [unnamed()]);
    expect((await getRule(id)).username).toBe('alice');
  });

  it.each([
    ['empty', ''],
    ['over 256 characters', 'x'.repeat(257)],
    ['not a string', 7],
  ])('a creator that is %s is refused (400), and nothing is created', async (_what, username) => {
    const reply = await admin.post('/api/v1/application_rules', { rules: [ruleInput({ username })] });
    expect(reply.status).toBe(400);
    expect(JSON.stringify(reply.body.errors)).toContain('rules.0.username');
    const listed = await admin.get<{ application_rules: WireApplicationRule[] }>(
      '/api/v1/application_rules?paginate=false',
    );
    expect(listed.body.data?.application_rules).toEqual([]);
  });

  it('a bulk update names its caller on every rule it touches, and only on those', async () => {
    const ids = await createRules(admin.as(userToken('alice')), [unnamed(), unnamed(), unnamed()]);
    clock.advance(MINUTE);
    await admin.as(userToken('bob')).put('/api/v1/application_rules/', {
      attrs: { enabled: false },
      rule_ids: [ids[0], ids[2]],
    });
    const rules = await Promise.all(ids.map((id) => getRule(id)));
    expect(rules.map((r) => r.username)).toEqual(['bob', 'alice', 'bob']);
    // One time for the whole request; the untouched rule keeps its creation time.
    const later = START_MICROS + MINUTE * 1000;
    expect(rules.map((r) => r.timestamp_update)).toEqual([later, START_MICROS + 1, later]);
  });

  it('the admin token writes as "admin"', async () => {
    const [id = ''] = await createRules(admin, [unnamed()]);
    expect((await getRule(id)).username).toBe('admin');
    await admin.as(userToken('alice')).put(`/api/v1/application_rules/${id}`, { attrs: { priority: 'low' } });
    expect((await getRule(id)).username).toBe('alice');
    await admin.put(`/api/v1/application_rules/${id}`, { attrs: { priority: 'high' } });
    expect((await getRule(id)).username).toBe('admin');
  });

  it('a signed-in user writes under its own name', async () => {
    const signin = await admin
      .as(null)
      .post<{ token: string }>('/api/v1/signin', { username: 'carol', password: 'carol-password-0001' });
    const token = signin.body.data?.token ?? '';
    const [id = ''] = await createRules(admin.as(token), [unnamed()]);
    expect((await getRule(id)).username).toBe('carol');
    await admin.as(token).put(`/api/v1/application_rules/${id}`, { attrs: { priority: 'low' } });
    expect((await getRule(id)).username).toBe('carol');
  });

  it('rules created in one request get distinct, increasing timestamps on a clock that stands still', async () => {
    const ids = await createRules(admin.as(userToken('alice')), [ruleInput(), ruleInput()]);
    const rules = await Promise.all(ids.map((id) => getRule(id)));
    expect(rules.map((r) => r.timestamp_create)).toEqual([START_MICROS, START_MICROS + 1]);
  });

  it('the username filter finds a rule by the creator its create named, then by its last writer', async () => {
    const ids = await createRules(admin.as(userToken('alice')), [
      ruleInput({ username: 'gitops-bot' }),
      ruleInput({ username: 'gitops-bot' }),
    ]);
    const named = async (username: string) =>
      (
        await admin.get<{ application_rules: WireApplicationRule[] }>(
          `/api/v1/application_rules?paginate=false&username=${username}`,
        )
      ).body.data?.application_rules.map((r) => r.id);
    expect(await named('gitops-bot')).toEqual(ids);
    expect(await named('alice')).toEqual([]);
    await admin
      .as(userToken('bob'))
      .put(`/api/v1/application_rules/${ids[1]}`, { attrs: { priority: 'low' } });
    expect(await named('gitops-bot')).toEqual([ids[0]]);
    expect(await named('bob')).toEqual([ids[1]]);
  });
});

describe('groups record the time of each write', () => {
  it('created_at and updated_at come from the clock; an update moves updated_at only', async () => {
    const created = await admin.post<{ group: WireGroup }>('/api/v1/groups', {
      attrs: { name: 'night-shift' },
    });
    const group = created.body.data?.group;
    const start = new Date(MANUAL_CLOCK_START).toISOString();
    expect(group).toMatchObject({ created_at: start, updated_at: start });

    clock.advance(5 * MINUTE);
    const updated = await admin.put<{ group: WireGroup }>(`/api/v1/groups/${group?.id}`, {
      attrs: { description: 'after hours' },
    });
    expect(updated.body.data?.group).toMatchObject({
      created_at: start,
      updated_at: new Date(MANUAL_CLOCK_START + 5 * MINUTE).toISOString(),
    });
  });
});
