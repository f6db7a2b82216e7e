/**
 * Set-like lists: order does not matter and a value may appear once. A duplicate is reported at the
 * duplicate's position; `params.duplicateOf` carries the index of the first occurrence so the issue
 * mapper can name its FILE:LINE:COL.
 */
import * as z from 'zod';
import { canonicalKey } from './canonical.js';

export interface SetOptions<T> {
  /** Minimum number of items (e.g. 1: a rule needs at least one condition). */
  min?: number;
  /** How a duplicate is named in the message, after the noun; strings default to their quoted value. */
  label?: (value: T) => string;
}

export function setOf<T extends z.ZodType>(item: T, noun: string, options: SetOptions<z.output<T>> = {}) {
  // A plain check, not `superRefine`: that allocates an `addIssue` closure for every list parsed
  // (most hold one value), which a large configuration pays for thousands of times.
  const unique = z.check<z.output<T>[]>((payload) => {
    const values = payload.value;
    if (values.length < 2) return; // most sets hold one value: nothing can repeat
    const firstIndex = new Map<string, number>();
    values.forEach((value, index) => {
      const key = canonicalKey(value);
      const first = firstIndex.get(key);
      if (first === undefined) {
        firstIndex.set(key, index);
        return;
      }
      const label = options.label?.(value) ?? (typeof value === 'string' ? JSON.stringify(value) : '');
      payload.issues.push({
        code: 'custom',
        path: [index],
        message: `duplicate ${noun}${label === '' ? '' : ` ${label}`}`,
        params: { duplicateOf: first },
        input: value,
        inst: unique,
        continue: true,
      });
    });
  });
  const list = z.array(item).check(unique);
  // `meta` last: zod drops metadata when a check such as `min` clones the schema afterwards.
  return (options.min === undefined ? list : list.min(options.min)).meta({ uniqueItems: true });
}
