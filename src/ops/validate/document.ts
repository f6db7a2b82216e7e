/**
 * What `validate --format json` prints (and the library's `validate` returns): one configuration's
 * document, or each environment's under its name. Its zod schema is the source of
 * `schemas/validation.schema.json` and of the document's types, and validate.ts writes the document
 * through it, so the two cannot diverge. docs/configuration.md documents the fields.
 */
import * as z from 'zod';
import type { ConfigProblem } from '../../config/problems.js';
import { documentJsonSchema } from '../../core/document-schemas.js';
import { KINDS, type Section } from '../../kinds/index.js';

export const VALIDATION_SCHEMA_FILE = 'validation.schema.json';

const count = z.int().min(0);

/** How many objects of each family the configuration declares, by section, in the registry's order. */
const familyCounts = Object.fromEntries(KINDS.map((kind) => [kind.section, count])) as Record<
  Section,
  typeof count
>;

/** A valid configuration: how many files, and how many objects of each family it declares. */
const validDocumentSchema = z.strictObject({ valid: z.literal(true), files: count, ...familyCounts });

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

/** An invalid configuration: every problem, and the checks they kept from running. */
const invalidDocumentSchema = z.strictObject({
  valid: z.literal(false),
  problems: z.array(problemSchema),
  skipped: z.array(z.string()).optional(),
});

export const validationDocumentSchema = z.discriminatedUnion('valid', [
  validDocumentSchema,
  invalidDocumentSchema,
]);

/** With environments declared in wafctl.yaml: whether all are valid, and each one's document. */
export const environmentsValidationSchema = z.strictObject({
  valid: z.boolean(),
  environments: z.record(z.string(), validationDocumentSchema),
});

/** What `validate --format json` prints for one configuration. */
export type ValidationJson = z.output<typeof validationDocumentSchema>;
/** What `validate --format json` prints with environments. */
export type EnvironmentsValidationJson = z.output<typeof environmentsValidationSchema>;

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
      'The JSON validation: `wafctl validate --format json`: `{"valid": true, "files": N}` and the number of objects of each family, or `{"valid": false, "problems": [...]}`; with environments declared in wafctl.yaml, `{"valid": all valid, "environments": {NAME: document}}`.',
    reused: 'ref',
  });
}
