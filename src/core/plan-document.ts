/**
 * The plan document, once: the zod schema the plan's TypeScript types are derived from, and the one
 * codec between the plan in memory and its JSON (`plan --format json`, the body of `plan --out`).
 * src/plan/render/json.ts renders with it (`z.encode`), the saved-plan reader
 * (src/ops/apply/saved-plan.ts) reads with it (`safeParse` decodes): the mapping between the two forms
 * is written once, here.
 *
 * Both forms name every field as the JSON does (`renamed_from`, `forced_by`, `duplicate_of`,
 * `max_delete_percent`, `read_only`, ...): the codec does only structural work. In memory every
 * change is symmetric: the whole object `before` (null for a create) and `after` (null for a delete),
 * plus `fields`, the names of the fields that differ. The JSON keeps the contract's meaning
 * (format_version 1): an update's `before` and `after` hold its changed fields only and `target` the
 * whole object after; every change also carries the whole objects as `objects: {before, after}` (an
 * addition), and a duplicate's delete says `reason: "duplicate"`; the codec writes the keys in the
 * contract's order. A plan written before `objects` existed decodes too: an update's whole `before`
 * is then rebuilt from `target` and its changed fields.
 */
import * as z from 'zod';
import { environmentsSummarySchema } from './fleet-summary.js';
import { IMPACT_CLASSES } from './impact-classes.js';

export const PLAN_FORMAT_VERSION = 1 as const;

/** A comparable record: the desired shape of one object, server fields dropped, sets sorted. */
export type Attributes = Record<string, unknown>;

/** The named fields of an object (those it has): an update's changed values. */
export function pick<T extends Attributes>(object: T, fields: readonly string[]): Partial<T> {
  const picked: Partial<T> = {};
  for (const field of fields) {
    if (Object.hasOwn(object, field)) picked[field as keyof T] = object[field as keyof T];
  }
  return picked;
}

function omit(object: Attributes, fields: readonly string[]): Attributes {
  const left: Attributes = { ...object };
  for (const field of fields) delete left[field];
  return left;
}

/**
 * An update's `before` and `after` narrowed to its changed fields: the contract's view of an update,
 * derived where it is needed (the JSON, bulk update grouping, recovery's re-read).
 */
export function changedView(change: { before: Attributes; after: Attributes; fields: readonly string[] }): {
  before: Attributes;
  after: Attributes;
} {
  return { before: pick(change.before, change.fields), after: pick(change.after, change.fields) };
}

/** A family's plan name; the registry (src/kinds/) knows which exist, and the saved-plan reader checks. */
const kind = z.string();
/** An object of one kind, opaque here (each kind knows its fields): a JSON object, kept as it is. */
const attributes = z.custom<Attributes>(
  (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
  { error: 'expected an object' },
);
const names = z.array(z.string());
const count = z.int().min(0);
const impact = z.array(z.strictObject({ class: z.enum(IMPACT_CLASSES), reason: z.string() }));

// --- The plan in memory.

const changeBase = {
  kind,
  /** The natural key: the name, or `<rq_host>/<description>` for application rules. */
  key: z.string(),
  /** Names of the fields that differ (all fields of the object for create and delete). */
  fields: names,
  /** What this change does to the firewall's security, possibly nothing (attached by the planner). */
  impact,
};
/** An existing object's id, and the fingerprint of the remote record it was planned from. */
const existing = { id: z.string(), fingerprint: z.string() };
/** A name or a time the live record gives: bounded, as a saved plan is hostile input. */
const recordText = z.string().max(1024);
/**
 * Who last changed the live object and when, where its record says (drift reports only, issue 44):
 * `changed_by` is the record's user (an application rule's `username`), `changed_at` an ISO 8601 UTC
 * time to the millisecond (`2026-11-27T08:02:13.000Z`). Each is absent when the record does not give
 * it (a group names nobody; a create has no live record), and both are absent from plans: the same
 * in memory and in JSON.
 */
const attribution = { changed_by: recordText.optional(), changed_at: recordText.optional() };
/**
 * Set when the object was matched by its old natural key (`renamed_from:` in the file): the key it
 * had, as plans print it. Absent from every other change, so plans without renames are unchanged.
 */
const renamed_from = z.string().optional();

const changeModel = z.discriminatedUnion('action', [
  z.object({ ...changeBase, action: z.literal('create'), before: z.null(), after: attributes }),
  z.object({
    ...changeBase,
    ...existing,
    ...attribution,
    action: z.literal('update'),
    renamed_from,
    /** The whole remote object. */
    before: attributes,
    /** The whole object as the update leaves it (ignored fields keep their remote value). */
    after: attributes,
  }),
  z.object({
    ...changeBase,
    ...existing,
    ...attribution,
    action: z.literal('replace'),
    renamed_from,
    before: attributes,
    after: attributes,
    /** The immutable fields whose change forces the replacement. */
    forced_by: names,
  }),
  z.object({
    ...changeBase,
    ...existing,
    ...attribution,
    action: z.literal('delete'),
    before: attributes,
    after: z.null(),
    /**
     * Set when the object is deleted as a duplicate: another in-scope remote object with the same
     * natural key (this id) survives. Without it, the delete is a prune.
     */
    duplicate_of: z.string().optional(),
  }),
]);

const warningModel = z.object({
  kind,
  /** Pure deletes, duplicates included. */
  deletes: count,
  /** How many of `deletes` are duplicates of a surviving object. */
  duplicates: count,
  existing: count,
  max_delete_percent: z.number(),
});

// --- The plan as JSON.

const jsonBase = { kind, key: z.string() };
/** The whole objects, an addition to the contract's fields (absent from plans written before it). */
const objects = <B extends z.ZodType, A extends z.ZodType>(before: B, after: A) =>
  z.strictObject({ before, after }).optional();

const changeJson = z.discriminatedUnion('action', [
  z.strictObject({
    ...jsonBase,
    action: z.literal('create'),
    impact,
    fields: names,
    before: z.null(),
    after: attributes,
    objects: objects(z.null(), attributes),
  }),
  z.strictObject({
    ...jsonBase,
    action: z.literal('update'),
    impact,
    id: z.string(),
    ...attribution,
    fields: names,
    /** The changed fields only (the contract's meaning). */
    before: attributes,
    after: attributes,
    /** The whole object after: what `apply --plan` sends. */
    target: attributes,
    fingerprint: z.string(),
    renamed_from: z.string().optional(),
    objects: objects(attributes, attributes),
  }),
  z.strictObject({
    ...jsonBase,
    action: z.literal('replace'),
    impact,
    id: z.string(),
    ...attribution,
    fields: names,
    forced_by: names,
    before: attributes,
    after: attributes,
    fingerprint: z.string(),
    renamed_from: z.string().optional(),
    objects: objects(attributes, attributes),
  }),
  z.strictObject({
    ...jsonBase,
    action: z.literal('delete'),
    impact,
    id: z.string(),
    ...attribution,
    fields: names,
    before: attributes,
    after: z.null(),
    fingerprint: z.string(),
    reason: z.literal('duplicate').optional(),
    duplicate_of: z.string().optional(),
    objects: objects(attributes, z.null()),
  }),
]);

const warningJson = z.strictObject({
  kind,
  deletes: count,
  duplicates: count.optional(),
  existing: count,
  max_delete_percent: z.number(),
});

/** A change's `changed_by` and `changed_at`, each only when set: a plan's JSON stays as it was. */
function attributionOf(change: { changed_by?: string | undefined; changed_at?: string | undefined }): {
  changed_by?: string;
  changed_at?: string;
} {
  const { changed_by, changed_at } = change;
  return {
    ...(changed_by === undefined ? {} : { changed_by }),
    ...(changed_at === undefined ? {} : { changed_at }),
  };
}

/**
 * A change's JSON: the keys in the contract's order, an update narrowed to its changed fields (with
 * `target`), `objects` added, `reason` derived; `renamed_from` and `duplicate_of` only when set.
 */
const changeCodec = z.codec(changeJson, changeModel, {
  decode: (json): z.input<typeof changeModel> => {
    switch (json.action) {
      case 'create':
      case 'replace': {
        const { objects: _, ...change } = json;
        return change;
      }
      case 'update': {
        const { objects, before: changed, after: _, target, ...change } = json;
        // Without `objects` (an older plan), the fields that did not change are those of `target`.
        const before = objects?.before ?? { ...omit(target, change.fields), ...changed };
        return { ...change, before, after: target };
      }
      case 'delete': {
        const { objects: _, reason: _duplicate, ...change } = json;
        return change;
      }
    }
  },
  encode: (change): z.output<typeof changeJson> => {
    const { kind, key, fields, impact } = change;
    const base = { kind, key, impact };
    switch (change.action) {
      case 'create': {
        const { action, before, after } = change;
        return { ...base, action, fields, before, after, objects: { before, after } };
      }
      case 'update': {
        const { action, id, fingerprint, before, after, renamed_from } = change;
        return {
          ...base,
          action,
          id,
          ...attributionOf(change),
          fields,
          ...changedView(change),
          target: after,
          fingerprint,
          ...(renamed_from === undefined ? {} : { renamed_from }),
          objects: { before, after },
        };
      }
      case 'replace': {
        const { action, id, fingerprint, before, after, forced_by, renamed_from } = change;
        return {
          ...base,
          action,
          id,
          ...attributionOf(change),
          fields,
          forced_by,
          before,
          after,
          fingerprint,
          ...(renamed_from === undefined ? {} : { renamed_from }),
          objects: { before, after },
        };
      }
      case 'delete': {
        const { action, id, fingerprint, before, after, duplicate_of } = change;
        const why = duplicate_of === undefined ? {} : { reason: 'duplicate' as const, duplicate_of };
        return {
          ...base,
          action,
          id,
          ...attributionOf(change),
          fields,
          before,
          after,
          fingerprint,
          ...why,
          objects: { before, after },
        };
      }
    }
  },
});

/** Written under the same names; `duplicates` is absent from plans written before it. */
const warningCodec = z.codec(warningJson, warningModel, {
  decode: ({ duplicates, ...counts }) => ({ ...counts, duplicates: duplicates ?? 0 }),
  encode: ({ kind, deletes, duplicates, existing, max_delete_percent }) => ({
    kind,
    deletes,
    duplicates,
    existing,
    max_delete_percent,
  }),
});

/** Written the same in memory and in JSON. */
const summarySchema = z.strictObject({
  create: count,
  update: count,
  replace: count,
  delete: count,
  unchanged: count,
  unmanaged: count,
  /** Changes with at least one impact of each class. */
  impact: z.strictObject({ weakens_protection: count, broadens_access: count, reduces_audit: count }),
});

/**
 * A remote object the plan leaves alone: outside its kind's manage scope, or in scope but declared
 * by no file while `prune` is off. Written the same in memory and in JSON.
 */
const unmanagedSchema = z.strictObject({
  kind,
  key: z.string(),
  id: z.string(),
  reason: z.enum(['outside_scope', 'not_declared']),
});

/** Something that stops the plan for one object (the rest of the plan stands). */
const problemSchema = z.strictObject({ kind, key: z.string(), message: z.string() });

/** Something a reader should know that changes nothing in the plan (a `renamed_from` that matched nothing). */
const noteSchema = z.strictObject({ kind, key: z.string(), message: z.string() });

/**
 * A delete and a create of one family that differ only in their natural key: probably a rename,
 * which `renamed_from: <from>` on the object `to` would make an update that keeps the id. Written
 * the same in memory and in JSON.
 */
const renameSuggestionSchema = z.strictObject({ kind, from: z.string(), to: z.string() });

/**
 * What a targeted run selected (`--target`, `--exclude`, `--kind`; src/plan/targets.ts): a plan with
 * it is partial. Bounded: a saved plan is hostile input.
 */
const address = z.string().max(4096);
const targetsSchema = z.strictObject({
  target: z.array(address).max(1000),
  exclude: z.array(address).max(1000),
  kind: z.array(kind).max(100),
});

/**
 * An object the server does not let wafctl change (the built-in `admins` group) that differs from
 * what the configuration expects of it: reported by plan, drift and compare, never applied. `before`
 * holds the expected values of the fields that differ, `after` the live ones; `impact` classifies the
 * difference as a change made by hand (a member added broadens access). Written the same in memory
 * and in JSON.
 */
const readOnlySchema = z.strictObject({
  kind,
  key: z.string(),
  id: z.string(),
  ...attribution,
  fields: names,
  before: attributes,
  after: attributes,
  impact,
});

/**
 * A managed application rule that is not enforced on some firewall (drift reports only, issue 44):
 * an action whose `sync_status` is an error, or is pending (or a value wafctl does not know) for
 * longer than the grace (docs/drift-and-pull.md). Its fields may match the configuration: it is
 * drift all the same. `firewalls`: each such action's firewall, its `sync_status` as the API gave
 * it, and what wafctl reads it as (src/core/sync-status.ts); `impact`: `weakens_protection`, one
 * reason per firewall (`not enforced on waf-eu-1: sync error`). Written the same in memory and in
 * JSON; bounded, as a saved document is hostile input.
 */
const enforcementSchema = z.strictObject({
  kind,
  key: z.string(),
  id: z.string(),
  ...attribution,
  firewalls: z
    .array(
      z.strictObject({
        firewall: recordText,
        status: recordText,
        state: z.enum(['pending', 'error', 'unknown']),
      }),
    )
    .min(1)
    .max(10_000),
  impact,
});

/** Usernames of the user ids a plan shows (members), by id: written beside the ids, never instead. */
const usernamesSchema = z
  .record(z.string().max(1024), z.string().max(1024))
  .refine((names) => Object.keys(names).length <= 1_000_000, { error: 'too many usernames' });

/**
 * With `--trusted-ref`: the commit the connections, the `variables` allow-list, the policy settings
 * and `manage` were read from, and what the work tree (the pull request) changes in them, which the
 * plan did not use. An addition; bounded, as a saved plan is hostile input.
 */
const trustChangeSchema = z.strictObject({
  /** What is changed: `environment production`, `variables`, `settings.safety`, `manage.groups`. */
  subject: z.string().max(4096),
  /** How: `url: "https://a" -> "https://b"`. */
  change: z.string().max(16_384),
});
const trustSchema = z.strictObject({
  ref: z.string().max(1024),
  commit: z.string().max(64),
  changes: z.array(trustChangeSchema).max(10_000),
});

/** A rule key, a test's name, an action or a reason: bounded, as a saved plan is hostile input. */
const testText = z.string().max(16_384);

/**
 * What a firewall does with a test's request (src/core/rules/evaluate.ts `Outcome`): the deciding
 * rule's `firewall_action`, or `none`; the rule and the firewall when a rule decided.
 */
const outcomeSchema = z.strictObject({
  action: testText,
  rule: testText.optional(),
  firewall: testText.optional(),
});

/**
 * The Behaviour section (an addition, set when the configuration has tests; `plan` and `apply`, not
 * drift): the configuration's rule tests run on the live application rules and on them with the
 * plan's changes applied. `changed`: each test whose outcome (its action, ignoring case, or its
 * deciding rule) differs, when both sides could be evaluated. `failing`: each test that does not pass
 * after the plan: `fail` (another outcome than expected) or `error` (it could not be evaluated,
 * `reason` says why; no `actual`).
 */
const behaviourSchema = z.strictObject({
  /** How many tests ran. */
  tests: count,
  changed: z
    .array(z.strictObject({ name: testText, before: outcomeSchema, after: outcomeSchema }))
    .max(100_000),
  failing: z
    .array(
      z.strictObject({
        name: testText,
        status: z.enum(['fail', 'error']),
        expected: outcomeSchema,
        actual: outcomeSchema.optional(),
        reason: testText,
      }),
    )
    .max(100_000),
});

/**
 * The plan document (the contract's format_version 1, with wafctl's additions). Its input is the JSON,
 * its output the plan in memory: `safeParse` decodes a document, `z.encode` writes one.
 */
export const planDocumentSchema = z.object({
  format_version: z.literal(PLAN_FORMAT_VERSION),
  summary: summarySchema,
  changes: z.array(changeCodec),
  problems: z.array(problemSchema),
  /** Kinds whose pure deletes are above the configured share of their existing objects. */
  warnings: z.array(warningCodec),
  /**
   * The objects counted in `summary.unmanaged`, in the kinds' order then by key: an addition, so that a
   * reader of the plan is told which objects wafctl leaves alone. Absent when there are none, from
   * plans written before it, and from a saved plan re-planned at apply time (which knows only its
   * changes).
   */
  unmanaged: z.array(unmanagedSchema).optional(),
  /** Notes on the configuration against the live state (additions, absent when there are none). */
  notes: z.array(noteSchema).optional(),
  /** Deletes and creates that look like renames (additions, absent when there are none). */
  rename_suggestions: z.array(renameSuggestionSchema).optional(),
  /** Set when the plan is partial: what `--target`, `--exclude` and `--kind` selected (an addition). */
  targets: targetsSchema.optional(),
  /** Set with `--trusted-ref` (an addition): what the plan trusted, and what it did not use. */
  trust: trustSchema.optional(),
  /** Read-only objects that differ from what the configuration expects (an addition, absent when none). */
  read_only: z.array(readOnlySchema).optional(),
  /** Drift reports only: managed rules not enforced on a firewall (an addition, absent when none). */
  enforcement: z.array(enforcementSchema).optional(),
  /** The usernames of the member ids the plan shows (an addition, absent when none are known). */
  usernames: usernamesSchema.optional(),
  /** The rule tests' outcomes before and after the plan (an addition, absent without tests). */
  behaviour: behaviourSchema.optional(),
});

/**
 * Several environments' plans in one document (`plan --env all --format json`): each one's plan by
 * name, `null` for an environment that could not be planned (its error is on stderr).
 */
export const planEnvironmentsSchema = z.strictObject({
  format_version: z.literal(PLAN_FORMAT_VERSION),
  environments: z.record(z.string(), planDocumentSchema.nullable()),
  /** One row per environment (issue 45); absent from documents written before it. */
  summary: environmentsSummarySchema.optional(),
});

type DocumentSchema = typeof planDocumentSchema;

/** The document as JSON. */
export type PlanJson = z.input<DocumentSchema>;
/** The document in memory: the plan and its format version. */
export type PlanDocument = z.output<DocumentSchema>;
export type Plan = Omit<PlanDocument, 'format_version'>;
export type PlanSummary = PlanDocument['summary'];
export type PlanProblem = PlanDocument['problems'][number];
export type SafetyWarning = PlanDocument['warnings'][number];
export type UnmanagedObject = NonNullable<PlanDocument['unmanaged']>[number];
export type PlanNote = NonNullable<PlanDocument['notes']>[number];
export type RenameSuggestion = NonNullable<PlanDocument['rename_suggestions']>[number];
export type PlanTargets = NonNullable<PlanDocument['targets']>;
export type PlanTrust = NonNullable<PlanDocument['trust']>;
export type ReadOnlyDrift = NonNullable<PlanDocument['read_only']>[number];
export type EnforcementFinding = NonNullable<PlanDocument['enforcement']>[number];
export type TrustChange = PlanTrust['changes'][number];
export type PlanBehaviour = NonNullable<PlanDocument['behaviour']>;
export type BehaviourChange = PlanBehaviour['changed'][number];
export type FailingTest = PlanBehaviour['failing'][number];
export type Change = PlanDocument['changes'][number];
export type Impact = Change['impact'][number];
export type Action = Change['action'];
export type ChangeOf<A extends Action> = Extract<Change, { action: A }>;
export type CreateChange = ChangeOf<'create'>;
export type ReplaceChange = ChangeOf<'replace'>;
export type DeleteChange = ChangeOf<'delete'>;
