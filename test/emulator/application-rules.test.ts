import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import {
  type Client,
  createRules,
  MICROS_MIN,
  ruleInput,
  startTestEmulator,
  type WireApplicationRule,
} from './helpers.js';

let emulator: RunningEmulator;
let api: Client;

beforeAll(async () => {
  ({ emulator, api } = await startTestEmulator());
});
afterAll(() => emulator.close());

type One = { rule: WireApplicationRule };
type List = { application_rules: WireApplicationRule[] };
type Ids = { rule_ids: string[] };

async function getRule(id: string): Promise<WireApplicationRule | undefined> {
  return (await api.get<One>(`/api/v1/application_rules/${id}`)).body.data?.rule;
}

async function allRules(): Promise<WireApplicationRule[]> {
  return (await api.get<List>('/api/v1/application_rules?paginate=false')).body.data?.application_rules ?? [];
}

describe('application rules: create and retrieve', () => {
  it('POST (multipart/mixed) creates rules and returns data.rule_ids', async () => {
    const reply = await api.post<Ids>('/api/v1/application_rules', {
      rules: [ruleInput(), ruleInput({ rq_host: 'blog.example.com', description: 'Second' })],
    });
    expect(reply.status).toBe(200);
    expect(reply.body.message).toBe('Rules created');
    expect(reply.body.data?.rule_ids).toHaveLength(2);
    for (const id of reply.body.data?.rule_ids ?? []) expect(typeof id).toBe('string');
  });

  it('GET one returns data.rule with every documented field', async () => {
    const [id = ''] = await createRules(api, [
      ruleInput({
        conditions: [
          {
            operator: 'match',
            not_op: true,
            expressions: [{ expression: '^/admin' }, { expression: '^/wp-admin' }],
            targets: [{ target: 'path' }, { target: 'request_body:x-www-form-urlencoded:user' }],
          },
        ],
      }),
    ]);
    const reply = await api.get<One>(`/api/v1/application_rules/${id}`);
    expect(reply.status).toBe(200);
    expect(reply.body.message).toBe('Rule retrieved.');
    const rule = reply.body.data?.rule;
    const conditionId = rule?.conditions?.[0]?.id ?? '';
    expect(typeof conditionId).toBe('string');
    expect(rule).toEqual({
      id,
      actions: [
        {
          application_rule_id: id,
          firewall_action: 'block',
          firewall_name: 'waf-eu-1',
          sync_status: 'synced',
        },
      ],
      conditions: [
        {
          id: conditionId,
          application_rule_id: id,
          operator: 'match',
          not_op: true,
          expressions: [
            { expression: '^/admin', condition_id: conditionId },
            { expression: '^/wp-admin', condition_id: conditionId },
          ],
          targets: [
            { target: 'path', condition_id: conditionId },
            { target: 'request_body:x-www-form-urlencoded:user', condition_id: conditionId },
          ],
        },
      ],
      alert_set_ids: [],
      description: 'Block admin panel from outside',
      duration: null,
      enabled: true,
      priority: 'high',
      rq_host: 'shop.example.com',
      rule_set: null,
      rule_set_id: null,
      service: null,
      start_time: null,
      timestamp_create: expect.any(Number),
      timestamp_update: expect.any(Number),
      // The creator the body named (the admin token's user would be 'admin').
      username: 'gitops-bot',
    });
    expect(Number.isInteger(rule?.timestamp_create)).toBe(true);
    expect(rule?.timestamp_create).toBeGreaterThan(MICROS_MIN);
    expect(rule?.timestamp_update).toBe(rule?.timestamp_create);
  });

  it('accepts the optional fields and defaults not_op to false', async () => {
    const [id = ''] = await createRules(api, [
      ruleInput({ enabled: false, duration: 3600, start_time: MICROS_MIN + 5, alert_set_ids: ['al-1'] }),
    ]);
    expect(await getRule(id)).toMatchObject({
      enabled: false,
      duration: 3600,
      start_time: MICROS_MIN + 5,
      alert_set_ids: ['al-1'],
    });
    expect((await getRule(id))?.conditions?.[0]?.not_op).toBe(false);
  });

  it('is not unique by anything: two identical rules are two rules', async () => {
    const ids = await createRules(api, [
      ruleInput({ description: 'twin' }),
      ruleInput({ description: 'twin' }),
    ]);
    expect(new Set(ids).size).toBe(2);
  });

  it('GET one of an unknown id is a 400', async () => {
    const reply = await api.get('/api/v1/application_rules/999999');
    expect(reply.status).toBe(400);
    expect(reply.body.message).toBe('Error retrieving rule');
  });

  it.each([
    ['a missing description', { description: undefined }],
    ['a wrong type', { priority: 5 }],
    ['no conditions', { conditions: [] }],
    ['no actions', { actions: [] }],
    ['an action without firewall_name', { actions: [{ firewall_action: 'block' }] }],
    ['an unknown field', { colour: 'red' }],
    ['an empty rq_host', { rq_host: '' }],
  ])('POST with %s is a 400 and, in a bulk, creates none of the rules', async (_case, overrides) => {
    const before = await allRules();
    const reply = await api.post('/api/v1/application_rules', {
      rules: [ruleInput(), ruleInput(overrides), ruleInput()],
    });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toBe('Error creating rules');
    expect(reply.body.errors?.[0]).toMatch(/^rules\.1\./);
    expect(await allRules()).toEqual(before);
  });

  it('POST with malformed JSON, an empty body or no rules is a 400', async () => {
    for (const rawBody of ['{"rules": [', '', '{"rules": []}', '[]']) {
      const reply = await api.request('POST', '/api/v1/application_rules', { rawBody });
      expect(reply.status, rawBody).toBe(400);
      expect(reply.body.message).toBe('Error creating rules');
    }
  });
});

describe('application rules: list shape', () => {
  it("'full' list rows carry conditions, actions and the first action as action", async () => {
    await createRules(api, [ruleInput(), ruleInput({ description: 'Listed' })]);
    const rows = await allRules();
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.conditions?.length).toBeGreaterThan(0);
      expect(row.action).toEqual(row.actions?.[0]);
    }
  });

  it("'single-action' list rows carry only action, so clients must hydrate with GET-one", async () => {
    const { emulator: other, api: otherApi } = await startTestEmulator({
      applicationRuleListShape: 'single-action',
    });
    try {
      const [id = ''] = await createRules(otherApi, [ruleInput()]);
      const reply = await otherApi.get<List>('/api/v1/application_rules?paginate=false');
      const row = reply.body.data?.application_rules[0];
      expect(row?.id).toBe(id);
      expect(row?.action).toMatchObject({
        firewall_action: 'block',
        firewall_name: 'waf-eu-1',
        application_rule_id: id,
      });
      expect(row).not.toHaveProperty('conditions');
      expect(row).not.toHaveProperty('actions');
      const full = await otherApi.get<One>(`/api/v1/application_rules/${id}`);
      expect(full.body.data?.rule.conditions).toHaveLength(1);
    } finally {
      await other.close();
    }
  });
});

describe('application rules: update', () => {
  it('PUT one is a partial update of the mutable fields', async () => {
    const [id = ''] = await createRules(api, [ruleInput({ description: 'update me', priority: 'low' })]);
    const before = await getRule(id);
    const reply = await api.put<Ids>(`/api/v1/application_rules/${id}`, {
      attrs: { priority: 'high', enabled: false },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.message).toBe('Rules updated');
    expect(reply.body.data?.rule_ids).toEqual([id]);
    const after = await getRule(id);
    expect(after).toMatchObject({
      description: 'update me',
      priority: 'high',
      enabled: false,
      rq_host: 'shop.example.com',
    });
    expect(after?.conditions).toEqual(before?.conditions);
    expect(after?.timestamp_create).toBe(before?.timestamp_create);
    expect(after?.timestamp_update).toBeGreaterThan(before?.timestamp_update ?? Number.POSITIVE_INFINITY);
  });

  it('PUT can set description, duration and start_time (also to null)', async () => {
    const [id = ''] = await createRules(api, [ruleInput({ duration: 60 })]);
    await api.put(`/api/v1/application_rules/${id}`, {
      attrs: { description: null, duration: null, start_time: MICROS_MIN },
    });
    expect(await getRule(id)).toMatchObject({ description: null, duration: null, start_time: MICROS_MIN });
  });

  it.each([
    ['conditions', { conditions: [] }],
    ['actions', { actions: [{ firewall_action: 'log', firewall_name: 'waf-eu-1' }] }],
    ['rq_host', { rq_host: 'other.example.com' }],
    ['a wrong type', { enabled: 'no' }],
  ])('PUT changing %s is a 400 and changes nothing', async (_case, attrs) => {
    const [id = ''] = await createRules(api, [ruleInput()]);
    const before = await getRule(id);
    const reply = await api.put(`/api/v1/application_rules/${id}`, { attrs });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toBe('Error updating the rule');
    expect(await getRule(id)).toEqual(before);
  });

  it('PUT of an unknown id or with malformed JSON is a 400', async () => {
    const unknown = await api.put('/api/v1/application_rules/999999', { attrs: { priority: 'low' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toBe('Error updating the rule');
    const malformed = await api.request('PUT', '/api/v1/application_rules/1', { rawBody: '{' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toBe('Error updating the rule');
  });

  it('bulk PUT on the documented trailing-slash path updates every listed rule', async () => {
    const ids = await createRules(api, [ruleInput(), ruleInput(), ruleInput()]);
    const reply = await api.put<Ids>('/api/v1/application_rules/', {
      attrs: { priority: 'bulk' },
      rule_ids: ids.slice(0, 2),
    });
    expect(reply.status).toBe(200);
    expect(reply.body.message).toBe('Rules updated');
    expect(reply.body.data?.rule_ids).toEqual(ids.slice(0, 2));
    expect((await getRule(ids[0] ?? ''))?.priority).toBe('bulk');
    expect((await getRule(ids[1] ?? ''))?.priority).toBe('bulk');
    expect((await getRule(ids[2] ?? ''))?.priority).toBe('high');
  });

  it('bulk PUT naming one unknown id is a 400 and updates none', async () => {
    const ids = await createRules(api, [ruleInput(), ruleInput()]);
    const reply = await api.put('/api/v1/application_rules/', {
      attrs: { priority: 'never' },
      rule_ids: [...ids, '999999'],
    });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toBe('Error updating the rule');
    expect(reply.body.errors).toEqual([expect.stringContaining('999999')]);
    for (const id of ids) expect((await getRule(id))?.priority).toBe('high');
  });
});

describe('application rules: delete', () => {
  it('DELETE on the doubled-slash path deletes the listed rules', async () => {
    const ids = await createRules(api, [ruleInput(), ruleInput()]);
    const reply = await api.delete<Ids>('//api/v1/application_rules', { rule_ids: ids });
    expect(reply.status).toBe(200);
    expect(reply.body.message).toBe('Rules deleted');
    expect(reply.body.data?.rule_ids).toEqual(ids);
    for (const id of ids) expect((await api.get(`/api/v1/application_rules/${id}`)).status).toBe(400);
  });

  it('DELETE naming one unknown id is a 400 and deletes none', async () => {
    const ids = await createRules(api, [ruleInput(), ruleInput()]);
    const reply = await api.delete('/api/v1/application_rules', { rule_ids: [ids[0], 'missing', ids[1]] });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toBe('Error deleting rules.');
    for (const id of ids) expect((await getRule(id))?.id).toBe(id);
  });

  it('DELETE with a malformed body is a 400', async () => {
    const reply = await api.request('DELETE', '/api/v1/application_rules', { rawBody: '{"rule_ids": "1"}' });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toBe('Error deleting rules.');
  });

  it('never reuses a rule id or a condition id after a delete', async () => {
    const [first = ''] = await createRules(api, [ruleInput()]);
    const firstCondition = (await getRule(first))?.conditions?.[0]?.id;
    await api.delete('/api/v1/application_rules', { rule_ids: [first] });
    const [second = ''] = await createRules(api, [ruleInput()]);
    expect(Number(second)).toBeGreaterThan(Number(first));
    expect((await getRule(second))?.conditions?.[0]?.id).not.toBe(firstCondition);
  });
});
