/**
 * What `wafctl pull` changes in the author's files, decided from the plan (configuration -> live) and
 * where each object is declared. Pure: the files' texts are only consulted through `origin`, and the
 * YAML editing is yaml-edit.ts's.
 *
 * - An update or replace writes the live value of each differing field where the object is declared:
 *   a set (every list of the configuration is one) by removing and appending members, keeping the
 *   others where they are; an object field by its differing keys; anything else whole.
 * - An object the configuration declares but the firewall no longer has is removed from its file.
 * - With `adopt`, in-scope live objects no file declares are appended (see `adoptTarget`).
 * - A value that the file does not write literally (from `${VAR}`, an alias, or an anchored node
 *   used elsewhere) is a conflict: nothing is written for that object, and the reason names the place.
 */
import type { SourceLocation } from '../../config/natural-keys.js';
import { sameJson } from '../../core/canonical.js';
import type { Attributes, Change, KindName, Plan } from '../../core/model.js';
import type { NodePath, ValueOrigin, YamlEdit } from './model.js';

export interface DeclaredObject {
  kind: KindName;
  key: string;
  location: SourceLocation;
  /** The object as its file holds it (after `${VAR}` substitution). */
  raw: Record<string, unknown>;
  protect: boolean;
}

/** How one kind's values are written and compared (from its schema and normaliser). */
export interface PullRules {
  /**
   * The value of `field` as a file says it: the live value, defaults omitted inside it, written in the
   * style of the object as the file holds it (`raw`: members by username or by id).
   */
  fileValue(field: string, value: unknown, raw: Record<string, unknown>): unknown;
  /** Whether a file's set member (in object `raw`) means the live member (`0` is `Explore alerts`). */
  sameMember(field: string, raw: Record<string, unknown>, member: unknown, live: unknown): boolean;
}

export interface AdoptCandidate {
  kind: KindName;
  key: string;
  /** Configuration shape, defaults omitted: what export would write. */
  object: Attributes;
}

export interface AdoptTarget {
  file: string;
  document: number;
  path: NodePath;
}

export interface PullInput {
  plan: Plan;
  /** By `declaredKey(kind, key)`. */
  declared: ReadonlyMap<string, DeclaredObject>;
  rules: Readonly<Record<KindName, PullRules>>;
  adopt: readonly AdoptCandidate[];
  adoptTarget(kind: KindName): AdoptTarget;
  origin(file: string, document: number, path: NodePath): ValueOrigin | undefined;
}

export interface PullConflict {
  kind: KindName;
  key: string;
  file: string;
  line: number;
  col: number;
  reason: string;
}

export interface PullDecision {
  /** Edits by file, in no particular order (the editor places them). */
  edits: Map<string, YamlEdit[]>;
  conflicts: PullConflict[];
  updated: number;
  removed: number;
  adopted: number;
}

export const declaredKey = (kind: KindName, key: string): string => `${kind}\u0000${key}`;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const ORIGIN_WORDS: Record<ValueOrigin['origin'], string> = {
  variable: `comes from a \${VAR} substitution`,
  alias: 'comes from an alias',
  anchor: 'is an anchored node that an alias reuses',
};

/** Thrown inside one object's decision: nothing is written for it. */
class Conflict extends Error {
  constructor(
    readonly line: number,
    readonly col: number,
    reason: string,
  ) {
    super(reason);
  }
}

/** The edits that make `raw[field]` (a file value) say `live` (a live value). */
function fieldEdits(
  object: DeclaredObject,
  rules: PullRules,
  field: string,
  live: unknown,
  checked: (path: NodePath) => void,
): YamlEdit[] {
  const { document, nodePath } = object.location;
  const path = [...nodePath, field];
  const file: unknown = object.raw[field];
  const set = (at: NodePath, value: unknown): YamlEdit => {
    checked(at);
    return { op: 'set', document, path: at, value };
  };
  if (Array.isArray(file) && Array.isArray(live)) {
    const kept = new Set<number>();
    const added = live.filter((member) => {
      const index = file.findIndex((m, i) => !kept.has(i) && rules.sameMember(field, object.raw, m, member));
      if (index === -1) return true;
      kept.add(index);
      return false;
    });
    const removed = file.map((_, i) => i).filter((i) => !kept.has(i));
    // A set whose every member goes is written whole: no empty list left to append to.
    if (kept.size === 0) return [set(path, rules.fileValue(field, live, object.raw))];
    const edits: YamlEdit[] = removed.map((i) => {
      checked([...path, i]);
      return { op: 'remove', document, path: [...path, i] };
    });
    if (added.length > 0) {
      checked(path);
      const values = rules.fileValue(field, added, object.raw) as unknown[];
      edits.push({ op: 'append', document, path, values });
    }
    return edits;
  }
  if (isPlainObject(file) && isPlainObject(live)) {
    const value = rules.fileValue(field, live, object.raw) as Record<string, unknown>;
    return Object.keys(live)
      .filter((key) => !sameJson(file[key], live[key]) && !(file[key] === undefined && !(key in value)))
      .map((key) => set([...path, key], value[key] ?? live[key]));
  }
  return [set(path, rules.fileValue(field, live, object.raw) ?? live)];
}

/** The live values of the fields a change says differ. */
function liveFields(change: Change): Attributes | undefined {
  if (change.action === 'update' || change.action === 'replace') {
    return Object.fromEntries(change.fields.map((field) => [field, change.before[field]]));
  }
  return undefined;
}

export function decidePull(input: PullInput): PullDecision {
  const decision: PullDecision = { edits: new Map(), conflicts: [], updated: 0, removed: 0, adopted: 0 };
  const add = (file: string, edits: readonly YamlEdit[]) => {
    const list = decision.edits.get(file) ?? [];
    for (const edit of edits) list.push(edit);
    decision.edits.set(file, list);
  };

  for (const change of input.plan.changes) {
    if (change.action === 'delete') continue; // undeclared live objects: see `adopt`
    const object = input.declared.get(declaredKey(change.kind, change.key));
    if (object === undefined) continue;
    const { file, document, nodePath, line, col } = object.location;
    // Every path an edit touches must be written literally (and so must the object's own node).
    const checked = (path: NodePath) => {
      const found = input.origin(file, document, path);
      if (found !== undefined) {
        throw new Conflict(
          found.line,
          found.col,
          `${path.slice(nodePath.length).join('.') || 'the object'} ${ORIGIN_WORDS[found.origin]}`,
        );
      }
    };
    try {
      if (change.action === 'create') {
        if (object.protect) {
          throw new Conflict(
            line,
            col,
            'it is protected: deleted live, kept in the file (restore it with `wafctl apply`, or remove it by hand)',
          );
        }
        checked(nodePath);
        add(file, [{ op: 'remove', document, path: nodePath }]);
        decision.removed += 1;
        continue;
      }
      const live = liveFields(change) ?? {};
      const rules = input.rules[change.kind];
      if (rules === undefined) throw new Error(`pull: no rules for the family ${change.kind}`);
      const edits = Object.entries(live).flatMap(([field, value]) =>
        fieldEdits(object, rules, field, value, checked),
      );
      add(file, edits);
      decision.updated += 1;
    } catch (error) {
      if (!(error instanceof Conflict)) throw error;
      decision.conflicts.push({
        kind: change.kind,
        key: change.key,
        file,
        line: error.line,
        col: error.col,
        reason: error.message,
      });
    }
  }

  // One append per kind: its objects go after the list's last item, in the candidates' order.
  const byKind = new Map<KindName, Attributes[]>();
  for (const candidate of input.adopt) {
    const objects = byKind.get(candidate.kind) ?? [];
    objects.push(candidate.object);
    byKind.set(candidate.kind, objects);
  }
  for (const [kind, objects] of byKind) {
    const target = input.adoptTarget(kind);
    add(target.file, [{ op: 'append', document: target.document, path: target.path, values: objects }]);
    decision.adopted += objects.length;
  }
  return decision;
}
