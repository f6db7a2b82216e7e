/**
 * The planner: desired + remote + manage scope -> Plan. Pure: no I/O, no clock, no randomness.
 *
 * It knows no resource family. Each kind hands it records already normalised into one comparable
 * shape (server fields dropped, defaults applied, set-like lists sorted), so "equal" is plain deep
 * equality and the planner stays a few map look-ups per object: O(n) overall.
 */
import { canonicalJson, fingerprint, sameJson } from '../core/canonical.js';
import { DEFAULT_FIREWALL_ACTIONS, type FirewallActions } from '../core/firewall-actions.js';
import { classifyChange, type ImpactContext, type ImpactDirection, type ImpactRule } from '../core/impact.js';
import {
  type Attributes,
  type Change,
  type KindName,
  type Plan,
  type PlanNote,
  type PlanProblem,
  type ReadOnlyDrift,
  type RenameSuggestion,
  readOnlyAsChange,
  type SafetyWarning,
  type UnmanagedObject,
} from '../core/model.js';
import { inScope, type ManageScope } from '../core/scope.js';
import { inRegistryOrder } from '../kinds/index.js';
import type { ActionSync } from '../kinds/kind.js';
import { attachImpact, DEFAULT_SAFETY, type SafetySettings, safetyWarning, summarize } from './assess.js';
import { survivorFirst } from './survivor.js';

export interface DesiredObject {
  key: string;
  attributes: Attributes;
  protect: boolean;
  /** Fields never updated after create (a change to them is ignored, even on immutable fields). */
  ignoreChanges: readonly string[];
  /** `FILE:LINE:COL` where the object is declared, for problems. */
  source?: string;
  /**
   * `renamed_from:`: the natural key the object had. When no live object has `key`, the live object
   * with this key is the one declared, updated in place (or replaced, see `fixedKeyFields`).
   */
  renamed_from?: string | undefined;
}

export interface RemoteObject {
  key: string;
  id: string;
  attributes: Attributes;
  /**
   * When the server created it, in any unit that orders one kind's objects (UNIX microseconds for
   * rules and schedules, milliseconds for groups); absent when the API does not say. Only used to
   * pick the oldest of several objects that share a key.
   */
  createdAt?: number | undefined;
  /** Set when the server refuses every change to it: never updated or deleted, nor listed as unmanaged. */
  readOnly?: string | undefined;
  /**
   * Who last changed it and when (UNIX milliseconds), and its actions' synchronization, where the
   * record gives them (RemoteRecord). The planner never reads them: a drift report does
   * (attribution.ts, enforcement.ts).
   */
  changedBy?: string | undefined;
  changedAt?: number | undefined;
  enforcement?: readonly ActionSync[] | undefined;
  /** The usernames the record gives its members, by id (RemoteRecord): refresh reads them, the planner never. */
  usernames?: ReadonlyMap<string, string> | undefined;
}

export interface KindPlanInput {
  kind: KindName;
  /** Fields that cannot be updated in place: a change to one replaces the object. */
  immutable: readonly string[];
  /**
   * The natural key's fields. Only used to tell a delete and a create that differ in nothing else
   * (a rename without `renamed_from`, suggested); without them nothing is suggested.
   */
  keyFields?: readonly string[];
  /**
   * Key fields the API does not update: a rename that changes one replaces the object (the kind's
   * `fixedKeyFields`). The others are updated in place like any field.
   */
  fixedKeyFields?: readonly string[];
  desired: readonly DesiredObject[];
  remote: readonly RemoteObject[];
  scope: ManageScope;
  /**
   * The kind's security impact table (src/kinds/); without it, the kind's changes have no impact.
   * Optional so that tests of the planner's other behaviour need not bring one.
   */
  impact?: readonly ImpactRule[];
  /**
   * What the configuration expects of read-only objects (the built-in `admins` group), by key: the
   * fields given are compared with the live object's, a difference is reported (`read_only`), never
   * planned.
   */
  expected?: readonly ExpectedObject[];
}

/** A read-only object's expected fields (only those given are checked). */
export interface ExpectedObject {
  key: string;
  attributes: Attributes;
}

export { DEFAULT_SAFETY, type SafetySettings } from './assess.js';

export interface PlanOptions {
  safety?: SafetySettings;
  /** Which `firewall_action` values block, observe or allow (`settings.firewall_actions`). */
  firewallActions?: FirewallActions;
  /** Classify what applying does (default), or, for drift reports, what was done by hand. */
  impactDirection?: ImpactDirection;
  /** How a user id reads in a reason, where the user listing names it (ImpactContext). */
  userLabel?: ((id: string) => string) | undefined;
}

interface KindResult {
  changes: Change[];
  problems: PlanProblem[];
  notes: PlanNote[];
  suggestions: RenameSuggestion[];
  unchanged: number;
  /** The remote objects left alone, sorted by key (counted in `summary.unmanaged`). */
  unmanaged: UnmanagedObject[];
  warning?: SafetyWarning;
}

/**
 * The plan of every kind given, in the registry's order: its changes (impact attached), problems,
 * safety warnings and notes, the objects left alone, and the read-only objects' drift.
 */
export function planChanges(inputs: readonly KindPlanInput[], options: PlanOptions = {}): Plan {
  const safety = options.safety ?? DEFAULT_SAFETY;
  const context: ImpactContext = {
    firewallActions: options.firewallActions ?? DEFAULT_FIREWALL_ACTIONS,
    userLabel: options.userLabel,
  };
  const changes: Change[] = [];
  const problems: PlanProblem[] = [];
  const warnings: SafetyWarning[] = [];
  const untouched = { unchanged: 0, unmanaged: 0 };
  const unmanaged: UnmanagedObject[] = [];
  const notes: PlanNote[] = [];
  const suggestions: RenameSuggestion[] = [];
  const readOnly: ReadOnlyDrift[] = [];
  // A drift report shows what was done by hand: no advice on the configuration's renames.
  const suggest = options.impactDirection !== 'drift';
  for (const input of inRegistryOrder(inputs, (input) => input.kind)) {
    const result = planKind(input, safety, suggest);
    for (const note of result.notes) notes.push(note);
    for (const suggestion of result.suggestions) suggestions.push(suggestion);
    attachImpact(result.changes, input.impact, context, options.impactDirection);
    for (const change of result.changes) changes.push(change);
    for (const problem of result.problems) problems.push(problem);
    if (result.warning) warnings.push(result.warning);
    untouched.unchanged += result.unchanged;
    untouched.unmanaged += result.unmanaged.length;
    for (const object of result.unmanaged) unmanaged.push(object);
    for (const finding of readOnlyDrift(input, context)) readOnly.push(finding);
  }
  const plan: Plan = { summary: summarize(changes, untouched), changes, problems, warnings };
  // Only when there are some: a plan that leaves nothing alone writes the JSON it always wrote.
  if (unmanaged.length > 0) plan.unmanaged = unmanaged;
  if (notes.length > 0) plan.notes = notes;
  if (suggestions.length > 0) plan.rename_suggestions = suggestions;
  if (readOnly.length > 0) plan.read_only = readOnly;
  return plan;
}

/**
 * The read-only objects of a kind that differ from what the configuration expects of them. The
 * difference is classified as a change made by hand, from the expected object to the live one (a
 * member added broadens access), whichever way the plan's other changes are classified: wafctl
 * never makes it, and cannot undo it.
 */
function readOnlyDrift(input: KindPlanInput, context: ImpactContext): ReadOnlyDrift[] {
  const expected = new Map((input.expected ?? []).map((object) => [object.key, object.attributes]));
  const found: ReadOnlyDrift[] = [];
  for (const remote of input.remote) {
    const wanted = remote.readOnly === undefined ? undefined : expected.get(remote.key);
    if (wanted === undefined) continue;
    const live = remote.attributes;
    const fields = Object.keys(wanted).filter((field) => !sameJson(wanted[field], live[field]));
    if (fields.length === 0) continue;
    const handChange = readOnlyAsChange({
      kind: input.kind,
      key: remote.key,
      id: remote.id,
      fields,
      before: { ...live, ...wanted },
      after: live,
    });
    const impact = classifyChange(handChange, input.impact ?? [], context);
    const pick = (object: Attributes) => Object.fromEntries(fields.map((field) => [field, object[field]]));
    found.push({
      kind: input.kind,
      key: remote.key,
      id: remote.id,
      fields,
      before: pick(wanted),
      after: pick(live),
      impact,
    });
  }
  return found;
}

/** What planning one kind works with: made once per kind, and handed to each of its phases. */
interface KindState {
  input: KindPlanInput;
  result: KindResult;
  /** The in-scope remote objects, by key (read-only ones are in `readOnly`). */
  byKey: Map<string, RemoteObject[]>;
  /** The ids of the remote objects outside the scope, by key. */
  outOfScope: Map<string, string[]>;
  /** The ids of the read-only remote objects, by key. */
  readOnly: Map<string, string[]>;
  /** The keys declared, and the old keys of the renames matched: what the prune leaves alone. */
  declared: Set<string>;
  /**
   * Only when some object has `renamed_from`: the keys every object declares, and the old keys
   * already matched (one live object is renamed once).
   */
  renames: Renames | undefined;
  /** The safety threshold's counts: in-scope remote objects, deletes, and deletes of duplicates. */
  existing: number;
  deletes: number;
  duplicates: number;
}

interface Renames {
  declaredKeys: ReadonlySet<string>;
  claimed: Set<string>;
}

function planKind(input: KindPlanInput, safety: SafetySettings, suggest: boolean): KindResult {
  const state = indexRemote(input);
  for (const desired of input.desired) planDesired(state, desired);
  prune(state);
  const { kind, keyFields } = input;
  const { result, deletes, duplicates, existing } = state;
  if (suggest && keyFields !== undefined && keyFields.length > 0) {
    const found = renameSuggestions(kind, keyFields, result.changes, state.byKey, state.declared);
    for (const suggestion of found) result.suggestions.push(suggestion);
  }
  const warning = safetyWarning(kind, { deletes, duplicates, existing }, safety);
  if (warning) result.warning = warning;
  // Stable: several changes of one key (a survivor's update, then its duplicates) keep their order.
  result.changes.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  result.unmanaged.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return result;
}

/**
 * The kind's state, its remote objects sorted out by key. Remote objects outside the scope are never
 * touched, only listed as unmanaged — and remembered by key: a declared object whose key exists out
 * of scope must not be created a second time.
 */
function indexRemote(input: KindPlanInput): KindState {
  const { kind, scope } = input;
  const state: KindState = {
    input,
    result: { changes: [], problems: [], notes: [], suggestions: [], unchanged: 0, unmanaged: [] },
    byKey: new Map(),
    outOfScope: new Map(),
    readOnly: new Map(),
    declared: new Set(),
    renames: input.desired.some((d) => d.renamed_from !== undefined)
      ? { declaredKeys: new Set(input.desired.map((d) => d.key)), claimed: new Set() }
      : undefined,
    existing: 0,
    deletes: 0,
    duplicates: 0,
  };
  const { byKey, outOfScope, readOnly } = state;
  for (const remote of input.remote) {
    // Built in and read-only on the server (the `admins` group): never planned, and not news in a
    // plan either, so not listed among the unmanaged objects.
    if (remote.readOnly !== undefined) {
      readOnly.set(remote.key, [...(readOnly.get(remote.key) ?? []), remote.id]);
      continue;
    }
    if (!inScope(remote.attributes, scope)) {
      state.result.unmanaged.push({ kind, key: remote.key, id: remote.id, reason: 'outside_scope' });
      outOfScope.set(remote.key, [...(outOfScope.get(remote.key) ?? []), remote.id]);
      continue;
    }
    state.existing += 1;
    const same = byKey.get(remote.key);
    if (same) same.push(remote);
    else byKey.set(remote.key, [remote]);
  }
  return state;
}

/**
 * One declared object: a problem when it is out of scope or read-only, else matched with its live
 * objects (by key, or by `renamed_from`) and planned.
 */
function planDesired(state: KindState, desired: DesiredObject): void {
  const { input, result, renames } = state;
  const { kind } = input;
  state.declared.add(desired.key);
  if (!inScope(desired.attributes, input.scope)) {
    result.problems.push({
      kind,
      key: desired.key,
      message: `declared outside the manage scope of ${kind}s${declaredAt(desired)}; wafctl never touches objects outside it`,
    });
    return;
  }
  const fixed = state.readOnly.get(desired.key);
  if (fixed !== undefined) {
    result.problems.push({
      kind,
      key: desired.key,
      message: `is read-only on the server (id ${fixed.join(', ')})${declaredAt(desired)}; wafctl never changes it: remove the declaration`,
    });
    return;
  }
  const renamed =
    renames === undefined || desired.renamed_from === undefined
      ? undefined
      : matchRename(state, renames, desired, desired.renamed_from);
  const renamedFrom = renamed === undefined ? undefined : desired.renamed_from;
  if (renamedFrom !== undefined) state.declared.add(renamedFrom);
  const matches = renamed ?? state.byKey.get(desired.key) ?? [];
  if (matches.length === 0) planMissing(state, desired);
  else planMatched(state, desired, matches, renamedFrom);
}

/** A declared object no live object matches: created, unless its key exists out of scope. */
function planMissing(state: KindState, desired: DesiredObject): void {
  const { kind } = state.input;
  const outside = state.outOfScope.get(desired.key);
  if (outside !== undefined) {
    state.result.problems.push({
      kind,
      key: desired.key,
      message: `exists outside the manage scope of ${kind}s (id ${outside.join(', ')})${declaredAt(desired)}; wafctl neither touches it nor creates a second one: widen the scope or change the declaration`,
    });
    return;
  }
  state.result.changes.push({
    kind,
    key: desired.key,
    action: 'create',
    fields: Object.keys(desired.attributes),
    before: null,
    after: desired.attributes,
    impact: [],
  });
}

/**
 * A declared object and the live objects it matches. Several objects with one key (an interrupted
 * replacement, two applies at once, a create whose answer was lost): one survives and is compared
 * as usual, the others are deleted.
 */
function planMatched(
  state: KindState,
  desired: DesiredObject,
  matches: readonly RemoteObject[],
  renamedFrom: string | undefined,
): void {
  const { input, result } = state;
  const ranked =
    matches.length === 1
      ? matches
      : survivorFirst(matches, (remote) => changedFields(desired, remote).length === 0);
  const survivor = ranked[0]!;
  if (ranked.length > 1 && desired.protect) {
    result.problems.push(
      protectedDuplicatesProblem(input.kind, desired.key, declaredAt(desired), survivor, matches),
    );
    return;
  }
  const change = compare(input, desired, survivor, result.problems, renamedFrom);
  if (change) result.changes.push(change);
  else result.unchanged += 1;
  for (let i = 1; i < ranked.length; i++) destroy(state, ranked[i]!, survivor.id);
}

/** Prune: in-scope remote objects no file declares (every one of them, duplicates or not). */
function prune(state: KindState): void {
  const { kind, scope } = state.input;
  for (const [key, remotes] of state.byKey) {
    if (state.declared.has(key)) continue;
    // Not declared and not pruned: left alone, and counted as unmanaged like out-of-scope objects.
    if (!scope.prune) {
      for (const remote of remotes) {
        state.result.unmanaged.push({ kind, key: remote.key, id: remote.id, reason: 'not_declared' });
      }
    } else for (const remote of survivorFirst(remotes, noneEqual)) destroy(state, remote);
  }
}

/** An undeclared object's copies are all deleted: none is equal to a configuration. */
const noneEqual = () => false;

/** Plans the delete of a remote object (of a duplicate, when `duplicateOf` is its survivor's id). */
function destroy(state: KindState, remote: RemoteObject, duplicateOf?: string): void {
  state.deletes += 1;
  if (duplicateOf !== undefined) state.duplicates += 1;
  state.result.changes.push(deleteChange(state.input.kind, remote, duplicateOf));
}

/**
 * The live objects a `renamed_from` matches: those of the old key, when no live object has the new
 * key, no object declares the old key and no other object was renamed from it (one live object is
 * renamed once). Otherwise undefined, with a note saying why (the new key exists, so the rename is
 * done or both exist; or the old key matches nothing usable).
 */
function matchRename(
  state: KindState,
  renames: Renames,
  desired: DesiredObject,
  old: string,
): RemoteObject[] | undefined {
  const { byKey, outOfScope, readOnly } = state;
  const { kind } = state.input;
  const live = byKey.get(old) ?? [];
  const current = byKey.get(desired.key) ?? [];
  const outside = outOfScope.get(desired.key);
  const from = `renamed_from ${quoted(old)}${declaredAt(desired)}`;
  let message: string;
  if (current.length > 0 || outside !== undefined) {
    // The new key exists: it is the match. The old one, if it exists too, is any undeclared object.
    if (live.length === 0) {
      message = `${from} matches nothing: no live ${kind} has that key and ${quoted(desired.key)} exists, so the rename is done; the line can be removed`;
    } else {
      const ids = current.length > 0 ? current.map((r) => r.id) : (outside ?? []);
      message = `${from}: both ${quoted(old)} (id ${live.map((r) => r.id).join(', ')}) and ${quoted(desired.key)} (id ${ids.join(', ')}) exist; ${quoted(desired.key)} is the one declared, and ${quoted(old)} is left to prune like any object no file declares`;
    }
  } else if (live.length > 0 && !renames.declaredKeys.has(old) && !renames.claimed.has(old)) {
    renames.claimed.add(old);
    return live;
  } else {
    const why = renames.declaredKeys.has(old)
      ? `another object declares ${quoted(old)}`
      : renames.claimed.has(old)
        ? 'another object is renamed from it'
        : outOfScope.has(old)
          ? `it exists only outside the manage scope of ${kind}s (id ${(outOfScope.get(old) ?? []).join(', ')}), which wafctl never touches`
          : readOnly.has(old)
            ? 'it is read-only on the server'
            : `no live ${kind} has that key`;
    message = `${from} matches nothing: ${why}; ${quoted(desired.key)} is created (the line can stay until the files are cleaned up)`;
  }
  state.result.notes.push({ kind, key: desired.key, message });
  return undefined;
}

function quoted(key: string): string {
  return JSON.stringify(key);
}

function deleteChange(kind: KindName, remote: RemoteObject, duplicateOf?: string): Change {
  return {
    kind,
    key: remote.key,
    action: 'delete',
    id: remote.id,
    fields: Object.keys(remote.attributes),
    before: remote.attributes,
    after: null,
    fingerprint: fingerprint(remote.id, remote.attributes),
    impact: [],
    ...(duplicateOf === undefined ? {} : { duplicate_of: duplicateOf }),
  };
}

/**
 * ` (declared at FILE:LINE:COL)`, or nothing. Only a problem names the source: it is read (and built,
 * see refresh.ts) only then.
 */
function declaredAt(desired: DesiredObject): string {
  const source = desired.source;
  return source ? ` (declared at ${source})` : '';
}

/** The desired fields that differ from the remote object (ignored fields never do). */
function changedFields(desired: DesiredObject, remote: RemoteObject): string[] {
  return Object.keys(desired.attributes).filter(
    (field) =>
      !desired.ignoreChanges.includes(field) &&
      !sameJson(desired.attributes[field], remote.attributes[field]),
  );
}

function compare(
  input: KindPlanInput,
  desired: DesiredObject,
  remote: RemoteObject,
  problems: PlanProblem[],
  renamedFrom?: string,
): Change | undefined {
  // The kinds hand an unchanged remote object the desired object's attributes (FetchOptions.desired).
  if (desired.attributes === remote.attributes) return undefined;
  const changed = changedFields(desired, remote);
  if (changed.length === 0) return undefined;
  const base = {
    kind: input.kind,
    key: desired.key,
    id: remote.id,
    fingerprint: fingerprint(remote.id, remote.attributes),
    impact: [],
    ...(renamedFrom === undefined ? {} : { renamed_from: renamedFrom }),
  };

  // A rename changes key fields, which the API updates in place unless the kind says it does not.
  const fixed = renamedFrom === undefined ? [] : (input.fixedKeyFields ?? []);
  const forcedBy = changed.filter((field) => input.immutable.includes(field) || fixed.includes(field));
  if (forcedBy.length > 0) {
    if (desired.protect) {
      const renamed =
        renamedFrom === undefined
          ? ''
          : ` (renamed from ${JSON.stringify(renamedFrom)}: the API does not update ${forcedBy.filter((f) => fixed.includes(f)).join(', ')})`;
      problems.push({
        kind: input.kind,
        key: desired.key,
        message: `protected${declaredAt(desired)}: changing ${forcedBy.join(', ')}${renamed} would replace it (delete and re-create); remove "protect: true" to allow it`,
      });
      return undefined;
    }
    return {
      ...base,
      action: 'replace',
      fields: changed,
      forced_by: forcedBy,
      before: remote.attributes,
      after: desired.attributes,
    };
  }
  return {
    ...base,
    action: 'update',
    fields: changed,
    before: remote.attributes,
    // The whole object the update leaves: ignored fields keep their remote value.
    after: { ...desired.attributes, ...pick(remote.attributes, desired.ignoreChanges) },
  };
}

/**
 * Creates that look like renames: a create and a removed object (a prune, or an undeclared object
 * left alone) of one family whose attributes are equal but for the key fields. Only pairs that are
 * alone with their attributes are suggested (never a guess between two candidates); duplicates'
 * deletes are not candidates. Nothing is computed unless both sides have some.
 */
function renameSuggestions(
  kind: KindName,
  keyFields: readonly string[],
  changes: readonly Change[],
  byKey: ReadonlyMap<string, readonly RemoteObject[]>,
  declared: ReadonlySet<string>,
): RenameSuggestion[] {
  const creates = changes.filter((c) => c.action === 'create');
  if (creates.length === 0) return [];
  const gone: { key: string; attributes: Attributes }[] = [];
  for (const [key, remotes] of byKey) {
    if (declared.has(key) || remotes.length !== 1) continue;
    gone.push({ key, attributes: remotes[0]!.attributes });
  }
  if (gone.length === 0) return [];
  const shape = (attributes: Attributes) => {
    const rest: Attributes = { ...attributes };
    for (const field of keyFields) delete rest[field];
    return canonicalJson(rest);
  };
  const removed = new Map<string, string[]>();
  for (const object of gone) {
    const at = shape(object.attributes);
    removed.set(at, [...(removed.get(at) ?? []), object.key]);
  }
  const created = new Map<string, string[]>();
  for (const change of creates) {
    const at = shape(change.after as Attributes);
    if (removed.has(at)) created.set(at, [...(created.get(at) ?? []), change.key]);
  }
  const suggestions: RenameSuggestion[] = [];
  for (const [at, to] of created) {
    const from = removed.get(at) ?? [];
    if (to.length === 1 && from.length === 1) suggestions.push({ kind, from: from[0]!, to: to[0]! });
  }
  return suggestions.sort((a, b) => (a.to < b.to ? -1 : a.to > b.to ? 1 : 0));
}

function pick(attributes: Attributes, fields: readonly string[]): Attributes {
  return Object.fromEntries(fields.filter((f) => f in attributes).map((f) => [f, attributes[f]]));
}

function protectedDuplicatesProblem(
  kind: KindName,
  key: string,
  where: string,
  survivor: RemoteObject,
  remotes: readonly RemoteObject[],
): PlanProblem {
  const ids = remotes.map((r) => r.id).join(', ');
  return {
    kind,
    key,
    message: `protected${where}: ${remotes.length} remote objects share this key (ids ${ids}) and deleting the duplicates would delete protected objects; nothing is planned for it. Delete all but one by hand, or remove "protect: true" to let wafctl keep id ${survivor.id} and delete the others`,
  };
}
