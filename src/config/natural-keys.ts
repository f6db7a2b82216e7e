/**
 * Natural keys: how a declared object is identified across files and against the live firewall.
 * A key declared twice (in one file or across files) is an error naming both places.
 */

import type { Kind } from '../kinds/index.js';
import { isMapping, type Mapping } from './mapping.js';
import type { ParsedDocument } from './parse-yaml.js';
import type { ConfigProblem } from './problems.js';
import { formatPath } from './yaml-path.js';

/**
 * `name`, or `<rq_host>/<description>` for application rules; undefined if a key field is not a
 * string, or if a `/` in a field before the last would make the key ambiguous (the schema refuses
 * such an rq_host, and `a/b` + `c` must not be called a duplicate of `a` + `b/c`).
 */
export function naturalKey(kind: Kind, item: unknown): string | undefined {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return undefined;
  const fields = kind.keyFields;
  const parts: string[] = [];
  for (const [index, field] of fields.entries()) {
    const value: unknown = Object.hasOwn(item, field) ? (item as Record<string, unknown>)[field] : undefined;
    if (typeof value !== 'string' || (index < fields.length - 1 && value.includes('/'))) return undefined;
    parts.push(value);
  }
  return parts.join('/');
}

/**
 * `document` for declaring natural keys: an object whose key field is written twice in it (or a
 * section written twice) is left out, since which key the user meant is unknown.
 */
export function declarable(document: ParsedDocument, kinds: readonly Kind[]): ParsedDocument {
  const ambiguous = document.ambiguous;
  const data = document.data;
  if (ambiguous === undefined || !isMapping(data)) return document;
  const view: Mapping = { ...data };
  for (const path of ambiguous) {
    const kind = kinds.find((candidate) => candidate.section === path[0]);
    if (kind === undefined) continue;
    const [, index, field] = path;
    if (path.length === 1) delete view[kind.section];
    else if (typeof index === 'number' && typeof field === 'string' && path.length === 3) {
      const items = view[kind.section];
      if (!Array.isArray(items) || !kind.keyFields.includes(field)) continue;
      const copy = [...items];
      copy[index] = null;
      view[kind.section] = copy;
    }
  }
  return { ...document, data: view };
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

/** A location as a problem's place. */
function locationOf(at: SourceLocation): Pick<ConfigProblem, 'file' | 'line' | 'col' | 'path'> {
  return { file: at.file, line: at.line, col: at.col, path: at.path };
}

/** `FILE:LINE:COL`. */
export function formatLocation(location: SourceLocation): string {
  return `${location.file}:${location.line}:${location.col}`;
}

/**
 * Where each declared object of one kind is, by natural key. Kept compact (a few numbers per
 * object, no object per declaration): a plan of 100,000 rules asks for a location only to name an
 * object in a problem, and `pull` for the objects it edits. Locations are built when asked for.
 * The first declaration of a key is the one kept; a later one is a duplicate, reported by `declare`.
 * (Plain private fields, not `#` ones: tests compare two of them with toStrictEqual.)
 */
export class DeclaredSources implements Iterable<SourceLocation> {
  private readonly kind: Kind;
  private readonly byKey = new Map<string, number>();
  private readonly files: string[] = [];
  private readonly documents: number[] = [];
  private readonly items: number[] = [];
  private readonly lines: number[] = [];
  private readonly cols: number[] = [];
  /**
   * Where the items of the kind's `userFields` are, by key then field (only kinds that have some):
   * refresh names an unknown member at its place.
   */
  private readonly listItems = new Map<string, Map<string, { value: string; line: number; col: number }[]>>();
  /** Each `renamed_from:` declared, in order: the old key, the object's key, where the line is. */
  private readonly renames: { from: string; key: string; at: SourceLocation }[] = [];

  constructor(kind: Kind) {
    this.kind = kind;
  }

  get size(): number {
    return this.byKey.size;
  }

  /** Records the objects of `document` whose key fields are strings; returns the duplicates' problems. */
  declare(document: ParsedDocument): ConfigProblem[] {
    const data = document.data;
    const kind = this.kind;
    const section = kind.section;
    if (data === null || typeof data !== 'object' || !Object.hasOwn(data, section)) return [];
    const value: unknown = (data as Record<string, unknown>)[section];
    // A singleton's section is its object (declared at the section, item -1), keyed by the section.
    const single =
      kind.singleton === true && value !== null && typeof value === 'object' && !Array.isArray(value);
    const items: unknown = single ? [value] : value;
    if (!Array.isArray(items)) return [];
    const problems: ConfigProblem[] = [];
    items.forEach((item: unknown, at) => {
      const key = single ? section : naturalKey(kind, item);
      if (key === undefined) return;
      const index = single ? -1 : at;
      const { line, col } = document.locate(single ? [section] : [section, index]);
      const earlier = this.byKey.get(key);
      if (earlier !== undefined) {
        const here = this.location(document.file, document.index, index, line, col);
        problems.push({
          ...locationOf(here),
          message: `duplicate ${kind.noun} "${key}": also declared at ${formatLocation(this.at(earlier))}`,
        });
        return;
      }
      this.recordListItems(document, key, item, index);
      this.recordRename(document, key, item, index);
      this.byKey.set(key, this.files.length);
      this.files.push(document.file);
      this.documents.push(document.index);
      this.items.push(index);
      this.lines.push(line);
      this.cols.push(col);
    });
    return problems;
  }

  private recordRename(document: ParsedDocument, key: string, item: unknown, index: number): void {
    if (index < 0 || item === null || typeof item !== 'object' || !Object.hasOwn(item, 'renamed_from'))
      return;
    const from: unknown = (item as Record<string, unknown>).renamed_from;
    if (typeof from !== 'string' || from === '') return; // the schema says what is wrong with it
    const nodePath = [this.kind.section, index, 'renamed_from'];
    const { line, col } = document.locate(nodePath);
    const at = {
      file: document.file,
      line,
      col,
      path: formatPath(nodePath),
      document: document.index,
      nodePath,
    };
    this.renames.push({ from, key, at });
  }

  /**
   * What is wrong with the `renamed_from:` lines, once every file is declared: an object renamed from
   * its own key, from a key another object still declares (the old object is still there: which one
   * would be kept?), from a key that is not one of this family's keys, or two objects renamed from
   * one key (at both).
   */
  renameProblems(): ConfigProblem[] {
    const problems: ConfigProblem[] = [];
    const kind = this.kind;
    const byFrom = new Map<string, { key: string; at: SourceLocation }[]>();
    for (const rename of this.renames) byFrom.set(rename.from, [...(byFrom.get(rename.from) ?? []), rename]);
    const quoted = (key: string) => JSON.stringify(key);
    for (const { from, key, at } of this.renames) {
      const problem = (message: string) => problems.push({ ...locationOf(at), message });
      if (from === key) {
        problem(`renamed_from ${quoted(from)} is the ${kind.noun}'s own key: remove the line`);
        continue;
      }
      const parts = kind.keyFields.length;
      if (
        parts > 1 &&
        (from.split('/').length < parts ||
          from
            .split('/')
            .slice(0, parts - 1)
            .some((p) => p === ''))
      ) {
        problem(
          `renamed_from ${quoted(from)} is not a ${kind.noun} key: write it as plans print it, ${kind.keyFields.map((f) => `<${f}>`).join('/')}`,
        );
        continue;
      }
      const declared = this.get(from);
      if (declared !== undefined) {
        problem(
          `renamed_from ${quoted(from)}: a ${kind.noun} with that key is still declared at ${formatLocation(declared)}; remove it (the renamed object replaces it) or remove renamed_from`,
        );
        continue;
      }
      const others = (byFrom.get(from) ?? []).filter((other) => other.at !== at);
      if (others.length > 0) {
        problem(
          `renamed_from ${quoted(from)}: ${others.length === 1 ? 'another object is' : `${others.length} other objects are`} renamed from the same key, at ${others.map((o) => formatLocation(o.at)).join(', ')}; one live object can be renamed only once`,
        );
      }
    }
    return problems;
  }

  /** Where the item `value` of the list `field` of the object `key` is (the first such item). */
  getListItem(key: string, field: string, value: string): SourceLocation | undefined {
    const object = this.get(key);
    const at = this.listItems
      .get(key)
      ?.get(field)
      ?.findIndex((entry) => entry.value === value);
    const entry = at === undefined || at < 0 ? undefined : this.listItems.get(key)?.get(field)?.[at];
    if (object === undefined || entry === undefined || at === undefined) return undefined;
    const nodePath = [...object.nodePath, field, at];
    return { ...object, line: entry.line, col: entry.col, path: formatPath(nodePath), nodePath };
  }

  private recordListItems(document: ParsedDocument, key: string, item: unknown, index: number): void {
    const fields = this.kind.userFields ?? [];
    if (fields.length === 0 || index < 0 || item === null || typeof item !== 'object') return;
    const byField = new Map<string, { value: string; line: number; col: number }[]>();
    for (const field of fields) {
      const list: unknown = Object.hasOwn(item, field) ? (item as Record<string, unknown>)[field] : undefined;
      if (!Array.isArray(list)) continue;
      const entries = list.map((value: unknown, at) => {
        const { line, col } = document.locate([this.kind.section, index, field, at]);
        return { value: typeof value === 'string' ? value : String(value), line, col };
      });
      byField.set(field, entries);
    }
    if (byField.size > 0) this.listItems.set(key, byField);
  }

  get(key: string): SourceLocation | undefined {
    const at = this.byKey.get(key);
    return at === undefined ? undefined : this.at(at);
  }

  keys(): IterableIterator<string> {
    return this.byKey.keys();
  }

  *values(): IterableIterator<SourceLocation> {
    for (let at = 0; at < this.files.length; at++) yield this.at(at);
  }

  [Symbol.iterator](): IterableIterator<SourceLocation> {
    return this.values();
  }

  private at(at: number): SourceLocation {
    return this.location(
      this.files[at] as string,
      this.documents[at] as number,
      this.items[at] as number,
      this.lines[at] as number,
      this.cols[at] as number,
    );
  }

  private location(file: string, document: number, item: number, line: number, col: number): SourceLocation {
    const nodePath = item < 0 ? [this.kind.section] : [this.kind.section, item];
    return { file, line, col, path: formatPath(nodePath), document, nodePath };
  }
}
