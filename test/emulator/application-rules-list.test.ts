import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { ruleWritersSeed, userToken } from '../helpers/firewall.js';
import {
  type Client,
  createRules,
  makeTempDir,
  ruleInput,
  startTestEmulator,
  type WireApplicationRule,
} from './helpers.js';

type List = { application_rules: WireApplicationRule[] };

let emulator: RunningEmulator;
let api: Client;
let cleanup: () => Promise<void>;
let rules: WireApplicationRule[] = [];
let ids: string[] = [];

/**
 * Four rules, each created by the admin token naming its own creator in the body (a rule's username
 * is the creator a create names, then its last writer's); rule 2 gets a service and a rule set by
 * editing the state file between two runs (the API itself never sets them), and rule 3 is updated
 * (by the user its creator names) so its timestamp_update differs. The second run reads every
 * creator back from the state file.
 */
beforeAll(async () => {
  const temp = await makeTempDir();
  cleanup = temp.cleanup;
  const statePath = join(temp.dir, 'state.json');
  const seed = ruleWritersSeed(['alice', 'bob', 'alice-bot', 'carol']);
  const first = await startTestEmulator({ statePath, seed });
  const by = (username: string, overrides: Record<string, unknown>) =>
    createRules(first.api, [ruleInput({ ...overrides, username })]);
  ids = [
    ...(await by('alice', { rq_host: 'shop.example.com' })),
    ...(await by('bob', { rq_host: 'Blog.Example.com', enabled: false })),
    ...(await by('alice-bot', { rq_host: 'api.example.com' })),
    ...(await by('carol', { rq_host: 'api.example.com' })),
  ];
  const author = first.api.as(userToken('alice-bot'));
  await author.put(`/api/v1/application_rules/${ids[2]}`, { attrs: { priority: 'low' } });
  await first.emulator.close();
  const state = JSON.parse(await readFile(statePath, 'utf8')) as {
    application_rules: Record<string, unknown>[];
  };
  Object.assign(state.application_rules[1] ?? {}, {
    service: 'Shop-Service',
    rule_set: 'baseline',
    rule_set_id: 'rs-7',
  });
  await writeFile(statePath, JSON.stringify(state));
  ({ emulator, api } = await startTestEmulator({ statePath, seed }));
  rules =
    (await api.get<List>('/api/v1/application_rules?paginate=false')).body.data?.application_rules ?? [];
});
afterAll(async () => {
  await emulator.close();
  await cleanup();
});

async function listIds(query: string): Promise<string[]> {
  const reply = await api.get<List>(`/api/v1/application_rules?paginate=false&${query}`);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body.data?.application_rules.map((r) => r.id) ?? [];
}

/** Ids of the fixture rules by position, so a table row reads `[0, 3]` for the first and the last. */
function at(...positions: number[]): string[] {
  return positions.map((p) => ids[p] ?? `missing-${p}`);
}

describe('application rules: filters', () => {
  it('lists the fixture in creation order', () => {
    expect(rules.map((r) => r.id)).toEqual(ids);
  });

  it.each<[string, () => string, number[]]>([
    ['id', () => `id=${ids[1]}`, [1]],
    ['id_list (brackets)', () => `id_list[]=${ids[0]}&id_list[]=${ids[3]}`, [0, 3]],
    ['id_list (repeated)', () => `id_list=${ids[0]}&id_list=${ids[2]}`, [0, 2]],
    ['rq_host', () => 'rq_host=api.example.com', [2, 3]],
    ['rq_host_list', () => 'rq_host_list[]=shop.example.com&rq_host_list[]=Blog.Example.com', [0, 1]],
    ['rq_host_search (case-insensitive)', () => 'rq_host_search=BLOG', [1]],
    ['timestamp_create', () => `timestamp_create=${rules[2]?.timestamp_create}`, [2]],
    ['timestamp_create_start', () => `timestamp_create_start=${rules[1]?.timestamp_create}`, [1, 2, 3]],
    ['timestamp_create_end', () => `timestamp_create_end=${rules[1]?.timestamp_create}`, [0, 1]],
    ['timestamp_update', () => `timestamp_update=${rules[2]?.timestamp_update}`, [2]],
    ['timestamp_update_start', () => `timestamp_update_start=${rules[2]?.timestamp_update}`, [2]],
    ['timestamp_update_end', () => `timestamp_update_end=${rules[3]?.timestamp_update}`, [0, 1, 3]],
    ['username', () => 'username=alice', [0]],
    ['username_list', () => 'username_list[]=bob&username_list[]=carol', [1, 3]],
    ['username_search', () => 'username_search=ALICE', [0, 2]],
    ['service', () => 'service=Shop-Service', [1]],
    ['service_list', () => 'service_list[]=Shop-Service&service_list[]=other', [1]],
    ['service_search', () => 'service_search=shop', [1]],
    ['rule_set', () => 'rule_set=baseline', [1]],
    ['rule_set_id', () => 'rule_set_id=rs-7', [1]],
    ['enabled=true', () => 'enabled=true', [0, 2, 3]],
    ['enabled=false', () => 'enabled=false', [1]],
    ['combined', () => 'rq_host=api.example.com&username_search=carol', [3]],
    ['unknown parameters are ignored', () => 'colour=red', [0, 1, 2, 3]],
  ])('%s', async (_name, query, positions) => {
    expect(await listIds(query())).toEqual(at(...positions));
  });

  it.each(['enabled=yes', 'timestamp_create_start=soon', 'timestamp_update=1e6'])(
    'an unparseable filter value (%s) is a 400',
    async (query) => {
      const reply = await api.get(`/api/v1/application_rules?paginate=false&${query}`);
      expect(reply.status).toBe(400);
      expect(reply.body.message).toBe('Error with pagination fields');
    },
  );
});

describe('application rules: pagination', () => {
  it('pages with 0-based page and 1-based first/last', async () => {
    const reply = await api.get<List>('/api/v1/application_rules?paginate=true&page=1&page_size=3');
    expect(reply.body.data?.application_rules.map((r) => r.id)).toEqual(at(3));
    expect(reply.body.pagination).toEqual({ first: 4, last: 4, page: 1, total_count: 4, total_pages: 2 });
  });

  it('paginate=false returns everything with a one-page pagination block', async () => {
    const reply = await api.get<List>('/api/v1/application_rules?paginate=false');
    expect(reply.body.pagination).toEqual({ first: 1, last: 4, page: 0, total_count: 4, total_pages: 1 });
  });

  it.each([
    ['paginate missing', 'page=0&page_size=10'],
    ['page missing', 'paginate=true&page_size=10'],
    ['page_size missing', 'paginate=true&page=0'],
    ['page invalid', 'paginate=true&page=x&page_size=10'],
    ['page_size invalid', 'paginate=true&page=0&page_size=-5'],
  ])('%s is a 400', async (_case, query) => {
    const reply = await api.get(`/api/v1/application_rules?${query}`);
    expect(reply.status).toBe(400);
    expect(reply.body.message).toBe('Error with pagination fields');
  });

  it('caps page_size at 1000 (1005 rules created in one bulk POST)', async () => {
    const { emulator: big, api: bigApi } = await startTestEmulator();
    try {
      const created = await createRules(
        bigApi,
        Array.from({ length: 1005 }, (_, i) => ruleInput({ description: `rule ${i}` })),
      );
      expect(created).toHaveLength(1005);
      const reply = await bigApi.get<List>('/api/v1/application_rules?paginate=true&page=0&page_size=1001');
      expect(reply.body.data?.application_rules).toHaveLength(1000);
      expect(reply.body.pagination).toEqual({
        first: 1,
        last: 1000,
        page: 0,
        total_count: 1005,
        total_pages: 2,
      });
      const second = await bigApi.get<List>('/api/v1/application_rules?paginate=true&page=1&page_size=1001');
      expect(second.body.data?.application_rules.map((r) => r.id)).toEqual(created.slice(1000));
    } finally {
      await big.close();
    }
  });
});
