/**
 * Natural keys: how a declared object is identified across files and against the live firewall.
 * A key declared twice (in one file or across files) is an error naming both places.
 */

import type { ParsedDocument } from './parse-yaml.js';
import type { ConfigProblem } from './problems.js';
import type { KindName } from './schema.js';
import { formatPath } from './yaml-path.js';

export const NATURAL_KEY_FIELDS: Record<KindName, readonly string[]> = {
  groups: ['name'],
  application_rules: ['rq_host', 'description'],
  notifications: ['name'],
  schedules: ['name'],
};

/** Singular names, as used in messages and in the JSON plan's `kind`. */
export const KIND_NOUNS: Record<KindName, string> = {
  groups: 'group',
  application_rules: 'application rule',
  notifications: 'notification',
  schedules: 'schedule',
};

/**
 * `name`, or `<rq_host>/<description>` for application rules; undefined if a key field is not a
 * string, or if a `/` in a field before the last would make the key ambiguous (the schema refuses
 * such an rq_host, and `a/b` + `c` must not be called a duplicate of `a` + `b/c`).
 */
export function naturalKey(kind: KindName, item: unknown): string | undefined {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return undefined;
  const fields = NATURAL_KEY_FIELDS[kind];
  const parts: string[] = [];
  for (const [index, field] of fields.entries()) {
    const value: unknown = Object.hasOwn(item, field) ? (item as Record<string, unknown>)[field] : undefined;
    if (typeof value !== 'string' || (index < fields.length - 1 && value.includes('/'))) return undefined;
    parts.push(value);
  }
  return parts.join('/');
}

export interface SourceLocation {
  file: string;
  line: number;
  col: number;
  /** YAML path inside its document, e.g. `groups[2]`. */
  path: string;
  /** Which document of the file (see ParsedDocument.index), and the node path in it: for `pull`. */
  document: number;
  nodePath: readonly (string | number)[];
}

export function formatLocation(location: SourceLocation): string {
  return `${location.file}:${location.line}:${location.col}`;
}

export interface DeclaredObject {
  kind: KindName;
  key: string;
  location: SourceLocation;
}

/** Every object whose key fields are strings, from every document (even ones with other problems). */
export function declaredObjects(documents: readonly ParsedDocument[], kind: KindName): DeclaredObject[] {
  const found: DeclaredObject[] = [];
  for (const document of documents) {
    const data = document.data;
    if (data === null || typeof data !== 'object' || !Object.hasOwn(data, kind)) continue;
    const items: unknown = (data as Record<string, unknown>)[kind];
    if (!Array.isArray(items)) continue;
    items.forEach((item: unknown, index) => {
      const key = naturalKey(kind, item);
      if (key === undefined) return;
      const path = [kind, index];
      const { line, col } = document.locate(path);
      found.push({
        kind,
        key,
        location: {
          file: document.file,
          line,
          col,
          path: formatPath(path),
          document: document.index,
          nodePath: path,
        },
      });
    });
  }
  return found;
}

/** The later declaration of a key is the error; it names the first. */
export function duplicateKeyProblems(objects: readonly DeclaredObject[]): ConfigProblem[] {
  const first = new Map<string, DeclaredObject>();
  const problems: ConfigProblem[] = [];
  for (const object of objects) {
    const earlier = first.get(object.key);
    if (!earlier) {
      first.set(object.key, object);
      continue;
    }
    problems.push({
      ...object.location,
      message: `duplicate ${KIND_NOUNS[object.kind]} "${object.key}": also declared at ${formatLocation(earlier.location)}`,
    });
  }
  return problems;
}
