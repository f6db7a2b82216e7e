/**
 * zod's safeParse, made safe for hostile sizes. zod gathers a list's issues with
 * `issues.push(...itemIssues)`: a list of 200,000 invalid items overflows the call stack one level
 * up ("Maximum call stack size exceeded"). When that happens, the value is validated again piece by
 * piece (a list item by item, a mapping field by field), each piece alone, so no single spread
 * grows with the input. That degraded pass reports the pieces' own problems only (not unknown or
 * missing fields of the mapping that was split, nor duplicates in the list that was split): it runs
 * only for inputs with a six-figure number of problems, of which a hundred are shown anyway.
 */
import * as z from 'zod';
import { isMapping } from './mapping.js';
import { unwrapSchema } from './schema-lookup.js';

type Issue = z.core.$ZodIssue;

export type BoundedResult<T> = { success: true; data: T } | { success: false; issues: Issue[] };

function parsePiece(schema: z.ZodType, value: unknown, path: PropertyKey[], out: Issue[]): void {
  let issues: readonly Issue[];
  try {
    const result = schema.safeParse(value, { reportInput: true });
    if (result.success) return;
    issues = result.error.issues;
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    const { schema: inner } = unwrapSchema(schema);
    if (inner instanceof z.ZodArray && Array.isArray(value)) {
      value.forEach((item, index) => {
        parsePiece(inner.element as z.ZodType, item, [...path, index], out);
      });
    } else if (inner instanceof z.ZodObject && isMapping(value)) {
      for (const [key, field] of Object.entries(value)) {
        const fieldSchema = Object.hasOwn(inner.shape, key) ? (inner.shape[key] as z.ZodType) : undefined;
        if (fieldSchema !== undefined) parsePiece(fieldSchema, field, [...path, key], out);
      }
    } else throw error;
    return;
  }
  for (const issue of issues)
    out.push(path.length === 0 ? issue : { ...issue, path: [...path, ...issue.path] });
}

/**
 * `schema.safeParse(value)`, validated piece by piece when zod overflows the call stack (see the
 * module comment).
 */
export function boundedSafeParse<T extends z.ZodType>(schema: T, value: unknown): BoundedResult<z.output<T>> {
  try {
    const result = schema.safeParse(value, { reportInput: true });
    return result.success
      ? { success: true, data: result.data }
      : { success: false, issues: result.error.issues };
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    const issues: Issue[] = [];
    parsePiece(schema, value, [], issues);
    // Pieces that all pass alone leave nothing to report: the overflow was not about problems.
    if (issues.length === 0) throw error;
    return { success: false, issues };
  }
}
