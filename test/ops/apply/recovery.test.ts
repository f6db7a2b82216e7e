import { describe, expect, it } from 'vitest';
import { ApiError, ApiNetworkError, InvalidResponseError, RedirectError } from '../../../src/api/index.js';
import type { Attributes, Change, ChangeOf } from '../../../src/core/model.js';
import type { WriteContext, Writer } from '../../../src/kinds/kind.js';
import { createLedger } from '../../../src/ops/apply/create-proof.js';
import type { CreateItem, DeleteItem, UpdateItem } from '../../../src/ops/apply/order.js';
import {
  createWithRecovery,
  deleteWithRecovery,
  updateWithRecovery,
} from '../../../src/ops/apply/recovery.js';

const ctx = {} as WriteContext;
const reset = () =>
  new ApiNetworkError({ method: 'POST', path: '/x' }, 'network error: ECONNRESET', { retryable: false });
const refused = (status: number) =>
  new ApiError({ method: 'POST', path: '/x', status, serverMessage: 'Error creating rules' });

/** What a failed outcome records of `refused(status)`'s request. */
const request = (status: number) => ({
  method: 'POST',
  path: '/x',
  status,
  server_message: 'Error creating rules',
});

const garbled = () =>
  new InvalidResponseError({ method: 'POST', path: '/x' }, 'body is not JSON (text/html)');

/** A fake server: objects by key (and their attributes by id), with scripted failures before or after doing the work. */
function fakeWriter(script: Array<{ when: 'before' | 'after'; error: Error }>) {
  const live = new Map<string, string>();
  const attributes = new Map<string, Attributes>();
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
      const ids = objects.map((o) => {
        const id = String(nextId++);
        live.set(String(o.key), id);
        attributes.set(id, o);
        return id;
      });
      fail('after');
      return ids;
    },
    async update(_ctx, changes) {
      calls.push('update');
      fail('before');
      for (const change of changes)
        attributes.set(change.id, { ...attributes.get(change.id), ...change.after });
      fail('after');
    },
    async delete(_ctx, ids) {
      calls.push(`delete ${ids.length}`);
      fail('before');
      for (const [key, id] of live) if (ids.includes(id)) live.delete(key);
      fail('after');
    },
    async idsByKey(_ctx, objects) {
      calls.push('reread by key');
      return new Map(
        objects
          .filter((o) => live.has(String(o.key)))
          .map((o) => [String(o.key), [live.get(String(o.key))!]]),
      );
    },
    async current(_ctx, ids) {
      calls.push('reread');
      return new Map(
        [...live.values()].filter((id) => ids.includes(id)).map((id) => [id, attributes.get(id) ?? {}]),
      );
    },
  };
  return { writer, live, attributes, calls };
}

const item = (key: string): CreateItem => ({ change: { key } as Change, attributes: { key } });
/** An update of every field of `after` (what the fake writers read). */
const updateChange = (id: string, after: Attributes): ChangeOf<'update'> =>
  ({ id, before: {}, after, fields: Object.keys(after) }) as ChangeOf<'update'>;
const recovery = (writer: Writer) => ({
  writer,
  ctx,
  keyOf: (attributes: Attributes) => String(attributes.key),
  noun: 'object',
});
const ledger = (preexisting: string[] = []) => createLedger(preexisting);
const statuses = (outcomes: Map<unknown, { status: string }>) => [...outcomes.values()].map((o) => o.status);

describe('createWithRecovery', () => {
  it('does not create again what an ambiguous failure had already created', async () => {
    const { writer, live, calls } = fakeWriter([{ when: 'after', error: reset() }]);
    const outcomes = await createWithRecovery(recovery(writer), [item('a'), item('b')], ledger());
    expect(statuses(outcomes)).toEqual(['done', 'done']);
    // Found by key, then proven by id: the key's ids, and their content.
    expect(calls).toEqual(['create 2', 'reread by key', 'reread']);
    expect(live.size).toBe(2);
  });

  it('creates, once, what an ambiguous failure had not created', async () => {
    const { writer, live, calls } = fakeWriter([{ when: 'before', error: refused(503) }]);
    const outcomes = await createWithRecovery(recovery(writer), [item('a')], ledger());
    expect(statuses(outcomes)).toEqual(['done']);
    // Missing by key, so sent again; the clean answer is then proven by re-reading its id.
    expect(calls).toEqual(['create 1', 'reread by key', 'create 1', 'reread']);
    expect(live.size).toBe(1);
  });

  it('does not count the old half of a replacement, which has the same key, as created', async () => {
    const { writer, live, calls } = fakeWriter([{ when: 'before', error: reset() }]);
    live.set('a', 'old-1');
    const outcomes = await createWithRecovery(recovery(writer), [item('a')], ledger(['old-1']));
    expect(statuses(outcomes)).toEqual(['done']);
    expect(calls).toEqual(['create 1', 'reread by key', 'create 1', 'reread']);
  });

  it('fails with the API message, without re-reading, when the server refused', async () => {
    const { writer, calls } = fakeWriter([{ when: 'before', error: refused(400) }]);
    const outcomes = await createWithRecovery(recovery(writer), [item('a')], ledger());
    expect([...outcomes.values()]).toEqual([
      { status: 'failed', message: '[POST] /x: 400 Error creating rules', request: request(400) },
    ]);
    expect(calls).toEqual(['create 1']);
  });

  it('splits a refused batch until the invalid object fails alone', async () => {
    const { writer, live } = fakeWriter([]);
    const create = writer.create.bind(writer);
    writer.create = async (c, objects) => {
      if (objects.some((o) => o.key === 'bad')) throw refused(400);
      return create(c, objects);
    };
    const items = ['a', 'b', 'bad', 'c', 'd'].map(item);
    const outcomes = await createWithRecovery(recovery(writer), items, ledger());
    expect(statuses(outcomes)).toEqual(['done', 'done', 'failed', 'done', 'done']);
    expect([...live.keys()].sort()).toEqual(['a', 'b', 'c', 'd']);
  });

  it('gives up after a bounded number of attempts', async () => {
    const { writer, calls } = fakeWriter(
      Array.from({ length: 5 }, () => ({ when: 'before' as const, error: reset() })),
    );
    const outcomes = await createWithRecovery(recovery(writer), [item('a')], ledger());
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

describe('updateWithRecovery', () => {
  const update = (id: string, after: Attributes): UpdateItem => ({ change: updateChange(id, after) });

  it('judges a re-read by the changed fields only: another field changed meanwhile does not undo it', async () => {
    const { writer, live, attributes, calls } = fakeWriter([]);
    live.set('a', '1');
    writer.update = async (_ctx, changes) => {
      calls.push('update');
      // The server takes the change, another client disables the object, the answer is garbled.
      for (const { id } of changes) attributes.set(id, { name: 'a', priority: 'high', enabled: false });
      throw garbled();
    };
    const change = {
      ...updateChange('1', { name: 'a', priority: 'high', enabled: true }),
      before: { name: 'a', priority: 'low', enabled: true },
      fields: ['priority'],
    };
    const outcomes = await updateWithRecovery(recovery(writer), [{ change }]);
    expect([...outcomes.values()]).toEqual([{ status: 'done', ambiguous: true }]);
    expect(calls).toEqual(['update', 'reread']);
  });

  it('re-reads after an ambiguous answer: a carried-out update is done and verified, never sent again', async () => {
    const { writer, live, calls } = fakeWriter([{ when: 'after', error: garbled() }]);
    live.set('a', '1');
    const outcomes = await updateWithRecovery(recovery(writer), [update('1', { priority: 'high' })]);
    expect([...outcomes.values()]).toEqual([{ status: 'done', ambiguous: true }]);
    expect(calls).toEqual(['update', 'reread']);
  });

  it('sends again only what the re-read shows was not carried out', async () => {
    const { writer, live, calls } = fakeWriter([{ when: 'before', error: refused(500) }]);
    live.set('a', '1');
    const outcomes = await updateWithRecovery(recovery(writer), [update('1', { priority: 'high' })]);
    expect([...outcomes.values()]).toEqual([{ status: 'done', ambiguous: true }]);
    expect(calls).toEqual(['update', 'reread', 'update']);
  });

  it('fails with the API message, without re-reading, when the server refused', async () => {
    const rejected = fakeWriter([{ when: 'before', error: refused(400) }]);
    const outcomes = await updateWithRecovery(recovery(rejected.writer), [update('1', { v: 1 })]);
    expect(statuses(outcomes)).toEqual(['failed']);
    expect(rejected.calls).toEqual(['update']);
  });
});

describe('ambiguous answers', () => {
  it.each([
    ['an unreadable 2xx (HTML, cut-off JSON, "status": "error")', garbled],
    [
      'a 303 See Other',
      () =>
        new RedirectError(
          { method: 'POST', path: '/x' },
          { problem: 'write', status: 303, from: 'http://h/x', to: 'http://h/y' },
        ),
    ],
  ])('%s to a create is re-read, never blindly sent again', async (_name, error) => {
    const { writer, live, calls } = fakeWriter([{ when: 'after', error: error() }]);
    const outcomes = await createWithRecovery(recovery(writer), [item('a')], ledger());
    expect([...outcomes.values()]).toEqual([{ status: 'done', id: '1', ambiguous: true }]);
    expect(calls).toEqual(['create 1', 'reread by key', 'reread']);
    expect(live.size).toBe(1);
  });

  it('a redirect elsewhere than 303 is a refusal: nothing re-read, nothing sent again', async () => {
    const redirect = new RedirectError(
      { method: 'POST', path: '/x' },
      { problem: 'other-origin', status: 307, from: 'http://h/x', to: 'http://evil/x' },
    );
    const { writer, calls } = fakeWriter([{ when: 'before', error: redirect }]);
    expect(statuses(await createWithRecovery(recovery(writer), [item('a')], ledger()))).toEqual(['failed']);
    expect(calls).toEqual(['create 1']);
  });
});

describe('interruption', () => {
  it('starts no call once the signal is aborted, and reports every object as interrupted', async () => {
    const { writer, calls } = fakeWriter([]);
    const signal = AbortSignal.abort();
    const context = { ...recovery(writer), signal };
    expect(statuses(await createWithRecovery(context, [item('a'), item('b')], ledger()))).toEqual([
      'interrupted',
      'interrupted',
    ]);
    expect(statuses(await deleteWithRecovery(context, [{ change: {} as Change, id: '1' }]))).toEqual([
      'interrupted',
    ]);
    expect(statuses(await updateWithRecovery(context, [{ change: updateChange('1', {}) }]))).toEqual([
      'interrupted',
    ]);
    expect(calls).toEqual([]);
  });

  it('does not retry an ambiguous create after an interruption: the re-read decides, nothing is sent again', async () => {
    const controller = new AbortController();
    const { writer, calls } = fakeWriter([{ when: 'before', error: reset() }]);
    const create = writer.create.bind(writer);
    writer.create = async (c, objects) => {
      controller.abort(); // the signal arrives while this call is in flight
      return create(c, objects);
    };
    const outcomes = await createWithRecovery(
      { ...recovery(writer), signal: controller.signal },
      [item('a')],
      ledger(),
    );
    expect(statuses(outcomes)).toEqual(['interrupted']);
    expect(calls).toEqual(['create 1', 'reread by key']);
  });

  it("cuts a 429's Retry-After wait short", async () => {
    const controller = new AbortController();
    const limited = new ApiError({ method: 'POST', path: '/x', status: 429, retryAfterMs: 60_000 });
    const { writer, calls } = fakeWriter([{ when: 'before', error: limited }]);
    const pending = createWithRecovery(
      { ...recovery(writer), signal: controller.signal },
      [item('a')],
      ledger(),
    );
    // Aborted once the call has failed and the wait begun; without the signal this waits 30 s and times out.
    setImmediate(() => controller.abort());
    expect(statuses(await pending)).toEqual(['interrupted']);
    expect(calls).toEqual(['create 1']);
  });
});

describe('a batch refused as too large (413)', () => {
  /** A server that refuses any call carrying more than `max` objects with a 413, and does the rest. */
  function capped(max: number) {
    const fake = fakeWriter([]);
    const { writer } = fake;
    const sizes: number[] = [];
    const guard = (n: number) => {
      sizes.push(n);
      if (n > max) throw refused(413);
    };
    const create = writer.create.bind(writer);
    const del = writer.delete.bind(writer);
    const upd = writer.update.bind(writer);
    writer.create = async (c, objects) => {
      guard(objects.length);
      return create(c, objects);
    };
    writer.delete = async (c, ids) => {
      guard(ids.length);
      await del(c, ids);
    };
    writer.update = async (c, changes) => {
      guard(changes.length);
      await upd(c, changes);
    };
    return { ...fake, sizes };
  }

  it('a create is halved until the server takes it: every object created once', async () => {
    const { writer, live, sizes } = capped(2);
    const items = ['a', 'b', 'c', 'd', 'e'].map(item);

    const outcomes = await createWithRecovery(recovery(writer), items, ledger());

    expect(statuses(outcomes)).toEqual(['done', 'done', 'done', 'done', 'done']);
    expect([...live.keys()].sort()).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(sizes).toEqual([5, 3, 2, 1, 2]);
  });

  it('a single object refused as too large fails with the API message', async () => {
    const { writer } = capped(0);
    const outcomes = await createWithRecovery(recovery(writer), [item('a'), item('b')], ledger());
    expect([...outcomes.values()]).toEqual([
      { status: 'failed', message: '[POST] /x: 413 Error creating rules', request: request(413) },
      { status: 'failed', message: '[POST] /x: 413 Error creating rules', request: request(413) },
    ]);
  });

  it('a delete and an update are halved too', async () => {
    const { writer, live, attributes, sizes } = capped(1);
    for (const [key, id] of Object.entries({ a: '1', b: '2', c: '3' })) live.set(key, id);
    const after: Attributes = { v: 2 };
    const updates = ['1', '2', '3'].map((id): UpdateItem => ({ change: updateChange(id, after) }));

    expect(statuses(await updateWithRecovery(recovery(writer), updates))).toEqual(['done', 'done', 'done']);
    expect(attributes.get('3')).toEqual({ v: 2 });
    const deletes = ['1', '2', '3'].map((id) => ({ change: {} as Change, id }) as DeleteItem);
    expect(statuses(await deleteWithRecovery(recovery(writer), deletes))).toEqual(['done', 'done', 'done']);
    expect(live.size).toBe(0);
    expect(sizes).toEqual([3, 2, 1, 1, 1, 3, 2, 1, 1, 1]);
  });
});
