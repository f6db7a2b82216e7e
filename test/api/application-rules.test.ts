import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { InvalidResponseError, UnconfirmedWriteError } from '../../src/api/index.js';
import {
  answer,
  applicationRule,
  BASE,
  failure,
  firewallAction,
  makeClient,
  ok,
  pagination,
  TOKEN,
  useNock,
} from './helpers.js';

useNock();

const MULTIPART = 'multipart/mixed';
const newRule = {
  actions: [{ firewall_action: 'block', firewall_name: 'waf-eu-1' }],
  conditions: [
    {
      operator: 'match',
      not_op: false,
      expressions: [{ expression: '^/admin' }],
      targets: [{ target: 'path' }],
    },
  ],
  description: 'Block admin panel from outside',
  priority: 'high',
  rq_host: 'shop.example.com',
  username: 'gitops-bot',
  enabled: true,
};

describe('application rules: reads', () => {
  it('lists with paginate, page, page_size and every kind of filter encoding', async () => {
    const { client } = makeClient();
    const recorded = answer(nock(BASE).get('/api/v1/application_rules').query(true), 200, {
      ...ok({ application_rules: [applicationRule()] }, 'List of rules'),
      pagination: pagination(0, 1, 1, 1),
    });

    const rows = await client.applicationRules.list({
      rq_host_list: ['shop.example.com', 'api.example.com'],
      enabled: false,
      timestamp_create_start: 1_700_000_000_000_000,
      username_search: 'bot & co',
    });

    expect(rows.map((r) => r.id)).toEqual(['ar-1']);
    expect(recorded[0]?.uri).toBe(
      '/api/v1/application_rules?rq_host_list[]=shop.example.com&rq_host_list[]=api.example.com' +
        '&enabled=false&timestamp_create_start=1700000000000000&username_search=bot%20%26%20co' +
        '&paginate=true&page=0&page_size=1000',
    );
    expect(recorded[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('marks full rows complete and normalises a single `action` row to an incomplete one', async () => {
    const { client } = makeClient();
    const { actions: _a, conditions: _c, ...bare } = applicationRule({ id: 'ar-2' });
    const rows = [
      applicationRule(),
      { ...bare, action: firewallAction('ar-2') },
      applicationRule({ id: 'ar-3' }),
    ];
    delete (rows[2] as Record<string, unknown>).conditions;
    answer(nock(BASE).get('/api/v1/application_rules').query(true), 200, {
      ...ok({ application_rules: rows }),
      pagination: pagination(0, 3, 3, 1),
    });

    const [full, single, noConditions] = await client.applicationRules.list();

    expect(full?.complete).toBe(true);
    expect(full?.conditions).toHaveLength(1);
    expect(single?.complete).toBe(false);
    expect(single?.actions).toEqual([firewallAction('ar-2')]);
    expect(single?.conditions).toEqual([]);
    expect(noConditions?.complete).toBe(false);
    expect(noConditions?.actions).toHaveLength(1);
  });

  it('gets one from data.rule, whatever the spelling of the message', async () => {
    const { client } = makeClient();
    answer(
      nock(BASE).get('/api/v1/application_rules/ar-1'),
      200,
      ok({ rule: applicationRule() }, 'Rule retrieved.'),
    );
    answer(
      nock(BASE).get('/api/v1/application_rules/ar-1'),
      200,
      ok({ rule: applicationRule() }, 'Rule retrieved'),
    );

    for (const _ of [1, 2]) {
      const rule = await client.applicationRules.get('ar-1');
      expect(rule.complete).toBe(true);
      expect(rule.actions[0]?.firewall_name).toBe('waf-eu-1');
      expect(rule.conditions[0]?.targets).toEqual([{ target: 'path', condition_id: 'c-1' }]);
    }
  });

  it('refuses a get-one answer that is not the full rule, so hydration cannot loop', async () => {
    const { client } = makeClient();
    const { actions: _a, ...withoutActions } = applicationRule();
    answer(
      nock(BASE).get('/api/v1/application_rules/ar-1'),
      200,
      ok({ rule: { ...withoutActions, action: firewallAction() } }),
    );

    await expect(client.applicationRules.get('ar-1')).rejects.toMatchObject({
      code: 'API_RESPONSE_INVALID',
      message: expect.stringContaining('[GET] /api/v1/application_rules/ar-1: invalid response: data.rule'),
    });
  });
});

describe('application rules: writes are JSON sent as multipart/mixed', () => {
  it('creates many with POST {rules} and returns the rule_ids', async () => {
    const { client } = makeClient();
    const calls = answer(
      nock(BASE).post('/api/v1/application_rules'),
      200,
      ok({ rule_ids: ['ar-7', 'ar-8'] }, 'Rules created'),
    );

    const ids = await client.applicationRules.create([newRule, { ...newRule, rq_host: 'api.example.com' }]);

    expect(ids).toEqual(['ar-7', 'ar-8']);
    expect(calls[0]?.headers['content-type']).toBe(MULTIPART);
    expect(calls[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(calls[0]?.body).toEqual({ rules: [newRule, { ...newRule, rq_host: 'api.example.com' }] });
  });

  it('updates one with PUT /application_rules/{id} and {attrs}', async () => {
    const { client } = makeClient();
    const calls = answer(
      nock(BASE).put('/api/v1/application_rules/ar-1'),
      200,
      ok({ rule_ids: ['ar-1'] }, 'Rules updated'),
    );

    expect(await client.applicationRules.update('ar-1', { priority: 'low', enabled: false })).toEqual([
      'ar-1',
    ]);
    expect(calls[0]?.headers['content-type']).toBe(MULTIPART);
    expect(calls[0]?.body).toEqual({ attrs: { priority: 'low', enabled: false } });
  });

  it('updates many with PUT on the trailing-slash path and {attrs, rule_ids}', async () => {
    const { client } = makeClient();
    const calls = answer(
      nock(BASE).put('/api/v1/application_rules/'),
      200,
      ok({ rule_ids: ['ar-1', 'ar-2'] }),
    );

    expect(await client.applicationRules.updateMany(['ar-1', 'ar-2'], { description: 'x' })).toEqual([
      'ar-1',
      'ar-2',
    ]);
    expect(calls[0]?.uri).toBe('/api/v1/application_rules/');
    expect(calls[0]?.headers['content-type']).toBe(MULTIPART);
    expect(calls[0]?.body).toEqual({ attrs: { description: 'x' }, rule_ids: ['ar-1', 'ar-2'] });
  });

  it('deletes many with DELETE {rule_ids}', async () => {
    const { client } = makeClient();
    const calls = answer(
      nock(BASE).delete('/api/v1/application_rules'),
      200,
      ok({ rule_ids: ['ar-1'] }, 'Rules deleted'),
    );

    expect(await client.applicationRules.delete(['ar-1'])).toEqual(['ar-1']);
    expect(calls[0]?.uri).toBe('/api/v1/application_rules');
    expect(calls[0]?.headers['content-type']).toBe(MULTIPART);
    expect(calls[0]?.body).toEqual({ rule_ids: ['ar-1'] });
  });

  it('sends nothing for empty batches', async () => {
    const { client } = makeClient();
    // No interceptor: any request would fail.
    expect(await client.applicationRules.create([])).toEqual([]);
    expect(await client.applicationRules.updateMany([], { priority: 'low' })).toEqual([]);
    expect(await client.applicationRules.delete([])).toEqual([]);
  });

  it('surfaces the server message of a refused create', async () => {
    const { client } = makeClient();
    answer(nock(BASE).post('/api/v1/application_rules'), 400, failure('Error creating rules'));

    await expect(client.applicationRules.create([newRule])).rejects.toMatchObject({
      code: 'API_ERROR',
      status: 400,
      serverMessage: 'Error creating rules',
      message: '[POST] /api/v1/application_rules: 400 Error creating rules',
    });
  });
});

describe('application rules: a write is done only where the answer says so', () => {
  it('a bulk delete answered 200 with rule_ids: [] is an unconfirmed write naming the ids', async () => {
    const { client } = makeClient();
    answer(nock(BASE).delete('/api/v1/application_rules'), 200, ok({ rule_ids: [] }, 'Rules deleted'));

    const error = await client.applicationRules.delete(['ar-1', 'ar-2']).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(UnconfirmedWriteError);
    // An InvalidResponseError: for the applier, an ambiguous answer to re-read.
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect(error).toMatchObject({
      code: 'API_RESPONSE_INVALID',
      unconfirmed: ['ar-1', 'ar-2'],
      message:
        '[DELETE] /api/v1/application_rules: the answer confirms 0 of the 2 objects sent (not confirmed: ar-1, ar-2); the others may not have been written',
    });
  });

  it('a bulk update answered with fewer ids than sent names the missing ones (the first five)', async () => {
    const { client } = makeClient();
    const ids = ['a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7', 'a8'];
    answer(nock(BASE).put('/api/v1/application_rules/'), 200, ok({ rule_ids: ['a1'] }));

    await expect(client.applicationRules.updateMany(ids, { priority: 'low' })).rejects.toMatchObject({
      unconfirmed: ids.slice(1),
      message:
        '[PUT] /api/v1/application_rules/: the answer confirms 1 of the 8 objects sent (not confirmed: a2, a3, a4, a5, a6 and 2 more); the others may not have been written',
    });
  });

  it('a single update answered for another id is not confirmed either', async () => {
    const { client } = makeClient();
    answer(nock(BASE).put('/api/v1/application_rules/ar-1'), 200, ok({ rule_ids: ['ar-2'] }));

    await expect(client.applicationRules.update('ar-1', { priority: 'low' })).rejects.toMatchObject({
      unconfirmed: ['ar-1'],
    });
  });

  it('a create answered with fewer new ids than rules sent is unconfirmed', async () => {
    const { client } = makeClient();
    answer(nock(BASE).post('/api/v1/application_rules'), 200, ok({ rule_ids: ['ar-7'] }));

    await expect(
      client.applicationRules.create([newRule, { ...newRule, description: 'b' }]),
    ).rejects.toMatchObject({
      code: 'API_RESPONSE_INVALID',
      unconfirmed: [],
      message:
        '[POST] /api/v1/application_rules: the answer confirms 1 of the 2 objects sent; the others may not have been written',
    });
  });

  it('ids sent twice need confirming once; the answer may repeat or reorder them', async () => {
    const { client } = makeClient();
    answer(nock(BASE).delete('/api/v1/application_rules'), 200, ok({ rule_ids: ['ar-2', 'ar-1'] }));

    expect(await client.applicationRules.delete(['ar-1', 'ar-2', 'ar-1'])).toEqual(['ar-2', 'ar-1']);
  });
});
