/**
 * JSON Schemas of wafctl's JSON outputs, generated from the zod schemas that write them (the plan,
 * the drift report, the comparison; the apply report's is in src/ops/apply/report-document.ts, the
 * pull report's in src/ops/pull/report-document.ts, the validation's in src/ops/validate/document.ts). Written to `schemas/` by `npm run schema`
 * (scripts/generate-schema.mjs); a test fails when a committed file differs from what these generate.
 */
import * as z from 'zod';
import { compareDocumentSchema } from './compare-document.js';
import { driftDocumentSchema, driftEnvironmentsSchema } from './drift-document.js';
import { planDocumentSchema, planEnvironmentsSchema } from './plan-document.js';

export const SCHEMA_ID_BASE = 'https://github.com/wafctl/wafctl/schemas/';

export interface SchemaHeading {
  /** The file's name under `schemas/`, which also ends its `$id`. */
  file: string;
  title: string;
  description: string;
  /** `ref`: a schema used more than once is written once, under `$defs`. */
  reused?: 'ref' | 'inline';
}

/**
 * The JSON Schema of a document's JSON form (`io: 'input'`: a codec's JSON side), with `$id`, `title`
 * and `description` first, as a text file (a trailing newline). An object opaque to the schema (an
 * API object, `z.custom`) is written as `{"type": "object"}`.
 */
export function documentJsonSchema(schema: z.ZodType, heading: SchemaHeading): string {
  const generated = z.toJSONSchema(schema, {
    io: 'input',
    target: 'draft-2020-12',
    unrepresentable: 'any',
    reused: heading.reused ?? 'inline',
    override: (ctx) => {
      if (ctx.zodSchema._zod.def.type === 'custom') ctx.jsonSchema.type = 'object';
    },
  });
  const { $schema, ...rest } = generated;
  const { file, title, description } = heading;
  return `${JSON.stringify({ $schema, $id: `${SCHEMA_ID_BASE}${file}`, title, description, ...rest }, null, 2)}\n`;
}

export const PLAN_SCHEMA_FILE = 'plan.schema.json';
export const DRIFT_SCHEMA_FILE = 'drift-report.schema.json';
export const COMPARE_SCHEMA_FILE = 'compare.schema.json';

/** `schemas/plan.schema.json`: `plan --format json` and the body of `plan --out`. */
export function buildPlanJsonSchema(): string {
  return documentJsonSchema(z.union([planDocumentSchema, planEnvironmentsSchema]), {
    file: PLAN_SCHEMA_FILE,
    title: 'wafctl plan',
    description:
      'The JSON plan: `wafctl plan --format json` and the body of `plan --out FILE`; with several environments, `{"format_version": 1, "environments": {NAME: plan or null}}`. Fields of format_version 1 never change meaning; more may be added.',
    reused: 'ref',
  });
}

/** `schemas/drift-report.schema.json`: `drift --format json` and the body of `drift --report FILE`. */
export function buildDriftJsonSchema(): string {
  return documentJsonSchema(z.union([driftDocumentSchema, driftEnvironmentsSchema]), {
    file: DRIFT_SCHEMA_FILE,
    title: 'wafctl drift report',
    description:
      'The JSON drift report: `wafctl drift --format json` and the body of `drift --report FILE` (as JSON): the plan document with `drift` and `objects`; with several environments, `{"format_version": 1, "environments": {NAME: report or null}}`.',
    reused: 'ref',
  });
}

/** `schemas/compare.schema.json`: `compare --format json`. */
export function buildCompareJsonSchema(): string {
  return documentJsonSchema(compareDocumentSchema, {
    file: COMPARE_SCHEMA_FILE,
    title: 'wafctl compare',
    description:
      'The JSON comparison of two environments: `wafctl compare A B --format json`: the plan document of the changes from A to B, with `from` (A), `to` (B) and `compared` (`live`: their firewalls, `desired`: their configurations).',
    reused: 'ref',
  });
}
