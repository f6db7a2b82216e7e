/**
 * Refresh: read the live state of the kinds a configuration uses and plan against it. The reading
 * (I/O through the kinds) is done here, in src/ops; `planChanges` (src/plan) itself stays pure.
 *
 * All kinds are fetched concurrently. A listing that does not add up (IncompleteListingError) aborts
 * the whole plan: deletes planned from a partial listing would destroy objects that exist.
 */

import * as z from 'zod';
import { type ApiClient, ApiError } from '../api/index.js';
import { type DeclaredSources, formatLocation, type SourceLocation } from '../config/natural-keys.js';
import { ConfigError, type ConfigProblem } from '../config/problems.js';
import { catalogExtensions } from '../config/rule-catalog-settings.js';
import { declaredObjects, scopeOf } from '../config/schema.js';
import { type LoadedConfig, sourcesOf } from '../config/validate-sources.js';
import type { ImpactDirection } from '../core/impact.js';
import type { Attributes, Plan, PlanTrust } from '../core/model.js';
import { safetyCodec } from '../core/safety.js';
import { applicationRulesKind } from '../kinds/application-rules.js';
import { KINDS, type Kind } from '../kinds/index.js';
import type { RemoteRecord } from '../kinds/kind.js';
import { sortedSet } from '../kinds/normalize.js';
import { readFamilies } from '../kinds/read-families.js';
import { NO_USER_LISTING_NOTE, type UserDirectory, userDirectoryOnce } from '../kinds/users.js';
import { withAttribution } from '../plan/attribution.js';
import { planBehaviour } from '../plan/behaviour.js';
import { withEnforcement } from '../plan/enforcement.js';
import {
  type DesiredObject,
  type ExpectedObject,
  type KindPlanInput,
  type PlanOptions,
  planChanges,
} from '../plan/planner.js';
import { type Selection, selectPlan } from '../plan/targets.js';

export interface RefreshOptions {
  /** GET-one calls in flight at once while hydrating. */
  concurrency: number;
  /** `drift` classifies the security impact of what changed outside wafctl (see impact.ts). */
  impactDirection?: ImpactDirection;
  /** A note for the user (one line, on stderr): the run goes on. */
  warn?: (line: string) => void;
  /** The user directory, when the caller reads it too (`userDirectoryOnce`): read once per run. */
  users?: () => Promise<UserDirectory | undefined>;
  /**
   * The application rules are read for the configuration's tests (the Behaviour section): a server
   * that lacks or hides them is then an error, as for a family the configuration declares, since
   * no test could say what it does.
   */
  testsRead?: boolean;
  /**
   * The time a drift report judges synchronization at (UNIX milliseconds: a pending action is drift
   * once it is older than the grace, src/plan/enforcement.ts); default the system's clock.
   */
  now?: () => number;
}

/** A declared object as the planner takes it; its `FILE:LINE:COL` is built only if a problem asks. */
class Declared implements DesiredObject {
  constructor(
    readonly key: string,
    readonly attributes: Attributes,
    readonly protect: boolean,
    readonly ignoreChanges: readonly string[],
    readonly sources: DeclaredSources,
    readonly renamed_from: string | undefined,
  ) {}

  get source(): string | undefined {
    const location = this.sources.get(this.key);
    return location && formatLocation(location);
  }
}

/**
 * Whether the configuration uses `kind`: a file declares some of it, or its manage block prunes (a
 * kind it does not use can have no change).
 */
function usesKind(config: LoadedConfig, kind: Kind | undefined): boolean {
  if (kind === undefined) return false;
  const expects =
    kind.expectation !== undefined && Object.hasOwn(config.state.expected, kind.expectation.section);
  return declaredObjects(config.state, kind).length > 0 || scopeOf(config.state, kind).prune || expects;
}

/**
 * The planner's inputs for `kinds` (default: the kinds the configuration uses), with their live
 * objects. A kind it does not use (`pull --adopt` reads every kind) that the server lacks or hides
 * is skipped with a note (kinds/read-families.ts): its input has no live objects, so nothing of it
 * is planned or adopted.
 */
export async function refreshInputs(
  config: LoadedConfig,
  api: ApiClient,
  options: RefreshOptions,
  kinds: readonly Kind[] = KINDS.filter((kind) => usesKind(config, kind)),
): Promise<KindPlanInput[]> {
  const { state } = config;
  const users = options.users ?? userDirectoryOnce(api);
  const members = await memberResolver(config, users, kinds, options.warn);
  const desired = kinds.map((kind) =>
    declaredObjects(state, kind).map((object) => {
      const attributes = members(kind, kind.attributes(object));
      return new Declared(
        kind.keyOf(attributes),
        attributes,
        object.protect,
        object.ignore_changes,
        sourcesOf(config, kind),
        object.renamed_from,
      );
    }),
  );
  const remote = await readFamilies(api, kinds, {
    concurrency: options.concurrency,
    desired: (kind) => {
      const byKey = new Map(
        (desired[kinds.indexOf(kind)] ?? []).map((object) => [object.key, object.attributes]),
      );
      return (key) => byKey.get(key);
    },
    declared: (kind) =>
      usesKind(config, kind) || (options.testsRead === true && kind === applicationRulesKind),
    warn: options.warn,
  });
  const expected = await Promise.all(
    kinds.map((kind, i) => expectedObjects(config, kind, remote[i], users, options.warn)),
  );
  return kinds.map((kind, i) =>
    planInputOf(kind, {
      scope: scopeOf(state, kind),
      remote: remote[i] ?? [],
      desired: desired[i] ?? [],
      ...(expected[i] === undefined ? {} : { expected: expected[i] }),
    }),
  );
}

/** One family's objects on both sides of a plan, and the scope it manages. */
export type FamilyObjects = Pick<KindPlanInput, 'scope' | 'remote' | 'desired' | 'expected'>;

/**
 * The planner's input for `kind`: its objects, with what its descriptor says of them (the fields an
 * update cannot change, the natural key's fields, the impact table). For a `comparison` of two
 * sides as written (`wafctl compare`), a difference is a difference: no field is immutable, so
 * nothing is replaced, and no key field is given, so no rename is suggested.
 */
export function planInputOf(
  kind: Kind,
  objects: FamilyObjects,
  purpose: 'plan' | 'comparison' = 'plan',
): KindPlanInput {
  const plan = purpose === 'plan';
  return {
    kind: kind.name,
    immutable: plan ? kind.immutable : [],
    ...(plan ? { keyFields: kind.keyFields } : {}),
    ...(plan && kind.fixedKeyFields !== undefined ? { fixedKeyFields: kind.fixedKeyFields } : {}),
    impact: kind.impact,
    ...objects,
  };
}

/**
 * The user directory when it can be had for what only shows or checks (labels, the default
 * expectation): a listing the server lacks (404) or this token may not read (403) is none.
 */
async function optionalDirectory(
  users: () => Promise<UserDirectory | undefined>,
): Promise<UserDirectory | undefined> {
  try {
    return await users();
  } catch (error) {
    if (error instanceof ApiError && error.status === 403) return undefined;
    throw error;
  }
}

/**
 * What the configuration expects of the kind's read-only object (kind.ts `expectation`): its
 * section, over the kind's defaults, in attribute form, members as the ids `expectedMembers` finds
 * them under in the live record.
 */
async function expectedObjects(
  config: LoadedConfig,
  kind: Kind,
  remote: readonly RemoteRecord[] | undefined,
  users: () => Promise<UserDirectory | undefined>,
  warn: ((line: string) => void) | undefined,
): Promise<ExpectedObject[] | undefined> {
  const expectation = kind.expectation;
  if (expectation === undefined) return undefined;
  const declared = config.state.expected[expectation.section];
  const attributes: Attributes = expectation.attributes({ ...expectation.defaults, ...declared });
  const record = remote?.find((object) => object.key === expectation.key && object.readOnly !== undefined);
  for (const field of kind.userFields ?? []) {
    const members = attributes[field];
    if (!Array.isArray(members)) continue;
    const path = `${expectation.section}.${field}`;
    const stated = declared !== undefined && Object.hasOwn(declared, field);
    const found = await expectedMembers(members as string[], heldMembers(record, field), {
      config,
      path,
      stated,
      users,
    });
    attributes[field] = found.ids;
    if (found.unnamed.length > 0) {
      warn?.(
        `${path}: the record of ${kind.noun} ${expectation.key} gives no username for ${found.unnamed.join(', ')}, nor does a user listing: compared by id`,
      );
    }
  }
  return [{ key: expectation.key, attributes }];
}

/** The members a read-only record holds in one of its user fields: their ids, and the usernames it gives them. */
interface HeldMembers {
  ids: readonly string[];
  usernames: ReadonlyMap<string, string>;
}

function heldMembers(record: RemoteRecord | undefined, field: string): HeldMembers {
  const value = record?.attributes[field];
  const ids = Array.isArray(value) ? value.filter((id): id is string => typeof id === 'string') : [];
  return { ids, usernames: record?.usernames ?? new Map() };
}

/** The member of `held` that `member` names: by id (ids win), else the one member with that username. */
function heldMember(held: HeldMembers, member: string): string | undefined {
  if (held.ids.includes(member)) return member;
  const named = held.ids.filter((id) => held.usernames.get(id) === member);
  return named.length === 1 ? named[0] : undefined;
}

/** Where an expectation's members are stated, and how the users it names are looked up. */
interface ExpectationSource {
  config: LoadedConfig;
  /** `admins.users`. */
  path: string;
  /** The configuration states them (else they are the kind's default). */
  stated: boolean;
  users: () => Promise<UserDirectory | undefined>;
}

/**
 * The ids an expectation's members name, compared with the live record's members (`held`): a member
 * the record holds, by id or by the username the record gives it (the admins group's record names
 * each member, so the default `admin` is checked on a server without a user listing, or without a
 * user named admin); else a user the directory knows (expected, not a member: a difference); else
 * the member as written (nobody the record holds: a difference too). A stated member the directory
 * does not know is a configuration problem, as in a group. `unnamed`: where some member is not
 * found by name, the record's members that neither it nor the listing names, compared by id.
 */
async function expectedMembers(
  members: readonly string[],
  held: HeldMembers,
  source: ExpectationSource,
): Promise<{ ids: string[]; unnamed: string[] }> {
  const inRecord = members.map((member) => heldMember(held, member));
  if (inRecord.every((id) => id !== undefined)) return { ids: sortedSet(inRecord), unnamed: [] };
  const directory = source.stated ? await source.users() : await optionalDirectory(source.users);
  const problems: ConfigProblem[] = [];
  const ids = members.map((member, i) => {
    const found = inRecord[i] === undefined ? directory?.resolve(member) : { id: inRecord[i] };
    if (found !== undefined && 'id' in found) return found.id;
    if (found !== undefined && source.stated) problems.push(expectationProblem(source, found.problem));
    return member;
  });
  if (problems.length > 0) throw new ConfigError(problems);
  const unnamed = held.ids.filter(
    (id) => !held.usernames.has(id) && !ids.includes(id) && (directory?.nameOf(id) ?? id) === id,
  );
  return { ids: sortedSet(ids), unnamed };
}

/** A problem of the expectation's members: the section has no line of its own to point at. */
function expectationProblem(source: ExpectationSource, message: string): ConfigProblem {
  return { file: source.config.files[0] ?? '', line: 0, col: 0, path: source.path, message };
}

/**
 * Turns the users of a declared object's `userFields` (usernames or ids) into ids, through the user
 * directory read once (only when some declared object has members). An unknown member is a
 * configuration problem at its list item, with the nearest usernames; all of them are thrown together
 * (a ConfigError) once every object has been resolved. Without a directory (a 404), members stay as
 * written, and `warn` says so once.
 */
async function memberResolver(
  config: LoadedConfig,
  users: () => Promise<UserDirectory | undefined>,
  kinds: readonly Kind[],
  warn: ((line: string) => void) | undefined,
): Promise<(kind: Kind, attributes: Attributes) => Attributes> {
  const withMembers = kinds.filter((kind) =>
    (kind.userFields ?? []).some((field) =>
      declaredObjects(config.state, kind).some((object) => {
        const value = object[field];
        return Array.isArray(value) && value.length > 0;
      }),
    ),
  );
  if (withMembers.length === 0) return (_kind, attributes) => attributes;
  const directory = await users();
  if (directory === undefined) {
    warn?.(NO_USER_LISTING_NOTE);
    return (_kind, attributes) => attributes;
  }
  const problems: ConfigProblem[] = [];
  const resolved = new Map<Kind, Map<string, Attributes>>();
  for (const kind of withMembers) {
    const byKey = new Map<string, Attributes>();
    for (const object of declaredObjects(config.state, kind)) {
      const attributes = resolveMembers(config, kind, kind.attributes(object), directory, problems, warn);
      byKey.set(kind.keyOf(attributes), attributes);
    }
    resolved.set(kind, byKey);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return (kind, attributes) => resolved.get(kind)?.get(kind.keyOf(attributes)) ?? attributes;
}

function resolveMembers(
  config: LoadedConfig,
  kind: Kind,
  attributes: Attributes,
  directory: UserDirectory,
  problems: ConfigProblem[],
  warn: ((line: string) => void) | undefined,
): Attributes {
  const out: Attributes = { ...attributes };
  const key = kind.keyOf(attributes);
  const sources = sourcesOf(config, kind);
  for (const field of kind.userFields ?? []) {
    const members = attributes[field];
    if (!Array.isArray(members)) continue;
    const ids: string[] = [];
    for (const member of members as string[]) {
      const found = directory.resolve(member);
      const at = () => sources.getListItem(key, field, member) ?? sources.get(key);
      if ('id' in found) {
        ids.push(found.id);
        if (found.note !== undefined) warn?.(`${noteAt(at(), kind, key)}: ${found.note}`);
        continue;
      }
      const where = at();
      problems.push(
        where === undefined
          ? {
              file: config.files[0] ?? '',
              line: 0,
              col: 0,
              path: '',
              message: `${kind.noun} "${key}": ${found.problem}`,
            }
          : { file: where.file, line: where.line, col: where.col, path: where.path, message: found.problem },
      );
    }
    out[field] = sortedSet(ids);
  }
  return out;
}

/** Where a note about a declared object points: its file:line:col and path, else its address. */
function noteAt(at: SourceLocation | undefined, kind: Kind, key: string): string {
  return at === undefined ? `${kind.noun} "${key}"` : `${formatLocation(at)} ${at.path}`;
}

/** The planner's options from the configuration's settings. */
export function planOptions(config: LoadedConfig, impactDirection?: ImpactDirection): PlanOptions {
  const { settings } = config.state;
  return {
    safety: z.decode(safetyCodec, settings.safety),
    firewallActions: settings.firewall_actions,
    ...(impactDirection === undefined ? {} : { impactDirection }),
  };
}

/** What a plan of the live state is made with: the refresh's options, and what the plan holds. */
export interface PlanRefreshOptions extends RefreshOptions {
  /** `--target`, `--exclude`, `--kind`: the plan holds only the selected changes (plan/targets.ts). */
  selection?: Selection | undefined;
  /** The Trust section (`--trusted-ref`): what the work tree changes in what the trusted ref pins. */
  trust?: PlanTrust | undefined;
}

/**
 * The plan of the configuration against the live state: its selected changes (all without a
 * selection), and its Trust section when there is one.
 */
export async function refreshAndPlan(
  config: LoadedConfig,
  api: ApiClient,
  options: PlanRefreshOptions,
): Promise<Plan> {
  const users = options.users ?? userDirectoryOnce(api);
  const tested = hasBehaviour(config, options);
  const read = await refreshInputs(
    config,
    api,
    { ...options, users, testsRead: tested },
    kindsRead(config, tested),
  );
  // The rules read only for the tests are not planned: the plan stays what it is without tests.
  const inputs = read.filter((input) => usesKind(config, kindNamed(input.kind)));
  // Members are ids in the plan; where the listing names them, a reviewer reads names too.
  const members = inputs.some((input) => hasMembers(kindNamed(input.kind), input));
  const nameOf = members ? memberNames(await optionalDirectory(users), inputs) : undefined;
  const planned = planChanges(inputs, {
    ...planOptions(config, options.impactDirection),
    ...(nameOf === undefined ? {} : { userLabel: (id: string) => userLabel(nameOf, id) }),
  });
  const whole = options.impactDirection === 'drift' ? driftFindings(planned, inputs, options) : planned;
  const named = nameOf === undefined ? whole : withPlanUsernames(whole, nameOf);
  const selected = options.selection === undefined ? named : selectPlan(named, options.selection);
  const rules = read.find((input) => input.kind === applicationRulesKind.name);
  return withTrust(tested ? withBehaviour(config, selected, rules?.remote ?? []) : selected, options.trust);
}

/**
 * A drift report's own findings (issue 44): who last changed each entry and when, and the managed
 * rules not enforced on a firewall. A plan has neither: it is what applying does, not what was done.
 */
function driftFindings(plan: Plan, inputs: readonly KindPlanInput[], options: PlanRefreshOptions): Plan {
  const now = (options.now ?? Date.now)();
  return withEnforcement(withAttribution(plan, inputs), inputs, { now });
}

/**
 * Whether the plan gets a Behaviour section: the configuration has rule tests, and it is a plan (or
 * an apply's), not a drift report, whose changes are the fix of what was done by hand.
 */
function hasBehaviour(config: LoadedConfig, options: PlanRefreshOptions): boolean {
  return config.state.tests.length > 0 && options.impactDirection !== 'drift';
}

/** The kinds a plan reads: those the configuration uses, and the application rules its tests run on. */
function kindsRead(config: LoadedConfig, tested: boolean): Kind[] {
  return KINDS.filter((kind) => usesKind(config, kind) || (tested && kind === applicationRulesKind));
}

const kindNamed = (name: string): Kind | undefined => KINDS.find((kind) => kind.name === name);

/**
 * The plan with its Behaviour section: the configuration's tests on the live rules, and on them
 * with the plan's (selected) changes applied, as `apply` would leave them.
 */
function withBehaviour(config: LoadedConfig, plan: Plan, live: KindPlanInput['remote']): Plan {
  const { tests } = config.state;
  const behaviour = planBehaviour({
    live,
    changes: plan.changes,
    tests,
    extensions: catalogExtensions(config.state),
  });
  return { ...plan, behaviour };
}

/** The plan with its Trust section (`--trusted-ref`), when there is one. */
export function withTrust(plan: Plan, trust: PlanTrust | undefined): Plan {
  return trust === undefined ? plan : { ...plan, trust };
}

/** Whether a kind's input holds members: the kind has `userFields`, and its input some object. */
export function hasMembers(kind: Kind | undefined, input: KindPlanInput | undefined): boolean {
  return (
    (kind?.userFields ?? []).length > 0 && (input?.remote.length ?? 0) + (input?.desired.length ?? 0) > 0
  );
}

/**
 * How a member id reads: as the user listing writes it (`nameOf`), else, for an id the listing does
 * not hold (or without a listing), by the username a group's record gives it, else as the id. Undefined
 * when nothing names any member: members are then ids alone.
 */
function memberNames(
  directory: UserDirectory | undefined,
  inputs: readonly KindPlanInput[],
): ((id: string) => string) | undefined {
  const recorded = new Map<string, string>();
  for (const object of inputs.flatMap((input) => input.remote)) {
    for (const [id, name] of object.usernames ?? []) recorded.set(id, name);
  }
  if (directory === undefined && recorded.size === 0) return undefined;
  return (id) => (directory?.isId(id) ? directory.nameOf(id) : (recorded.get(id) ?? id));
}

/** `grace (u-1007)` where the id has a name, else the id. */
function userLabel(nameOf: (id: string) => string, id: string): string {
  const name = nameOf(id);
  return name === id ? id : `${name} (${id})`;
}

/** The plan with the usernames of the member ids it shows (`usernames`), where any has one. */
function withPlanUsernames(plan: Plan, nameOf: (id: string) => string): Plan {
  const usernames: Record<string, string> = {};
  const note = (object: Attributes | null, fields: readonly string[]) => {
    for (const field of fields) {
      const members = object?.[field];
      if (!Array.isArray(members)) continue;
      for (const id of members) {
        if (typeof id !== 'string') continue;
        const name = nameOf(id);
        if (name !== id) usernames[id] = name;
      }
    }
  };
  const fieldsOf = (kind: string) => KINDS.find((candidate) => candidate.name === kind)?.userFields ?? [];
  for (const change of [...plan.changes, ...(plan.read_only ?? [])]) {
    note(change.before, fieldsOf(change.kind));
    note(change.after, fieldsOf(change.kind));
  }
  return Object.keys(usernames).length === 0 ? plan : { ...plan, usernames };
}
