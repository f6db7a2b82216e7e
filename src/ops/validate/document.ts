/**
 * What `validate --format json` prints (and the library's `validate` returns): one configuration's
 * document, with its rule lint warnings, or each environment's under its name. Its zod schema is the
 * source of `schemas/validation.schema.json` and of the document's types, and validate.ts writes the
 * document through it, so the two cannot diverge. docs/configuration.md documents the fields.
 */
import * as z from 'zod';
import type { ConfigProblem } from '../../config/problems.js';
import { documentJsonSchema } from '../../core/document-schemas.js';
import { environmentsSummarySchema } from '../../core/fleet-summary.js';
import type { RuleLintCode } from '../../core/rules/lint.js';
import { KINDS, type Section } from '../../kinds/index.js';

export const VALIDATION_SCHEMA_FILE = 'validation.schema.json';

const count = z.int().min(0);

/** How many objects of each family the configuration declares, by section, in the registry's order. */
const familyCounts = Object.fromEntries(KINDS.map((kind) => [kind.section, count])) as Record<
  Section,
  typeof count
>;

/** The lint codes (core/rules/lint.ts), every one and no other: the type below checks it. */
const LINT_CODES = ['shadowed', 'identical', 'matches_empty'] as const satisfies readonly RuleLintCode[];
const everyLintCode: [RuleLintCode] extends [(typeof LINT_CODES)[number]] ? true : never = true;
void everyLintCode;

/**
 * A rule lint finding (docs/rule-tests.md), at the rule's place; a `matches_empty` one's path names
 * the expression. Lint runs only on a configuration that loads.
 */
const warningSchema = z.strictObject({
  file: z.string(),
  line: count,
  col: count,
  path: z.string(),
  code: z.enum(LINT_CODES),
  message: z.string(),
});

/** Each lint finding of a configuration, sorted by file, line and column; none when it did not load. */
const warnings = z.array(warningSchema);

/** A valid configuration: how many files, how many objects of each family it declares, its warnings. */
const validDocumentSchema = z.strictObject({
  valid: z.literal(true),
  files: count,
  ...familyCounts,
  warnings,
});

/** A problem of a configuration, at its place (config/problems.ts's `ConfigProblem`). */
const problemSchema = z.strictObject({
  file: z.string(),
  /** 1-based; 0 when the problem is about the file as a whole (e.g. not found). */
  line: count,
  col: count,
  /** The YAML path of the value (`groups[0].name`), `''` for the file as a whole. */
  path: z.string(),
  message: z.string(),
  /** Only on the entry that stands for a file's problems not listed: how many. */
  hidden: z.int().min(1).optional(),
});

/**
 * An invalid configuration: every problem, the checks they kept from running, and the warnings
 * (with `strict`, the warnings of a configuration that loaded are also its problems).
 */
const invalidDocumentSchema = z.strictObject({
  valid: z.literal(false),
  problems: z.array(problemSchema),
  skipped: z.array(z.string()).optional(),
  warnings,
});

export const validationDocumentSchema = z.discriminatedUnion('valid', [
  validDocumentSchema,
  invalidDocumentSchema,
]);

/** With environments declared in wafctl.yaml: whether all are valid, and each one's document. */
export const environmentsValidationSchema = z.strictObject({
  valid: z.boolean(),
  environments: z.record(z.string(), validationDocumentSchema),
  /** One row per environment, as the text's opening table (issue 45). */
  summary: environmentsSummarySchema.optional(),
});

/** What `validate --format json` prints for one configuration. */
export type ValidationJson = z.output<typeof validationDocumentSchema>;
/** What `validate --format json` prints with environments. */
export type EnvironmentsValidationJson = z.output<typeof environmentsValidationSchema>;

/** A warning as the document has it (ops/validate/lint.ts's `ConfigWarning`). */
export type WarningJson = z.output<typeof warningSchema>;

/** A problem as the document has it: its own fields, in their order. */
export function problemJson({ file, line, col, path, message, hidden }: ConfigProblem): ConfigProblem {
  return { file, line, col, path, message, ...(hidden === undefined ? {} : { hidden }) };
}

/** `schemas/validation.schema.json`: `validate --format json`. */
export function buildValidationJsonSchema(): string {
  return documentJsonSchema(z.union([validationDocumentSchema, environmentsValidationSchema]), {
    file: VALIDATION_SCHEMA_FILE,
    title: 'wafctl validate',
    description:
      'The JSON validation: `wafctl validate --format json`: `{"valid": true, "files": N}` and the number of objects of each family, or `{"valid": false, "problems": [...]}`, each with the rule lint `warnings` (with `--strict`, a configuration with warnings is invalid); with environments declared in wafctl.yaml, `{"valid": all valid, "environments": {NAME: document}}`.',
    reused: 'ref',
  });
}
