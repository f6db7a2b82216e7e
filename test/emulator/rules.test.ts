import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorSeed, RunningEmulator } from '../../src/emulator/index.js';
import { type Client, startTestEmulator } from './helpers.js';

type RuleRow = Record<string, unknown> & { id: string };
type List = { rules: RuleRow[] };

const T0 = 1_700_000_000_000_000;

const SEED: EmulatorSeed = {
  rules: [
    {
      id: 'r1',
      action: 'block',
      kind: 'application',
      rq_host: 'shop.example.com',
      target: 'path',
      expression: { type: 'regex', values: ['^/admin'] },
      alert_id: 'a-1',
      attack_code: 'SQLI',
      pattern: 'union select',
      username: 'alice',
      timestamp: T0,
    },
    {
      id: 'r2',
      action: 'log',
      kind: 'application',
      rq_host: 'Blog.Example.com',
      target: 'query',
      expression: { type: 'contains', values: ['<script'] },
      alert_id: 'a-2',
      attack_code: 'XSS',
      username: 'bob',
      timestamp: T0 + 10,
    },
    {
      id: 'r3',
      action: 'deny',
      kind: 'source',
      rq_host: 'api.example.com',
      target: 'source_ip',
      expression: { type: 'ip', values: ['203.0.113.9'] },
      network_only: true,
      username: 'alice-admin',
      timestamp: T0 + 20,
    },
    {
      id: 'r4',
      action: 'allow',
      kind: 'source',
      rq_host: 'api.example.com',
      target: 'request:x-forwarded-for',
      expression: { type: 'cidr', values: ['198.51.100.0/24'] },
      network_only: true,
      username: 'carol',
      timestamp: T0 + 30,
    },
  ],
};

let emulator: RunningEmulator;
let api: Client;

beforeAll(async () => {
  ({ emulator, api } = await startTestEmulator({ seed: SEED }));
});
afterAll(() => emulator.close());

async function ids(query: string): Promise<string[]> {
  const reply = await api.get<List>(`/api/v1/rules?paginate=false&${query}`);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body.data?.rules.map((r) => r.id) ?? [];
}

describe('rules (read-only)', () => {
  it('lists every rule with all documented fields and types', async () => {
    const reply = await api.get<List>('/api/v1/rules?paginate=false');
    expect(reply.status).toBe(200);
    expect(reply.body.message).toBe('List of rules');
    expect(reply.body.data?.rules.map((r) => r.id)).toEqual(['r1', 'r2', 'r3', 'r4']);
    expect(reply.body.data?.rules[0]).toEqual({
      id: 'r1',
      action: 'block',
      alert_id: 'a-1',
      attack_category: null,
      attack_code: 'SQLI',
      attack_name: null,
      case_sensitive: false,
      deleted: false,
      description: null,
      duration: null,
      enabled: true,
      expression: { type: 'regex', values: ['^/admin'] },
      kind: 'application',
      loaded: expect.any(String),
      matching_method: expect.any(String),
      network_only: false,
      pattern: 'union select',
      priority: expect.any(String),
      rq_host: 'shop.example.com',
      spec_values: {},
      start_time: null,
      target: 'path',
      timestamp: T0,
      username: 'alice',
    });
  });

  it('GET one returns data.rule with "Rule retrieved."; an unknown id is a 400', async () => {
    const reply = await api.get<{ rule: RuleRow }>('/api/v1/rules/r3');
    expect(reply.status).toBe(200);
    expect(reply.body.message).toBe('Rule retrieved.');
    expect(reply.body.data?.rule).toMatchObject({ id: 'r3', network_only: true });
    const unknown = await api.get('/api/v1/rules/nope');
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toBe('Error retrieving rule');
  });

  it.each([
    ['id=r2', ['r2']],
    ['id_list[]=r1&id_list[]=r4', ['r1', 'r4']],
    ['id_list=r1&id_list=r3', ['r1', 'r3']],
    ['kind=source', ['r3', 'r4']],
    ['pattern=union%20select', ['r1']],
    ['rq_host=api.example.com', ['r3', 'r4']],
    ['rq_host_list[]=shop.example.com&rq_host_list[]=Blog.Example.com', ['r1', 'r2']],
    ['rq_host_search=BLOG', ['r2']],
    ['target=query', ['r2']],
    ['target_list[]=path&target_list[]=source_ip', ['r1', 'r3']],
    ['target_search=forwarded', ['r4']],
    ['action=deny', ['r3']],
    ['action_list[]=block&action_list[]=allow', ['r1', 'r4']],
    ['not_action_list[]=block&not_action_list[]=log', ['r3', 'r4']],
    ['not_action_list=deny', ['r1', 'r2', 'r4']],
    ['network_only=true', ['r3', 'r4']],
    ['network_only=false', ['r1', 'r2', 'r3', 'r4']],
    ['alert_id=a-2', ['r2']],
    ['alert_id_list[]=a-1&alert_id_list[]=a-2', ['r1', 'r2']],
    ['attack_code=XSS', ['r2']],
    ['attack_code_list[]=SQLI', ['r1']],
    [`timestamp=${T0 + 20}`, ['r3']],
    [`timestamp_start=${T0 + 10}`, ['r2', 'r3', 'r4']],
    [`timestamp_end=${T0 + 10}`, ['r1', 'r2']],
    [`timestamp_start=${T0 + 10}&timestamp_end=${T0 + 20}`, ['r2', 'r3']],
    ['username=alice', ['r1']],
    ['username_list[]=bob&username_list[]=carol', ['r2', 'r4']],
    ['username_search=ALICE', ['r1', 'r3']],
    ['kind=source&username=carol', ['r4']],
    ['no_such_parameter=1', ['r1', 'r2', 'r3', 'r4']],
  ])('filter %s', async (query, expected) => {
    expect(await ids(query)).toEqual(expected);
  });

  it.each(['timestamp_start=yesterday', 'network_only=maybe', 'timestamp=1.5'])(
    'an unparseable filter value (%s) is a 400',
    async (query) => {
      const reply = await api.get(`/api/v1/rules?paginate=false&${query}`);
      expect(reply.status).toBe(400);
      expect(reply.body.message).toBe('Error with pagination fields');
      expect(reply.body.errors?.[0]).toContain(query.split('=')[0]);
    },
  );

  it('paginates with 0-based pages and 1-based first/last positions', async () => {
    const page0 = await api.get<List>('/api/v1/rules?paginate=true&page=0&page_size=3');
    expect(page0.body.data?.rules.map((r) => r.id)).toEqual(['r1', 'r2', 'r3']);
    expect(page0.body.pagination).toEqual({ first: 1, last: 3, page: 0, total_count: 4, total_pages: 2 });
    const page1 = await api.get<List>('/api/v1/rules?paginate=true&page=1&page_size=3');
    expect(page1.body.data?.rules.map((r) => r.id)).toEqual(['r4']);
    expect(page1.body.pagination).toEqual({ first: 4, last: 4, page: 1, total_count: 4, total_pages: 2 });
    const beyond = await api.get<List>('/api/v1/rules?paginate=true&page=5&page_size=3');
    expect(beyond.body.data?.rules).toEqual([]);
    expect(beyond.body.pagination).toEqual({ first: 0, last: 0, page: 5, total_count: 4, total_pages: 2 });
  });

  it('paginates after filtering', async () => {
    const reply = await api.get<List>('/api/v1/rules?paginate=true&page=1&page_size=1&kind=source');
    expect(reply.body.data?.rules.map((r) => r.id)).toEqual(['r4']);
    expect(reply.body.pagination).toEqual({ first: 2, last: 2, page: 1, total_count: 2, total_pages: 2 });
  });

  it.each([
    ['paginate missing', ''],
    ['paginate not a boolean', 'paginate=yes'],
    ['page missing', 'paginate=true&page_size=10'],
    ['page_size missing', 'paginate=true&page=0'],
    ['page negative', 'paginate=true&page=-1&page_size=10'],
    ['page not an integer', 'paginate=true&page=one&page_size=10'],
    ['page_size zero', 'paginate=true&page=0&page_size=0'],
    ['page_size fractional', 'paginate=true&page=0&page_size=2.5'],
  ])('%s is a 400 "Error with pagination fields"', async (_case, query) => {
    const reply = await api.get(`/api/v1/rules?${query}`);
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ status: 'error', message: 'Error with pagination fields' });
  });
});

describe('rules: page size cap', () => {
  it('serves at most 1000 rows per page and computes total_pages with the cap', async () => {
    const rules = Array.from({ length: 1005 }, (_, i) => ({
      id: `bulk-${i}`,
      action: 'block',
      kind: 'application',
      rq_host: 'bulk.example.com',
      target: 'path',
      expression: { type: 'regex', values: [`^/p${i}`] },
    }));
    const { emulator: big, api: bigApi } = await startTestEmulator({ seed: { rules } });
    try {
      const reply = await bigApi.get<List>('/api/v1/rules?paginate=true&page=0&page_size=5000');
      expect(reply.status).toBe(200);
      expect(reply.body.data?.rules).toHaveLength(1000);
      expect(reply.body.pagination).toEqual({
        first: 1,
        last: 1000,
        page: 0,
        total_count: 1005,
        total_pages: 2,
      });
      const last = await bigApi.get<List>('/api/v1/rules?paginate=true&page=1&page_size=5000');
      expect(last.body.data?.rules.map((r) => r.id)).toEqual([
        'bulk-1000',
        'bulk-1001',
        'bulk-1002',
        'bulk-1003',
        'bulk-1004',
      ]);
    } finally {
      await big.close();
    }
  });
});

describe('rules: demo directory', () => {
  it('without a seed, serves the documented demo rules', async () => {
    const { emulator: demo, api: demoApi } = await startTestEmulator();
    try {
      const rules = (await demoApi.get<List>('/api/v1/rules?paginate=false')).body.data?.rules ?? [];
      expect(rules.length).toBeGreaterThanOrEqual(5);
      expect(new Set(rules.map((r) => r.kind)).size).toBeGreaterThan(1);
      expect(new Set(rules.map((r) => r.action)).size).toBeGreaterThan(2);
      expect(new Set(rules.map((r) => r.network_only))).toEqual(new Set([true, false]));
    } finally {
      await demo.close();
    }
  });
});
