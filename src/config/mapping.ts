/** Data as a YAML document reads: its mappings, and paths through them. */
import type { YamlPath } from './yaml-path.js';

/** A YAML mapping as data. */
export type Mapping = Record<string, unknown>;

/** Whether `value` is a mapping: an object that is not a list. */
export function isMapping(value: unknown): value is Mapping {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Whether `data` holds a value at `path`, through own properties only. */
export function hasPath(data: unknown, path: YamlPath): boolean {
  let current = data;
  for (const segment of path) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, segment)) return false;
    current = (current as Record<string | number, unknown>)[segment];
  }
  return true;
}
