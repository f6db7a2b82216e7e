/** OrderedOutput (ops/environments.ts): outputs finished in any order are written in declared order. */
import { describe, expect, it } from 'vitest';
import { concurrencyOf, ENVIRONMENT_CONCURRENCY, OrderedOutput } from '../../src/ops/environments.js';

describe('OrderedOutput', () => {
  it('writes each output once it and every earlier one are done, holding only those ahead', () => {
    const written: string[] = [];
    const out = new OrderedOutput<string>((value, index) => written.push(`${index}:${value}`));
    out.put(2, 'c');
    out.put(1, 'b');
    expect(written).toEqual([]);
    expect(out.held).toBe(2);
    out.put(0, 'a');
    expect(written).toEqual(['0:a', '1:b', '2:c']);
    expect(out.held).toBe(0);
    out.put(3, 'd');
    expect(written).toEqual(['0:a', '1:b', '2:c', '3:d']);
    expect(out.held).toBe(0);
  });

  it('writes at once what comes in order, undefined (a failed environment) included', () => {
    const written: (string | undefined)[] = [];
    const out = new OrderedOutput<string | undefined>((value) => written.push(value));
    out.put(0, undefined);
    expect(written).toEqual([undefined]);
    out.put(1, 'b');
    expect(written).toEqual([undefined, 'b']);
    expect(out.held).toBe(0);
  });
});

describe('concurrencyOf', () => {
  it('is --concurrency when given, else the default of 2', () => {
    expect(ENVIRONMENT_CONCURRENCY).toBe(2);
    expect(concurrencyOf(undefined)).toBe(2);
    expect(concurrencyOf(5)).toBe(5);
  });
});
