/**
 * A create's answer is a claim (src/ops/apply/create-proof.ts): against a fake server whose answers
 * lie about the ids, only what a re-read proves by key and content is done; the rest is sent again a
 * bounded number of times, then failed with why.
 */
import { describe, expect, it } from 'vitest';
import { ApiNetworkError } from '../../../src/api/index.js';
import type { Attributes, Change } from '../../../src/core/model.js';
import type { WriteContext, Writer } from '../../../src/kinds/kind.js';
import { createLedger, notNew } from '../../../src/ops/apply/create-proof.js';
import type { CreateItem } from '../../../src/ops/apply/order.js';
import { createWithRecovery } from '../../../src/ops/apply/recovery.js';

const ctx = {} as WriteContext;

/** What the fake server answers a create with: the ids it really gave, and whether to create at all. */
type Lie = (real: string[]) => { create: boolean; answer: string[] | undefined };
const honest: Lie = (real) => ({ create: true, answer: real });

/** A fake server: objects by id, keyed by `key`; each create answered as `lie` says. */
function fakeServer(lie: Lie = honest) {
  const objects = new Map<string, Attributes>();
  let nextId = 1;
  const calls: string[] = [];
  const add = (attributes: Attributes) => {
    const id = String(nextId++);
    objects.set(id, attributes);
    return id;
  };
  const writer: Writer = {
    bulkCreate: true,
    bulkUpdate: true,
    bulkDelete: true,
    deletesFirst: false,
    async create(_ctx, sent) {
      calls.push(`create ${sent.length}`);
      const real = sent.map((_, at) => String(nextId + at));
      const { create, answer } = lie(real);
      if (create) sent.forEach(add);
      return answer;
    },
    async update() {},
    async delete() {},
    async idsByKey(_ctx, wanted) {
      calls.push('by key');
      const keys = new Set(wanted.map((o) => String(o.key)));
      const byKey = new Map<string, string[]>();
      for (const [id, o] of objects) {
        if (keys.has(String(o.key))) byKey.set(String(o.key), [...(byKey.get(String(o.key)) ?? []), id]);
      }
      return byKey;
    },
    async current(_ctx, ids) {
      calls.push('by id');
      return new Map([...objects].filter(([id]) => ids.includes(id)));
    },
  };
  return { writer, objects, calls, add };
}

const item = (key: string, content = 'new'): CreateItem => ({
  change: { key } as Change,
  attributes: { key, content },
});
const recovery = (writer: Writer) => ({
  writer,
  ctx,
  keyOf: (attributes: Attributes) => String(attributes.key),
  noun: 'application rule',
});
const outcomesOf = (outcomes: Map<CreateItem, unknown>) => [...outcomes.values()];
const creates = (calls: string[]) => calls.filter((c) => c.startsWith('create')).length;

describe('an answer whose ids are not new', () => {
  it("an old object's id, nothing created: failed after three attempts, never done", async () => {
    const { writer, add, objects, calls } = fakeServer(() => ({ create: false, answer: ['1'] }));
    add({ key: 'a', content: 'old' });
    const outcomes = await createWithRecovery(recovery(writer), [item('a')], createLedger(['1']));
    expect(outcomesOf(outcomes)).toEqual([
      {
        status: 'failed',
        message:
          'the answer gave id 1, the id of an application rule that existed before this create; re-reading by key found no new application rule with the planned content (3 attempts)',
      },
    ]);
    expect(creates(calls)).toBe(3);
    expect(objects.size).toBe(1);
  });

  it("an old object's id, the object created: proven by key and content, verified, with its real id", async () => {
    const { writer, add, calls } = fakeServer(() => ({ create: true, answer: ['1'] }));
    add({ key: 'a', content: 'old' });
    const outcomes = await createWithRecovery(recovery(writer), [item('a')], createLedger(['1']));
    expect(outcomesOf(outcomes)).toEqual([{ status: 'done', id: '2', ambiguous: true }]);
    expect(calls).toEqual(['create 1', 'by key', 'by id']);
  });

  it('an id already given to another create of the run: the second object is not done', async () => {
    const given: string[] = [];
    // The first create is honest; every later one is answered with its id, and creates nothing.
    const { writer, objects } = fakeServer((real) => {
      if (given.length > 0) return { create: false, answer: given };
      given.push(...real);
      return { create: true, answer: real };
    });
    const ledger = createLedger([]);
    const first = await createWithRecovery(recovery(writer), [item('a')], ledger);
    const second = await createWithRecovery(recovery(writer), [item('b')], ledger);
    expect(outcomesOf(first)).toEqual([{ status: 'done', id: '1' }]);
    expect(outcomesOf(second)).toEqual([
      {
        status: 'failed',
        message:
          'the answer gave id 1, already given by an earlier answer of this apply; re-reading by key found no new application rule with the planned content (3 attempts)',
      },
    ]);
    expect([...objects.values()].map((o) => o.key)).toEqual(['a']);
  });

  it('notNew names the id repeated within one answer, and an answer of the wrong size', () => {
    const ledger = createLedger([]);
    expect(notNew(['5', '5'], 2, ledger, 'group')).toBe('the answer gave id 5 more than once');
    expect(notNew(['6'], 2, ledger, 'group')).toBe('the answer gave 1 ids for the 2 groups sent');
    expect(notNew([], 1, ledger, 'group')).toBe('the answer gave no id for the 1 group sent');
    expect(notNew(['7', '8'], 2, ledger, 'group')).toBeUndefined();
  });
});

describe('an answer whose new-looking ids the re-read does not bear out', () => {
  it('a made-up id, nothing created: failed, and sent again only a bounded number of times', async () => {
    const { writer, objects, calls } = fakeServer(() => ({ create: false, answer: ['987654321'] }));
    const ledger = createLedger([]);
    const outcomes = await createWithRecovery(recovery(writer), [item('a')], ledger);
    expect(outcomesOf(outcomes)).toEqual([
      {
        status: 'failed',
        // After the first attempt the id is a repeat: the answers of one run are remembered.
        message:
          'the answer gave id 987654321, already given by an earlier answer of this apply; re-reading by key found no new application rule with the planned content (3 attempts)',
      },
    ]);
    expect(calls.slice(0, 3)).toEqual(['create 1', 'by id', 'by key']);
    expect(creates(calls)).toBe(3);
    expect(objects.size).toBe(0);
  });

  it('an id holding the key with other content is not the object planned', async () => {
    const { writer, add } = fakeServer(() => ({ create: false, answer: ['1'] }));
    add({ key: 'a', content: 'someone else' });
    const outcomes = await createWithRecovery(recovery(writer), [item('a')], createLedger([]));
    expect(outcomesOf(outcomes)).toEqual([
      expect.objectContaining({ status: 'failed', message: expect.stringMatching(/^the answer gave id 1,/) }),
    ]);
  });

  it('a bulk answer in another order: each object gets its own id, done without a second call', async () => {
    const { writer, calls } = fakeServer((real) => ({ create: true, answer: [...real].reverse() }));
    const items = [item('a'), item('b'), item('c')];
    const outcomes = await createWithRecovery(recovery(writer), items, createLedger([]));
    expect(items.map((i) => outcomes.get(i))).toEqual([
      { status: 'done', id: '1' },
      { status: 'done', id: '2' },
      { status: 'done', id: '3' },
    ]);
    expect(calls).toEqual(['create 3', 'by id']);
  });

  it('a re-read that fails: failed with both messages, never sent again', async () => {
    const { writer, calls } = fakeServer();
    writer.current = async () => {
      calls.push('by id');
      throw new ApiNetworkError({ method: 'GET', path: '/x' }, 'network error: ECONNRESET', {
        retryable: false,
      });
    };
    const outcomes = await createWithRecovery(recovery(writer), [item('a')], createLedger([]));
    expect(outcomesOf(outcomes)).toEqual([
      {
        status: 'failed',
        message:
          'the create was answered with id 1, but re-reading to prove it failed: [GET] /x: network error: ECONNRESET',
        request: { method: 'GET', path: '/x' },
      },
    ]);
    expect(calls).toEqual(['create 1', 'by id']);
  });
});
