// The library's document types (src/library/documents.ts), generated from the JSON Schemas in
// schemas/ (which `npm run schema` generates from the zod schemas that write the documents: one
// source) by json-schema-to-typescript, then formatted by Biome. The shipped declarations
// (dist/types/, scripts/build.mjs) reference these and nothing else, so a consumer that installs only
// the tarball (no zod in its node_modules) type-checks them. A test (test/library/documents.test.ts)
// fails when the committed file differs from what this generates; `npm run schema` rewrites it.
//
// Usage: node scripts/library-types.mjs [--check]   (--check: exit 1 when the file is stale)
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { compile } from 'json-schema-to-typescript';

const root = new URL('../', import.meta.url);
export const DOCUMENTS_FILE = 'src/library/documents.ts';

const read = (file) => JSON.parse(readFileSync(new URL(`schemas/${file}`, root), 'utf8'));

/** `schema` with every `$ref` into its `$defs` replaced by what it names (no recursion in them). */
function inlined(schema, defs = schema.$defs ?? {}) {
  if (Array.isArray(schema)) return schema.map((item) => inlined(item, defs));
  if (schema === null || typeof schema !== 'object') return schema;
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.replace('#/$defs/', '');
    if (!(name in defs)) throw new Error(`unknown $ref ${schema.$ref}`);
    return inlined(defs[name], defs);
  }
  const { $defs: _defs, $schema: _schema, $id: _id, ...rest } = schema;
  return Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, inlined(value, defs)]));
}

/** The one-environment document of a schema whose root is `anyOf: [document, {environments}]`. */
function oneDocument(file) {
  const schema = read(file);
  const [document, several] = inlined(schema).anyOf ?? [];
  if (document?.properties?.environments !== undefined || several?.properties?.environments === undefined)
    throw new Error(`${file}: expected anyOf [one document, several environments]`);
  return document;
}

/** Names for the parts a caller refers to; the rest stays inline. */
function titled(schema, title, description, parts = {}) {
  const copy = structuredClone(schema);
  for (const [path, name] of Object.entries(parts)) {
    const target = path.split('.').reduce((node, key) => node?.[key], copy);
    if (target === undefined) throw new Error(`${title}: no ${path}`);
    target.title = name;
  }
  return { ...copy, title, description };
}

/**
 * The drift report is the plan document with `drift` and `objects` (core/drift-document.ts): checked
 * here, so it can be declared as exactly that.
 */
function assertDriftExtendsPlan(plan, drift) {
  const { drift: flag, objects, ...planProperties } = drift.properties;
  const same =
    flag?.type === 'boolean' &&
    objects?.type === 'integer' &&
    isDeepStrictEqual(
      { ...drift, properties: planProperties, required: undefined },
      {
        ...plan,
        required: undefined,
      },
    ) &&
    isDeepStrictEqual(drift.required, [...plan.required, 'drift', 'objects']);
  if (!same)
    throw new Error('drift-report.schema.json is no longer the plan document with drift and objects');
}

/**
 * The validation's documents (ops/validate/document.ts): one configuration's (valid or invalid), and
 * the environments' form, whose entries are that document (declared by name, not repeated).
 */
function validationSchemas() {
  const several = inlined(read('validation.schema.json')).anyOf?.[1];
  const document = oneDocument('validation.schema.json');
  if (!isDeepStrictEqual(several?.properties?.environments?.additionalProperties, document))
    throw new Error('validation.schema.json: expected environments of the one-configuration document');
  const environments = {
    ...several.properties.environments,
    additionalProperties: { tsType: 'ValidationDocument' },
  };
  const described = titled(
    document,
    'ValidationDocument',
    "One configuration's validation: `wafctl validate --format json`.",
    {
      'oneOf.0': 'ValidDocument',
      'oneOf.1': 'InvalidDocument',
      'oneOf.1.properties.problems.items': 'ConfigurationProblem',
    },
  );
  const [valid, invalid] = described.oneOf;
  valid.description =
    'A valid configuration: how many files, and how many objects of each family it declares.';
  invalid.description = 'An invalid configuration: every problem, and the checks they kept from running.';
  invalid.properties.problems.items.description = 'A problem of a configuration, at its place.';
  return {
    document: described,
    environments: titled(
      { ...several, properties: { ...several.properties, environments } },
      'EnvironmentsValidationDocument',
      "With environments declared in wafctl.yaml: each one's validation, as `wafctl validate --format json`.",
    ),
  };
}

const HEADER = `/**
 * The documents the library returns, as JSON: the same as \`--format json\` prints. Generated by
 * scripts/library-types.mjs from schemas/*.json (\`npm run schema\`); do not edit.
 */
/* biome-ignore-all lint: generated */
`;

/** The text of src/library/documents.ts. */
export async function generateDocuments() {
  const plan = oneDocument('plan.schema.json');
  const drift = oneDocument('drift-report.schema.json');
  assertDriftExtendsPlan(plan, drift);
  const apply = oneDocument('apply-report.schema.json');
  const validation = validationSchemas();
  // Arrays stay arrays: a `minItems: 1` would be typed as a tuple, which the zod output (an array)
  // is not assignable to.
  const options = {
    bannerComment: '',
    format: false,
    additionalProperties: true,
    unknownAny: true,
    ignoreMinAndMaxItems: true,
  };
  const texts = await Promise.all([
    compile(
      titled(plan, 'PlanDocument', 'A plan: `wafctl plan --format json`.', {
        'properties.changes.items': 'PlanChange',
        'properties.summary': 'PlanSummary',
      }),
      'PlanDocument',
      options,
    ),
    compile(
      titled(apply, 'ApplyReport', 'What an apply did: `wafctl apply --format json`.', {
        'properties.results.items': 'ApplyResult',
      }),
      'ApplyReport',
      options,
    ),
    compile(validation.document, 'ValidationDocument', options),
    compile(validation.environments, 'EnvironmentsValidationDocument', options),
  ]);
  const driftType = `/** A drift report: \`wafctl drift --format json\`; the plan document with \`drift\` and \`objects\`. */
export type DriftDocument = PlanDocument & {
  /** Whether the firewall differs from the configuration: \`objects > 0\`. */
  drift: boolean;
  /** How many objects differ. */
  objects: number;
};
`;
  const text = `${HEADER}\n${texts.join('\n')}\n${driftType}`;
  return execFileSync(
    new URL('node_modules/.bin/biome', root).pathname,
    ['format', `--stdin-file-path=${DOCUMENTS_FILE}`],
    { input: text, encoding: 'utf8', cwd: root },
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const text = await generateDocuments();
  const target = new URL(DOCUMENTS_FILE, root);
  if (process.argv.includes('--check')) {
    const committed = readFileSync(target, 'utf8');
    if (committed !== text) {
      console.error(`${DOCUMENTS_FILE} is stale: run npm run schema`);
      process.exit(1);
    }
  } else {
    writeFileSync(target, text);
    console.log(`wrote ${target.pathname}`);
  }
}
