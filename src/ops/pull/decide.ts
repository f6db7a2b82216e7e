/**
 * What `wafctl pull` changes in the author's files, decided from the plan (configuration -> live) and
 * where each object is declared. Pure: the files' texts are only consulted through `origin`, and the
 * YAML editing is yaml-edit.ts's.
 *
 * - An update or replace writes the live value of each differing field where the object is declared:
 *   a set (every list of the configuration is one) by removing and appending members, keeping the
 *   others where they are; an object field by its differing keys; anything else whole.
 * - An object the configuration declares but the firewall no longer has is removed from its file.
 * - With environments (`--env`), an object may be declared in several paths (config/overlay.ts):
 *   each field is written into the last declaration that sets it (`declarationOf`), unless that
 *   declaration is in an earlier path other environments read too (`Declaration.sharedWith`): a hand
 *   change on one environment's firewall is then kept in its own path (`own`: an overlay), so that
 *   the other environments' next plans do not change with it (`writeShared` writes the shared
 *   declaration instead). An object deleted live leaves the files as its `removal` says (a
 *   declaration in a path other environments may read is kept, and a `remove: true` entry goes into
 *   the environment's own path instead).
 * - With `adopt`, in-scope live objects no file declares are appended (see `adoptTarget`).
 * - A value that the file does not write literally (from `${VAR}`, an alias, or an anchored node
 *   used elsewhere) is a conflict: nothing is written for that object, and the reason names the place.
 */
import type { SourceLocation } from '../../config/natural-keys.js';
import { REMOVE } from '../../config/overlay.js';
import { sameJson } from '../../core/canonical.js';
import type { Attributes, Change, KindName, Plan } from '../../core/model.js';
import { KINDS } from '../../kinds/index.js';
import type { NodePath, ValueOrigin, YamlEdit } from './model.js';

/** One place that declares an object: where, and what it writes there (after `${VAR}` substitution). */
export interface Declaration {
  location: SourceLocation;
  raw: Record<string, unknown>;
  /**
   * With environments, for a declaration in an earlier path than the environment's own: the other
   * environments that read its file too (absent or empty: only this one does). A changed field it
   * sets is kept in the object's `own` path instead, unless `writeShared`.
   */
  sharedWith?: readonly string[];
}

export interface DeclaredObject {
  kind: KindName;
  key: string;
  /** Where the object is declared (with environments: its last declaration). */
  location: SourceLocation;
  /** The object as its file holds it (with `declarations`: them merged, as the overlay merges them). */
  raw: Record<string, unknown>;
  protect: boolean;
  /**
   * With environments, an object declared in several paths: every declaration in path order, the
   * last one at `location`. Absent: declared once, at `location`, as `raw`.
   */
  declarations?: readonly Declaration[];
  /** How the object, deleted live, leaves the files; absent: its declaration is removed. */
  removal?: Removal;
  /**
   * With environments: where a changed field goes when the declaration that sets it is shared with
   * other environments (see `Declaration.sharedWith`), so that the change stays this environment's.
   */
  own?: OwnPath;
}

export type OwnPath =
  /** The object's last declaration (`location`) is in the environment's own path: the field is set there. */
  | { op: 'declared' }
  /**
   * No declaration in the own path: a new overlay entry, the natural key's fields (`key`) and the
   * changed fields, is appended at `target` (where `remove: true` entries go).
   */
  | { op: 'append'; target: AdoptTarget; key: Record<string, unknown> }
  /** A singleton section no file of the own path declares: the section, with the changed fields, is set at `target`. */
  | { op: 'section'; target: AdoptTarget };

export type Removal =
  /**
   * Declared in an earlier path that other environments may share: that declaration is kept, and
   * `entry` (the natural key and `remove: true`) is appended at `target`, in the environment's path.
   */
  | { op: 'append'; target: AdoptTarget; entry: Record<string, unknown> }
  /** Its last declaration overrides an earlier path's: it becomes the removal (`keep`: the key fields). */
  | { op: 'override'; keep: readonly string[] };

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
  /** `--write-shared`: a changed field is written where it is declared, even in a shared path. */
  writeShared?: boolean;
}

export interface PullConflict {
  kind: KindName;
  key: string;
  file: string;
  line: number;
  col: number;
  reason: string;
}

/** Fields of one object written into the environment's own path instead of the shared file that declares them. */
export interface KeptChange {
  kind: KindName;
  key: string;
  fields: string[];
  /** The own path's file that received them. */
  file: string;
  /** The shared file that declares them, left untouched. */
  insteadOf: string;
  /** The other environments that read `insteadOf`. */
  sharedWith: readonly string[];
}

export interface PullDecision {
  /** Edits by file, in no particular order (the editor places them). */
  edits: Map<string, YamlEdit[]>;
  conflicts: PullConflict[];
  /** In plan order. */
  kept: KeptChange[];
  updated: number;
  removed: number;
  adopted: number;
}

/** The id of an object among the declared ones: its kind and natural key. */
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
    /** The file it is in, when not the object's own (`location`). */
    readonly file?: string,
  ) {
    super(reason);
  }
}

/**
 * The declaration a field is written into: the last one that sets it, else (a field left to its
 * default everywhere) the last one, where the object is declared for this run.
 */
export function declarationOf(object: DeclaredObject, field: string): SourceLocation {
  const declarations = object.declarations ?? [];
  return declarations.findLast((d) => Object.hasOwn(d.raw, field))?.location ?? object.location;
}

/** The edits that make `raw[field]` (a file value, written at `location`) say `live` (a live value). */
function fieldEdits(
  object: DeclaredObject,
  location: SourceLocation,
  rules: PullRules,
  field: string,
  live: unknown,
  checked: (path: NodePath) => void,
): YamlEdit[] {
  const { document, nodePath } = location;
  const path = [...nodePath, field];
  const file: unknown = object.raw[field];
  const set = (at: NodePath, value: unknown): YamlEdit => {
    checked(at);
    return { op: 'set', document, path: at, value };
  };
  if (Array.isArray(file) && Array.isArray(live)) {
    const same = (member: unknown, value: unknown) => rules.sameMember(field, object.raw, member, value);
    const toFile = (values: unknown[]) => rules.fileValue(field, values, object.raw) as unknown[];
    return listEdits({ document, path, file, live, same, toFile, checked });
  }
  if (isPlainObject(file) && isPlainObject(live)) {
    const value = rules.fileValue(field, live, object.raw) as Record<string, unknown>;
    return Object.keys(live)
      .filter((key) => !sameJson(file[key], live[key]) && !(file[key] === undefined && !(key in value)))
      .flatMap((key) => {
        const inFile = file[key];
        const inLive = live[key];
        // A nested set (the allowlist's `whitelist`) is edited as a set too: members removed and
        // appended, the file's order kept; members are plain values, compared as they are.
        if (!Array.isArray(inFile) || !Array.isArray(inLive))
          return [set([...path, key], value[key] ?? inLive)];
        const at = [...path, key];
        return listEdits({
          document,
          path: at,
          file: inFile,
          live: inLive,
          same: sameJson,
          toFile: (v) => v,
          checked,
        });
      });
  }
  return [set(path, rules.fileValue(field, live, object.raw) ?? live)];
}

/**
 * The edits that make a file's set `file` (at `path`) hold the live members: the members no longer
 * live removed, the new ones appended after the file's last (its order kept), or the whole list
 * written when none of the file's members is left.
 */
function listEdits(input: {
  document: number;
  path: NodePath;
  file: readonly unknown[];
  live: readonly unknown[];
  same: (member: unknown, live: unknown) => boolean;
  toFile: (values: unknown[]) => unknown[];
  checked: (path: NodePath) => void;
}): YamlEdit[] {
  const { document, path, file, live, same, toFile, checked } = input;
  const kept = new Set<number>();
  const added = live.filter((member) => {
    const index = file.findIndex((m, i) => !kept.has(i) && same(m, member));
    if (index === -1) return true;
    kept.add(index);
    return false;
  });
  checked(path);
  // A set whose every member goes is written whole: no empty list left to append to.
  if (kept.size === 0) return [{ op: 'set', document, path, value: toFile([...live]) }];
  const edits: YamlEdit[] = file
    .map((_, i) => i)
    .filter((i) => !kept.has(i))
    .map((i) => {
      checked([...path, i]);
      return { op: 'remove', document, path: [...path, i] };
    });
  if (added.length > 0) edits.push({ op: 'append', document, path, values: toFile(added) });
  return edits;
}

/**
 * The live values of the fields a change says differ. A rename not applied yet (`renamed_from` in the
 * file, the old key still live) keeps the file's key: the file is ahead of the firewall there, and
 * writing the old key back would undo the rename (the other fields are pulled as usual).
 */
function liveFields(change: Change): Attributes | undefined {
  if (change.action === 'update' || change.action === 'replace') {
    const keyFields =
      change.renamed_from === undefined
        ? []
        : (KINDS.find((kind) => kind.name === change.kind)?.keyFields ?? []);
    return Object.fromEntries(
      change.fields
        .filter((field) => !keyFields.includes(field))
        .map((field) => [field, change.before[field]]),
    );
  }
  return undefined;
}

/**
 * What one object's decision adds, committed only once the whole object is decided (a conflict
 * anywhere in it leaves the files untouched for that object).
 */
interface Pending {
  edits: { file: string; edits: YamlEdit[] }[];
  /** Entries appended to a list (removals, new overlay entries): gathered by list, one append each. */
  appended: { target: AdoptTarget; entry: Record<string, unknown> }[];
  kept: KeptChange[];
}

const nothing = (): Pending => ({ edits: [], appended: [], kept: [] });

/** Checks that a path at a declaration is written literally; throws a Conflict where it is not. */
type Checker = (path: NodePath) => void;

/** The edits that take an object deleted live out of the files, as its `removal` says. */
function removalOf(object: DeclaredObject, checked: Checker): Pending {
  const { file, document, nodePath, line, col } = object.location;
  if (object.protect) {
    throw new Conflict(
      line,
      col,
      'it is protected: deleted live, kept in the file (restore it with `wafctl apply`, or remove it by hand)',
    );
  }
  const pending = nothing();
  const removal = object.removal;
  if (removal === undefined) {
    checked(nodePath);
    pending.edits.push({ file, edits: [{ op: 'remove', document, path: nodePath }] });
  } else if (removal.op === 'override') {
    // The override's own fields go, its key stays, and `remove: true` is added.
    const own = object.declarations?.at(-1)?.raw ?? object.raw;
    const edits: YamlEdit[] = Object.keys(own)
      .filter((field) => !removal.keep.includes(field))
      .map((field) => {
        checked([...nodePath, field]);
        return { op: 'remove', document, path: [...nodePath, field] };
      });
    checked([...nodePath, REMOVE]);
    edits.push({ op: 'set', document, path: [...nodePath, REMOVE], value: true });
    pending.edits.push({ file, edits });
  } else {
    pending.appended.push({ target: removal.target, entry: removal.entry });
  }
  return pending;
}

/** The other environments that read the declaration at `location` (empty: written there). */
function sharedAt(object: DeclaredObject, location: SourceLocation): readonly string[] {
  const found = object.declarations?.find(
    (d) =>
      d.location.file === location.file &&
      d.location.document === location.document &&
      d.location.path === location.path,
  );
  return found?.sharedWith ?? [];
}

/** Changed fields kept out of one shared file: their live values, and who else reads that file. */
interface KeptFields {
  values: [string, unknown][];
  sharedWith: readonly string[];
}

/**
 * The edits that make an object declared in the files say its live fields: each field into the
 * declaration that sets it, or, when that one is shared with other environments, into the
 * environment's own path (`keptEdits`).
 */
function updateOf(
  change: Change,
  object: DeclaredObject,
  input: PullInput,
  checkerOf: (at: SourceLocation) => Checker,
): Pending {
  const live = liveFields(change) ?? {};
  const rules = input.rules[change.kind];
  if (rules === undefined) throw new Error(`pull: no rules for the family ${change.kind}`);
  const own = input.writeShared ? undefined : object.own;
  const pending = nothing();
  const kept = new Map<string, KeptFields>();
  for (const [field, value] of Object.entries(live)) {
    const location = declarationOf(object, field);
    const shared = own === undefined ? [] : sharedAt(object, location);
    if (shared.length === 0) {
      const edits = fieldEdits(object, location, rules, field, value, checkerOf(location));
      pending.edits.push({ file: location.file, edits });
      continue;
    }
    const found = kept.get(location.file) ?? { values: [], sharedWith: shared };
    found.values.push([field, value]);
    kept.set(location.file, found);
  }
  if (own === undefined || kept.size === 0) return pending;
  const values = [...kept.values()].flatMap((entry) => entry.values);
  const file = keptEdits(object, own, values, rules, checkerOf(object.location), pending);
  for (const [insteadOf, { values: fields, sharedWith }] of kept) {
    const names = fields.map(([field]) => field);
    pending.kept.push({ kind: change.kind, key: change.key, fields: names, file, insteadOf, sharedWith });
  }
  return pending;
}

/**
 * Adds to `pending` the edits that write `values` (live) into the environment's own path, each field
 * whole (an overlay replaces a top-level field whole: config/overlay.ts); returns the file they go to.
 */
function keptEdits(
  object: DeclaredObject,
  own: OwnPath,
  values: readonly [string, unknown][],
  rules: PullRules,
  checked: Checker,
  pending: Pending,
): string {
  const whole = (field: string, value: unknown) => rules.fileValue(field, value, object.raw) ?? value;
  if (own.op === 'declared') {
    const { file, document, nodePath } = object.location;
    const edits = values.map(([field, value]): YamlEdit => {
      checked([...nodePath, field]);
      return { op: 'set', document, path: [...nodePath, field], value: whole(field, value) };
    });
    pending.edits.push({ file, edits });
    return file;
  }
  const fields = Object.fromEntries(values.map(([field, value]) => [field, whole(field, value)]));
  const { target } = own;
  if (own.op === 'append') pending.appended.push({ target, entry: { ...own.key, ...fields } });
  else {
    const edit: YamlEdit = { op: 'set', document: target.document, path: target.path, value: fields };
    pending.edits.push({ file: target.file, edits: [edit] });
  }
  return target.file;
}

/**
 * What to change in the files so that they say what is live (see above): each file's edits, the
 * objects left alone for a conflict, the changes kept in an environment's own path, and the counts.
 */
export function decidePull(input: PullInput): PullDecision {
  const decision: PullDecision = {
    edits: new Map(),
    conflicts: [],
    kept: [],
    updated: 0,
    removed: 0,
    adopted: 0,
  };
  const add = (file: string, edits: readonly YamlEdit[]) => {
    const list = decision.edits.get(file) ?? [];
    for (const edit of edits) list.push(edit);
    decision.edits.set(file, list);
  };
  // Entries appended to one list, by where they go: with environments, `remove: true` entries and
  // new overlay entries (in plan order), then adopted objects. One append per list: two would each
  // add the list's key to a document that lacks it.
  const appended = new Map<string, { target: AdoptTarget; entries: Record<string, unknown>[] }>();
  const appendTo = (target: AdoptTarget, entry: Record<string, unknown>) => {
    const at = `${target.file}\u0000${target.document}\u0000${JSON.stringify(target.path)}`;
    const found = appended.get(at) ?? { target, entries: [] };
    found.entries.push(entry);
    appended.set(at, found);
  };

  for (const change of input.plan.changes) {
    if (change.action === 'delete') continue; // undeclared live objects: see `adopt`
    const object = input.declared.get(declaredKey(change.kind, change.key));
    if (object === undefined) continue;
    // Every path an edit touches must be written literally (and so must the object's own node).
    const checkerOf =
      (at: SourceLocation): Checker =>
      (path) => {
        const found = input.origin(at.file, at.document, path);
        if (found === undefined) return;
        const what = path.slice(at.nodePath.length).join('.') || 'the object';
        throw new Conflict(found.line, found.col, `${what} ${ORIGIN_WORDS[found.origin]}`, at.file);
      };
    let pending: Pending;
    try {
      pending =
        change.action === 'create'
          ? removalOf(object, checkerOf(object.location))
          : updateOf(change, object, input, checkerOf);
    } catch (error) {
      if (!(error instanceof Conflict)) throw error;
      const { kind, key } = change;
      const { line, col, message: reason } = error;
      decision.conflicts.push({ kind, key, file: error.file ?? object.location.file, line, col, reason });
      continue;
    }
    for (const { file, edits } of pending.edits) add(file, edits);
    for (const { target, entry } of pending.appended) appendTo(target, entry);
    for (const entry of pending.kept) decision.kept.push(entry);
    if (change.action === 'create') decision.removed += 1;
    else decision.updated += 1;
  }
  // Adopted objects go after the list's last item, in the candidates' order.
  for (const candidate of input.adopt) {
    appendTo(input.adoptTarget(candidate.kind), candidate.object);
    decision.adopted += 1;
  }
  for (const { target, entries } of appended.values()) {
    add(target.file, [{ op: 'append', document: target.document, path: target.path, values: entries }]);
  }
  return decision;
}
