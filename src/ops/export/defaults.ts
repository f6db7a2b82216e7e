/**
 * Default values are known in one place, the zod schemas of the desired state (`.default(...)`, the
 * same wrappers that fill them in on load). Export walks a kind's schema alongside an object and
 * drops every field whose value equals its schema default, at any depth (`service_id: ""` inside a
 * permission, `not_op: false` inside a condition), so an exported file says only what is not implied.
 */
import * as z from 'zod';
import { unwrapSchema } from '../../config/schema-lookup.js';
import { sameJson } from '../../core/canonical.js';

/** The schema under wrappers that do not change the shape of the value (optional, defaults, pipes). */
const shapeOf = (schema: z.ZodType): z.ZodType => unwrapSchema(schema).schema;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The field's `.default(...)` value, when it has one. */
function defaultOf(field: z.ZodType): { value: unknown } | undefined {
  return field instanceof z.ZodDefault ? { value: field.def.defaultValue } : undefined;
}

/** `value` without the fields (at any depth) whose value is the schema's default for them. */
export function omitDefaults(value: unknown, schema: z.ZodType): unknown {
  const shape = shapeOf(schema);
  if (Array.isArray(value)) {
    return shape instanceof z.ZodArray
      ? value.map((item) => omitDefaults(item, shape.element as z.ZodType))
      : value;
  }
  if (!isPlainObject(value) || !(shape instanceof z.ZodObject)) return value;
  const fields: Record<string, z.ZodType> = shape.shape;
  const kept: Record<string, unknown> = {};
  for (const [name, fieldValue] of Object.entries(value)) {
    const field = Object.hasOwn(fields, name) ? fields[name] : undefined;
    if (field === undefined) {
      kept[name] = fieldValue;
      continue;
    }
    const fallback = defaultOf(field);
    if (fallback !== undefined && sameJson(fieldValue, fallback.value)) continue;
    kept[name] = omitDefaults(fieldValue, field);
  }
  return kept;
}
