/**
 * Pages over HTTP while the collection changes between requests: creates, updates, deletes (in the
 * middle, at the end, one delete and one create so that the size is unchanged), refused writes, and
 * deep pages. Every page is compared with the ids the test expects, in creation order, and every
 * pagination block with figures computed here, so the emulator's key index has to stay exact.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import {
  type Client,
  createRules,
  ruleInput,
  scheduleAttrs,
  startTestEmulator,
  type WireApplicationRule,
  type WirePagination,
  type WireSchedule,
} from './helpers.js';

type RuleList = { application_rules: WireApplicationRule[] };

let emulator: RunningEmulator;
let api: Client;

beforeEach(async () => {
  ({ emulator, api } = await startTestEmulator());
});
afterEach(async () => {
  await emulator.close();
});

async function page(query: string): Promise<{ ids: string[]; pagination: WirePagination | undefined }> {
  const reply = await api.get<RuleList>(`/api/v1/application_rules?${query}`);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return {
    ids: reply.body.data?.application_rules.map((r) => r.id) ?? [],
    pagination: reply.body.pagination,
  };
}

/** Every page of `size`, checked against `expected` (the ids in order) and its pagination figures. */
async function expectPages(expected: readonly string[], size: number, filter = ''): Promise<void> {
  const total = expected.length;
  const pages = Math.ceil(total / size);
  for (let p = 0; p <= pages; p++) {
    const got = await page(`paginate=true&page=${p}&page_size=${size}${filter}`);
    const rows = expected.slice(p * size, (p + 1) * size);
    expect(got.ids, `page ${p} of ${size}`).toEqual(rows);
    expect(got.pagination).toEqual({
      first: rows.length > 0 ? p * size + 1 : 0,
      last: rows.length > 0 ? p * size + rows.length : 0,
      page: p,
      total_count: total,
      total_pages: pages,
    });
  }
  expect((await page(`paginate=false${filter}`)).ids).toEqual(expected);
}

async function remove(ids: string[]): Promise<void> {
  const reply = await api.delete('/api/v1/application_rules', { rule_ids: ids });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
}

describe('application-rule pages across writes', () => {
  it('stay exact through creates, deletes, updates and a refused write between requests', async () => {
    let ids = await createRules(
      api,
      Array.from({ length: 23 }, (_, i) =>
        ruleInput({ rq_host: i % 3 === 0 ? 'a.example.com' : 'b.example.com' }),
      ),
    );
    await expectPages(ids, 5);

    await remove([ids[4] ?? '', ids[11] ?? '']);
    ids = ids.filter((_, i) => i !== 4 && i !== 11);
    await expectPages(ids, 5);

    // One delete and one create: the size is what it was, the order is not.
    await remove([ids[0] ?? '']);
    ids = [...ids.slice(1), ...(await createRules(api, [ruleInput()]))];
    await expectPages(ids, 4);

    // Deleting the newest rule, then an update in the middle: order kept, the page shows the new value.
    await remove([ids.at(-1) ?? '']);
    ids = ids.slice(0, -1);
    const middle = ids[7] ?? '';
    expect(
      (await api.put(`/api/v1/application_rules/${middle}`, { attrs: { priority: 'low' } })).status,
    ).toBe(200);
    const shown = await api.get<RuleList>('/api/v1/application_rules?paginate=true&page=1&page_size=7');
    expect(shown.body.data?.application_rules.map((r) => [r.id, r.priority])).toContainEqual([middle, 'low']);
    await expectPages(ids, 7);

    // All or nothing: one unknown id refuses the whole delete, and the pages do not move.
    const refused = await api.delete('/api/v1/application_rules', { rule_ids: [ids[2], 'no-such-rule'] });
    expect(refused.status).toBe(400);
    await expectPages(ids, 3);

    // Everything deleted, then one more: ids are never reused, the page holds only the new one.
    await remove(ids);
    await expectPages([], 5);
    const fresh = await createRules(api, [ruleInput()]);
    expect(Number(fresh[0])).toBeGreaterThan(23);
    await expectPages(fresh, 5);
  });

  it('deep pages of a larger collection, and a deep page past the end', async () => {
    const ids = await createRules(
      api,
      Array.from({ length: 1500 }, (_, i) => ruleInput({ description: `rule ${i}` })),
    );
    expect((await page('paginate=true&page=1499&page_size=1')).ids).toEqual([ids[1499]]);
    expect((await page('paginate=true&page=1&page_size=1000')).ids).toEqual(ids.slice(1000));
    await remove(ids.slice(0, 10));
    expect((await page('paginate=true&page=1489&page_size=1')).ids).toEqual([ids[1499]]);
    const past = await page('paginate=true&page=5000&page_size=1000');
    expect(past).toEqual({
      ids: [],
      pagination: { first: 0, last: 0, page: 5000, total_count: 1490, total_pages: 2 },
    });
  });

  it('filtered pages count every match exactly, across deletes', async () => {
    const ids = await createRules(
      api,
      Array.from({ length: 20 }, (_, i) =>
        ruleInput({ rq_host: i % 3 === 0 ? 'a.example.com' : 'b.example.com' }),
      ),
    );
    const onA = (list: readonly string[]) => list.filter((id) => ids.indexOf(id) % 3 === 0);
    await expectPages(onA(ids), 2, '&rq_host=a.example.com');
    await remove([ids[3] ?? '', ids[4] ?? '']);
    const left = ids.filter((_, i) => i !== 3 && i !== 4);
    await expectPages(onA(left), 2, '&rq_host=a.example.com');
    await expectPages(
      left.filter((id) => !onA(left).includes(id)),
      4,
      '&rq_host_search=B.EXAMPLE',
    );
  });
});

describe('schedule pages across writes', () => {
  it('stay in creation order through deletes and creates', async () => {
    const create = async (name: string) => {
      const reply = await api.post<{ schedule: WireSchedule }>('/api/v1/reports/schedules', {
        attrs: scheduleAttrs({ name }),
      });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      return reply.body.data?.schedule.id ?? '';
    };
    const list = async (query: string) =>
      (await api.get<{ schedules: WireSchedule[] }>(`/api/v1/reports/schedules?${query}`)).body;
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push(await create(`s-${i}`));
    expect((await list('paginate=true&page=1&page_size=3')).data?.schedules.map((s) => s.id)).toEqual(
      ids.slice(3, 6),
    );
    const deleted = await api.delete('/api/v1/reports/registries', { schedules_ids: [ids[1], ids[4]] });
    expect(deleted.status).toBe(200);
    const added = await create('s-7');
    const expected = [ids[0], ids[2], ids[3], ids[5], ids[6], added];
    const body = await list('paginate=true&page=1&page_size=3');
    expect(body.data?.schedules.map((s) => s.id)).toEqual(expected.slice(3));
    expect(body.pagination).toEqual({ first: 4, last: 6, page: 1, total_count: 6, total_pages: 2 });
    expect((await list('paginate=true&page=0&page_size=2&name=s-')).pagination?.total_count).toBe(6);
  });
});

describe('read-only rule pages', () => {
  it('follow the seed order, whatever the ids look like (nothing sorts them)', async () => {
    const ids = ['r-9', 'r-10', 'a', 'r-1', 'Z'];
    const seeded = await startTestEmulator({
      seed: {
        rules: ids.map((id) => ({
          id,
          action: 'block',
          kind: 'application',
          rq_host: 'shop.example.com',
          target: 'path',
          expression: { type: 'regex', values: ['^/x'] },
        })),
      },
    });
    try {
      const pages: string[] = [];
      for (let p = 0; p < 3; p++) {
        const reply = await seeded.api.get<{ rules: { id: string }[] }>(
          `/api/v1/rules?paginate=true&page=${p}&page_size=2`,
        );
        pages.push(...(reply.body.data?.rules.map((r) => r.id) ?? []));
      }
      expect(pages).toEqual(ids);
    } finally {
      await seeded.emulator.close();
    }
  });
});
