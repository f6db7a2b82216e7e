/** Finds the zod schema that validates the value at a YAML path (to name allowed keys and bounds). */
import * as z from 'zod';
import type { YamlPath } from './yaml-path.js';

export interface SchemaAtPath {
  schema: z.ZodType;
  /** True when a `.nullable()` was unwrapped on the way: `null` is also accepted there. */
  nullable: boolean;
}

/** Strips wrappers that do not change what a value must look like: optional, default, nullable, pipes. */
export function unwrapSchema(schema: z.ZodType): SchemaAtPath {
  let current = schema;
  let nullable = false;
  for (;;) {
    if (current instanceof z.ZodNullable) nullable = true;
    if (
      current instanceof z.ZodOptional ||
      current instanceof z.ZodDefault ||
      current instanceof z.ZodPrefault ||
      current instanceof z.ZodNullable
    ) {
      current = current.unwrap() as z.ZodType;
    } else if (current instanceof z.ZodPipe) {
      current = current.in as z.ZodType;
    } else {
      return { schema: current, nullable };
    }
  }
}

/** The schema that validates the value at `path`, unwrapped; undefined when `path` leaves the schema. */
export function schemaAt(root: z.ZodType, path: YamlPath): SchemaAtPath | undefined {
  let current = root;
  for (const segment of path) {
    const { schema } = unwrapSchema(current);
    let next: z.ZodType | undefined;
    if (typeof segment === 'string' && schema instanceof z.ZodObject) {
      next = Object.hasOwn(schema.shape, segment) ? (schema.shape[segment] as z.ZodType) : undefined;
    } else if (typeof segment === 'number' && schema instanceof z.ZodArray) {
      next = schema.element as z.ZodType;
    }
    if (!next) return undefined;
    current = next;
  }
  return unwrapSchema(current);
}

/** The field names a strict object at `path` accepts. */
export function allowedKeysAt(root: z.ZodType, path: YamlPath): string[] {
  const found = schemaAt(root, path)?.schema;
  return found instanceof z.ZodObject ? Object.keys(found.shape) : [];
}
