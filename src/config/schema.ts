/**
 * The desired-state format, once: the document, `manage` and `settings` schemas, built from the
 * registry's families (each family's object schema is in its descriptor, src/kinds/). They are the
 * types of the loaded model, the validation of every file, and (through `json-schema.ts`) the editor
 * schema. Objects are strict so a typo is an error, not a silently ignored field.
 */
import * as z from 'zod';
import type { FirewallActions } from '../core/firewall-actions.js';
import { safetySection } from '../core/safety.js';
import type { ManageScope } from '../core/scope.js';
import { setOf } from '../core/set-schema.js';
import { type DesiredObjects, KINDS, type Kind, type Section, type SectionSchemas } from '../kinds/index.js';
import { nonEmptyString } from '../kinds/kind.js';
import { cannotDeclare, credentialReason, VARIABLE_NAME, VARIABLE_PREFIX } from './env.js';
import { firewallActionsSchema } from './firewall-actions.js';
import { extraOperatorsSchema, extraTargetsSchema } from './rule-catalog-settings.js';
import { type LocatedTestCase, testsSchema } from './rule-test-schema.js';

/** `manage.<kind>.match` may only name a kind's scalar string fields: those are what a glob can match. */
export function matchableFields(kind: Kind): string[] {
  if (kind.singleton) return []; // no manage scope: one object, always managed when declared
  return Object.entries(kind.schema.shape)
    .filter(([, field]) => {
      let inner = field as z.ZodType;
      while (inner instanceof z.ZodDefault || inner instanceof z.ZodOptional)
        inner = inner.unwrap() as z.ZodType;
      return inner instanceof z.ZodString || inner instanceof z.ZodEnum;
    })
    .map(([name]) => name);
}

const globList = setOf(nonEmptyString, 'pattern', { min: 1 }).meta({
  description: 'Globs: * any run, ? one character.',
});

function manageScope(kind: Kind) {
  const match = Object.fromEntries(matchableFields(kind).map((field) => [field, globList.optional()]));
  return z.strictObject({
    prune: z
      .boolean()
      .default(false)
      .meta({ description: 'Delete in-scope remote objects no file declares.' }),
    match: z
      .strictObject(match)
      .default({})
      .meta({ description: 'field -> globs; every listed field must match. Default: everything.' }),
  });
}

/** `manage:`, one optional scope per family. */
export function manageSchemaFor(kinds: readonly Kind[]) {
  return z.strictObject(
    Object.fromEntries(
      kinds.filter((kind) => !kind.singleton).map((kind) => [kind.section, manageScope(kind).optional()]),
    ),
  );
}

type ManageSection = z.ZodOptional<ReturnType<typeof manageScope>>;
export const manageSchema = manageSchemaFor(KINDS) as z.ZodObject<
  Record<Section, ManageSection>,
  z.core.$strict
>;

export const settingsSchema = z.strictObject({
  username: nonEmptyString
    .optional()
    .meta({ description: 'Sent as `username` on rule creation; default WAF_USERNAME, else "wafctl".' }),
  safety: safetySection.prefault({}),
  firewall_actions: firewallActionsSchema,
  extra_targets: extraTargetsSchema,
  extra_operators: extraOperatorsSchema,
});

/** Lists from every file are concatenated; a name declared twice (in one file or two) is harmless. */
const variablesSchema = z
  .array(
    z
      .string()
      .regex(VARIABLE_NAME, {
        error: 'expected a variable name: letters, digits and _, not starting with a digit',
      })
      // wafctl's own and credential-like names; an environment's credential variables are data, checked
      // by the loader (`credentialDeclarations`).
      .refine((name) => credentialReason(name) === undefined, {
        error: (issue) => cannotDeclare(String(issue.input), credentialReason(String(issue.input)) ?? ''),
      }),
  )
  .meta({
    description: `Environment variables that \${NAME} may read besides ${VARIABLE_PREFIX}* ones; any other name is an error.`,
  });

/**
 * One YAML document of a configuration of `kinds`. Every key is optional: a configuration is usually
 * split over several files.
 */
export function documentSchemaFor(kinds: readonly Kind[]) {
  // A singleton's section is its one object; every other section is a list of objects.
  const sections = Object.fromEntries(
    kinds.map((kind) => [
      kind.section,
      kind.singleton ? kind.schema.optional() : z.array(kind.schema).optional(),
    ]),
  );
  // What the configuration expects of a family's read-only object (`admins:`), checked, never written.
  const expectations = Object.fromEntries(
    kinds.flatMap((kind) =>
      kind.expectation === undefined ? [] : [[kind.expectation.section, kind.expectation.schema.optional()]],
    ),
  );
  return z
    .strictObject({
      variables: variablesSchema.optional(),
      ...sections,
      ...expectations,
      manage: manageSchemaFor(kinds).optional(),
      settings: settingsSchema.optional(),
      tests: testsSchema.optional(),
    })
    .meta({ title: 'wafctl desired state', description: 'One document of a wafctl configuration.' });
}

/** A document of the registry's families, typed section by section. */
export const documentSchema = documentSchemaFor(KINDS) as unknown as z.ZodObject<
  {
    variables: z.ZodOptional<typeof variablesSchema>;
    manage: z.ZodOptional<typeof manageSchema>;
    settings: z.ZodOptional<typeof settingsSchema>;
    tests: z.ZodOptional<typeof testsSchema>;
  } & { [S in Section]: z.ZodOptional<z.ZodArray<SectionSchemas[S]>> },
  z.core.$strict
>;

/** A document as its schema outputs it: each section's objects, `manage`, `settings`, `variables`, `tests`. */
export type ValidDocument = Record<string, unknown>;

/** `manage.<section>` as its schema outputs it; a match field a file left out is `undefined`. */
export type ScopeInput = { prune: boolean; match: Record<string, string[] | undefined> };

/**
 * The schemas of a configuration of some families, made once: the registry's are the module's
 * constants (`documentSchema`, typed section by section); a test's own families get theirs.
 */
export interface Family {
  kinds: readonly Kind[];
  document: z.ZodType<ValidDocument>;
  /** The document schema's sections, each validated alone when the document fails. */
  shape: Record<string, z.ZodType>;
  manage: z.ZodType<Record<string, ScopeInput | undefined>>;
  /** One value per family, by section. */
  bySection<T>(make: (kind: Kind) => T): Record<Section, T>;
}

/** The schemas of a configuration of `kinds` (see `Family`). */
export function familyOf(kinds: readonly Kind[]): Family {
  const document = kinds === KINDS ? documentSchema : documentSchemaFor(kinds);
  return {
    kinds,
    document: document as z.ZodType<ValidDocument>,
    shape: (document as z.ZodObject).shape as Record<string, z.ZodType>,
    manage: kinds === KINDS ? manageSchema : manageSchemaFor(kinds),
    bySection: <T>(make: (kind: Kind) => T) =>
      Object.fromEntries(kinds.map((kind) => [kind.section, make(kind)])) as Record<Section, T>,
  };
}

/** The loaded configuration: every section's objects (`DesiredObjects`), `manage`, `settings` and `tests`. */
export type DesiredState = DesiredObjects & {
  /**
   * What the configuration expects of read-only objects, by expectation section (`admins`), as the
   * files write it (validated, merged across files); a section left out is absent.
   */
  expected: Readonly<Record<string, Record<string, unknown>>>;
  manage: Record<Section, ManageScope>;
  settings: {
    username: string;
    safety: { max_delete_percent: number; min_existing: number };
    /** Resolved: every list present, a given list in place of its default. */
    firewall_actions: FirewallActions;
    /** Targets and operators the firmware knows beyond wafctl's catalog (`catalogExtensions`). */
    extra_targets: string[];
    extra_operators: string[];
  };
  /** The rule tests (`tests:`), in file order, each with its place; a later path's case replaces an earlier one's. */
  tests: readonly LocatedTestCase[];
};

/** A declared object of any family: its schema is a `kindObject`, so it has the wafctl-only fields. */
export type DeclaredObject = Record<string, unknown> & {
  protect: boolean;
  ignore_changes: readonly string[];
  /** The natural key the object had (`renamed_from:`), if it is renamed. */
  renamed_from?: string | undefined;
};

/** A family's declared objects, for code that holds the family as a `Kind` (any registry). */
export function declaredObjects(state: DesiredState, kind: Kind): readonly DeclaredObject[] {
  const objects: unknown = (state as Record<string, unknown>)[kind.section];
  if (!Array.isArray(objects)) return [];
  // A singleton's object has no wafctl-only fields: it is never deleted or replaced.
  return kind.singleton
    ? objects.map((object) => ({ protect: false, ignore_changes: [], ...object }))
    : objects;
}

/** The scope of a family that no file mentions in `manage:`: everything, never pruned. */
export function manageAll(): ManageScope {
  return { prune: false, match: {} };
}

/** A family's resolved `manage` scope (every family has one once loaded). */
export function scopeOf(state: DesiredState, kind: Kind): ManageScope {
  return (state.manage as Record<string, ManageScope>)[kind.section] ?? manageAll();
}
