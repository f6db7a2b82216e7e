/** The store's tracked collections: a write's effect, and an undo that keeps listing order. */
import { describe, expect, it } from 'vitest';
import { Collection } from '../../src/emulator/collection.js';

function collection(...keys: string[]): Collection<{ id: string; v: number }> {
  const c = new Collection<{ id: string; v: number }>();
  for (const id of keys) c.set(id, { id, v: 0 });
  return c;
}

const keys = (c: Map<string, unknown>) => [...c.keys()];

describe('Collection', () => {
  it('reports what a write set (in listing order) and deleted; nothing for an untouched write', () => {
    const c = collection('1', '2', '3');
    c.beginWrite();
    expect(c.endWrite().change).toBeUndefined();
    c.beginWrite();
    c.set('5', { id: '5', v: 1 });
    c.set('4', { id: '4', v: 1 });
    c.set('1', { id: '1', v: 1 });
    c.delete('2');
    c.set('6', { id: '6', v: 1 });
    c.delete('6');
    expect(c.endWrite().change).toEqual({
      upsert: [
        { id: '1', v: 1 },
        { id: '5', v: 1 },
        { id: '4', v: 1 },
      ],
      delete: ['2'],
    });
  });

  it('undo restores values and puts deleted records back where they were', () => {
    const c = collection('1', '2', '3', '4');
    c.beginWrite();
    c.delete('2');
    c.delete('4');
    c.set('3', { id: '3', v: 9 });
    c.set('5', { id: '5', v: 9 });
    const { undo } = c.endWrite();
    expect(keys(c)).toEqual(['1', '3', '5']);
    undo();
    expect([...c.values()]).toEqual(['1', '2', '3', '4'].map((id) => ({ id, v: 0 })));
  });

  it('undoing a cascade newest first restores the state before the first write', () => {
    const c = collection('a', 'x');
    c.beginWrite();
    c.delete('x');
    const first = c.endWrite();
    c.beginWrite();
    c.set('y', { id: 'y', v: 1 });
    const second = c.endWrite();
    expect(keys(c)).toEqual(['a', 'y']);
    second.undo();
    first.undo();
    expect(keys(c)).toEqual(['a', 'x']);
    // Ranks survive the rebuild: a later delete and undo still restores the same order.
    c.beginWrite();
    c.delete('a');
    const third = c.endWrite();
    third.undo();
    expect(keys(c)).toEqual(['a', 'x']);
  });

  it('a key deleted and set again in one write is replayed as delete-then-upsert (it moves to the end)', () => {
    const c = collection('n1', 'n2');
    c.beginWrite();
    c.delete('n1');
    c.set('n1', { id: 'n1', v: 2 });
    const { change, undo } = c.endWrite();
    expect(keys(c)).toEqual(['n2', 'n1']);
    expect(change).toEqual({ upsert: [{ id: 'n1', v: 2 }], delete: ['n1'] });
    undo();
    expect(keys(c)).toEqual(['n1', 'n2']);
    expect(c.get('n1')).toEqual({ id: 'n1', v: 0 });
  });
});
