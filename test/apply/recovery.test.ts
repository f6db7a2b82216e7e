import { describe, expect, it } from 'vitest';
import { ApiError, ApiNetworkError } from '../../src/api/index.js';
import type { CreateItem, DeleteItem } from '../../src/apply/order.js';
import { createWithRecovery, deleteWithRecovery, updateWithRetry } from '../../src/apply/recovery.js';
import type { WriteContext, Writer } from '../../src/kinds/kind.js';
import type { Attributes, Change, UpdateChange } from '../../src/plan/model.js';

const ctx = {} as WriteContext;
const reset = () =>
  new ApiNetworkError({ method: 'POST', path: '/x' }, 'network error: ECONNRESET', { retryable: false });
const refused = (status: number) =>
  new ApiError({ method: 'POST', path: '/x', status, serverMessage: 'Error creating rules' });

/** A fake server: objects by key, with scripted failures before or after doing the work. */
function fakeWriter(script: Array<{ when: 'before' | 'after'; error: Error }>) {
  const live = new Map<string, string>();
  let nextId = 1;
  const calls: string[] = [];
  const fail = (when: 'before' | 'after') => {
    if (script[0]?.when === when) throw script.shift()!.error;
  };
  const writer: Writer = {
    bulkCreate: true,
    bulkUpdate: true,
    bulkDelete: true,
    deletesFirst: false,
    async create(_ctx, objects: readonly Attributes[]) {
      calls.push(`create ${objects.length}`);
      fail('before');
      for (const o of objects) live.set(String(o.key), String(nextId++));
      fail('after');
    },
    async update() {
      calls.push('update');
      fail('before');
      fail('after');
    },
    async delete(_ctx, ids) {
      calls.push(`delete ${ids.length}`);
      fail('before');
      for (const [key, id] of live) if (ids.includes(id)) live.delete(key);
      fail('after');
    },
    async idsByKey(_ctx, objects) {
      calls.push('reread');
      return new Map(
        objects
          .filter((o) => live.has(String(o.key)))
          .map((o) => [String(o.key), [live.get(String(o.key))!]]),
      );
    },
    async existing(_ctx, ids) {
      calls.push('reread');
      return new Set([...live.values()].filter((id) => ids.includes(id)));
    },
  };
  return { writer, live, calls };
}

const item = (key: string): CreateItem => ({ change: { key } as Change, attributes: { key } });
const recovery = (writer: Writer) => ({ writer, ctx, keyOf: (i: CreateItem) => String(i.attributes.key) });
const statuses = (outcomes: Map<unknown, { status: string }>) => [...outcomes.values()].map((o) => o.status);

describe('createWithRecovery', () => {
  it('does not create again what an ambiguous failure had already created', async () => {
    const { writer, live, calls } = fakeWriter([{ when: 'after', error: reset() }]);
    const outcomes = await createWithRecovery(recovery(writer), [item('a'), item('b')], new Set());
    expect(statuses(outcomes)).toEqual(['done', 'done']);
    expect(calls).toEqual(['create 2', 'reread']);
    expect(live.size).toBe(2);
  });

  it('creates, once, what an ambiguous failure had not created', async () => {
    const { writer, live, calls } = fakeWriter([{ when: 'before', error: refused(503) }]);
    const outcomes = await createWithRecovery(recovery(writer), [item('a')], new Set());
    expect(statuses(outcomes)).toEqual(['done']);
    expect(calls).toEqual(['create 1', 'reread', 'create 1']);
    expect(live.size).toBe(1);
  });

  it('does not count the old half of a replacement, which has the same key, as created', async () => {
    const { writer, live, calls } = fakeWriter([{ when: 'before', error: reset() }]);
    live.set('a', 'old-1');
    const outcomes = await createWithRecovery(recovery(writer), [item('a')], new Set(['old-1']));
    expect(statuses(outcomes)).toEqual(['done']);
    expect(calls).toEqual(['create 1', 'reread', 'create 1']);
  });

  it('fails with the API message, without re-reading, when the server refused', async () => {
    const { writer, calls } = fakeWriter([{ when: 'before', error: refused(400) }]);
    const outcomes = await createWithRecovery(recovery(writer), [item('a')], new Set());
    expect([...outcomes.values()]).toEqual([
      { status: 'failed', message: '[POST] /x: 400 Error creating rules' },
    ]);
    expect(calls).toEqual(['create 1']);
  });

  it('splits a refused batch until the invalid object fails alone', async () => {
    const { writer, live } = fakeWriter([]);
    const create = writer.create.bind(writer);
    writer.create = async (c, objects) => {
      if (objects.some((o) => o.key === 'bad')) throw refused(400);
      await create(c, objects);
    };
    const items = ['a', 'b', 'bad', 'c', 'd'].map(item);
    const outcomes = await createWithRecovery(recovery(writer), items, new Set());
    expect(statuses(outcomes)).toEqual(['done', 'done', 'failed', 'done', 'done']);
    expect([...live.keys()].sort()).toEqual(['a', 'b', 'c', 'd']);
  });

  it('gives up after a bounded number of attempts', async () => {
    const { writer, calls } = fakeWriter(
      Array.from({ length: 5 }, () => ({ when: 'before' as const, error: reset() })),
    );
    const outcomes = await createWithRecovery(recovery(writer), [item('a')], new Set());
    expect(statuses(outcomes)).toEqual(['failed']);
    expect(calls.filter((c) => c.startsWith('create'))).toHaveLength(3);
  });
});

describe('deleteWithRecovery', () => {
  it('counts as deleted what is gone, even when the call answered with an error', async () => {
    const { writer, live } = fakeWriter([{ when: 'after', error: refused(400) }]);
    live.set('a', '1');
    const outcomes = await deleteWithRecovery(recovery(writer), [
      { change: {} as Change, id: '1' } as DeleteItem,
    ]);
    expect(statuses(outcomes)).toEqual(['done']);
  });

  it('deletes again the ids a bulk delete refused because another id was already gone', async () => {
    const { writer, live } = fakeWriter([]);
    live.set('b', '2');
    live.set('c', '3');
    writer.delete = async (_c, ids) => {
      // All-or-nothing, like the API: one unknown id refuses the whole call.
      if (ids.some((id) => ![...live.values()].includes(id))) throw refused(400);
      for (const [key, id] of live) if (ids.includes(id)) live.delete(key);
    };
    const items = ['1', '2', '3'].map((id) => ({ change: {} as Change, id }) as DeleteItem);
    const outcomes = await deleteWithRecovery(recovery(writer), items);
    expect(statuses(outcomes)).toEqual(['done', 'done', 'done']);
    expect(live.size).toBe(0);
  });

  it('reports what still exists after a refusal as failed, and never re-reads after a 403', async () => {
    const { writer, live, calls } = fakeWriter([{ when: 'before', error: refused(400) }]);
    live.set('a', '1');
    const outcomes = await deleteWithRecovery(recovery(writer), [
      { change: {} as Change, id: '1' } as DeleteItem,
    ]);
    expect(statuses(outcomes)).toEqual(['failed']);
    expect(calls).toEqual(['delete 1', 'reread']);

    const forbidden = fakeWriter([{ when: 'before', error: refused(403) }]);
    await deleteWithRecovery(recovery(forbidden.writer), [{ change: {} as Change, id: '1' } as DeleteItem]);
    expect(forbidden.calls).toEqual(['delete 1']);
  });
});

describe('updateWithRetry', () => {
  it('sends an idempotent update again after an ambiguous failure, but not after a refusal', async () => {
    const ambiguous = fakeWriter([{ when: 'after', error: refused(500) }]);
    expect(await updateWithRetry(recovery(ambiguous.writer), [{} as UpdateChange])).toEqual({
      status: 'done',
    });
    expect(ambiguous.calls).toEqual(['update', 'update']);

    const rejected = fakeWriter([{ when: 'before', error: refused(400) }]);
    expect((await updateWithRetry(recovery(rejected.writer), [{} as UpdateChange])).status).toBe('failed');
    expect(rejected.calls).toEqual(['update']);
  });
});
