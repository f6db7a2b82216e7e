/**
 * The JSON Schemas of wafctl's JSON outputs (schemas/plan.schema.json, drift-report.schema.json,
 * compare.schema.json, apply-report.schema.json, pull-report.schema.json, validation.schema.json):
 * committed exactly as the zod schemas generate them, and real output (a plan, a drift report, a
 * comparison, an apply, a pull against the emulator, a validation) valid against them, checked by a real JSON Schema validator (ajv) as well as
 * by the zod schemas themselves.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compareDocumentSchema } from '../../src/core/compare-document.js';
import {
  buildCompareJsonSchema,
  buildDriftJsonSchema,
  buildPlanJsonSchema,
  COMPARE_SCHEMA_FILE,
  DRIFT_SCHEMA_FILE,
  PLAN_SCHEMA_FILE,
} from '../../src/core/document-schemas.js';
import { driftDocumentSchema } from '../../src/core/drift-document.js';
import { planDocumentSchema } from '../../src/core/plan-document.js';
import { buildTestReportJsonSchema, TEST_REPORT_SCHEMA_FILE } from '../../src/core/test-document.js';
import { applyPlan } from '../../src/ops/apply/applier.js';
import type { ApplyReport } from '../../src/ops/apply/model.js';
import { replanSavedPlan } from '../../src/ops/apply/replan.js';
import {
  APPLY_REPORT_SCHEMA_FILE,
  applyReportDocument,
  applyReportDocumentSchema,
  applyReportEnvironments,
  applyReportFileSchema,
  buildApplyReportJsonSchema,
  renderJsonApplyReport,
} from '../../src/ops/apply/report-document.js';
import { readSavedPlan } from '../../src/ops/apply/saved-plan.js';
import {
  buildPullReportJsonSchema,
  PULL_REPORT_SCHEMA_FILE,
  pullReportDocumentSchema,
} from '../../src/ops/pull/report-document.js';
import {
  buildValidationJsonSchema,
  environmentsValidationSchema,
  VALIDATION_SCHEMA_FILE,
  validationDocumentSchema,
} from '../../src/ops/validate/document.js';
import { runCli } from '../helpers/cli.js';
import { startTestFirewall, type TestFirewall, writeConfig } from '../helpers/firewall.js';
import { EXAMPLES } from '../helpers/fixtures.js';
import { expectGolden } from '../helpers/golden.js';

const SCHEMAS = fileURLToPath(new URL('../../schemas/', import.meta.url));

const GENERATED: Record<string, () => string> = {
  [PLAN_SCHEMA_FILE]: buildPlanJsonSchema,
  [DRIFT_SCHEMA_FILE]: buildDriftJsonSchema,
  [COMPARE_SCHEMA_FILE]: buildCompareJsonSchema,
  [APPLY_REPORT_SCHEMA_FILE]: buildApplyReportJsonSchema,
  [PULL_REPORT_SCHEMA_FILE]: buildPullReportJsonSchema,
  [VALIDATION_SCHEMA_FILE]: buildValidationJsonSchema,
  [TEST_REPORT_SCHEMA_FILE]: buildTestReportJsonSchema,
};

/** The documents without a `format_version` (validate's has never had one). */
const UNVERSIONED = new Set([VALIDATION_SCHEMA_FILE]);

const committed = (file: string): Record<string, unknown> =>
  JSON.parse(readFileSync(join(SCHEMAS, file), 'utf8')) as Record<string, unknown>;

/** A validator of the committed schema `file` (draft 2020-12, strict about the schema itself). */
function validator(file: string): ValidateFunction {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  return ajv.compile(committed(file));
}

function expectValid(file: string, document: unknown): void {
  const validate = validator(file);
  const valid = validate(document);
  expect(validate.errors ?? [], `${file}: ${JSON.stringify(validate.errors, null, 2)}`).toEqual([]);
  expect(valid).toBe(true);
}

describe('schemas/ of the JSON outputs', () => {
  for (const [file, build] of Object.entries(GENERATED)) {
    it(`${file} is exactly what the zod schemas generate`, () => {
      // On failure: run `npm run schema` and commit the result.
      expect(
        readFileSync(join(SCHEMAS, file), 'utf8'),
        `schemas/${file} is stale: run \`npm run schema\``,
      ).toBe(build());
    });

    it(`${file} has an $id, a title, and format_version as a const`, () => {
      const schema = committed(file);
      expect(schema.$id).toBe(`https://github.com/wafctl/wafctl/schemas/${file}`);
      expect(schema.title).toMatch(/^wafctl /);
      if (!UNVERSIONED.has(file))
        expect(JSON.stringify(schema)).toContain('"format_version":{"type":"number","const":1}');
    });
  }

  it('rejects a document of another format_version, or with a misspelt outcome', () => {
    const report: ApplyReport = { results: [], refused: [], requests: 0 };
    const document = applyReportDocument(report, { exit_code: 0, duration_ms: 1 });
    expectValid(APPLY_REPORT_SCHEMA_FILE, document);
    expect(validator(APPLY_REPORT_SCHEMA_FILE)({ ...document, format_version: 2 })).toBe(false);
    expect(validator(PLAN_SCHEMA_FILE)({ format_version: 2, summary: {}, changes: [] })).toBe(false);
  });
});

describe('real output validates against the schemas', () => {
  let firewall: TestFirewall;
  beforeEach(async () => {
    firewall = await startTestFirewall();
  });
  afterEach(async () => {
    await firewall.close();
  });

  it('several environments: plan and drift --env all --format json are versioned and valid (issue 40)', async () => {
    const dir = await writeConfig({
      'wafctl.yaml': `environments:
  one: {url: ${firewall.url}, token_env: TOKEN_ONE, paths: [base]}
  two: {url: http://127.0.0.1:1, token_env: TOKEN_TWO, paths: [base]}
`,
      'base/groups.yaml': 'groups:\n  - name: soc\n',
    });
    // TOKEN_TWO is unset: that environment fails, and is null in the document.
    const env = { TOKEN_ONE: firewall.env.WAF_TOKEN ?? '' };
    for (const [command, file] of [
      ['plan', PLAN_SCHEMA_FILE],
      ['drift', DRIFT_SCHEMA_FILE],
    ] as const) {
      const result = await runCli([command, dir, '--env', 'all', '--format', 'json'], { env });
      expect(result.code).toBe(1);
      const document = JSON.parse(result.stdout) as {
        format_version: number;
        environments: Record<string, unknown>;
      };
      expect(document.format_version).toBe(1);
      expect(document.environments.two).toBeNull();
      expect(document.environments.one).toMatchObject({ format_version: 1 });
      expectValid(file, document);
    }
  });

  it('compare --desired --format json: the comparison of two configurations', async () => {
    const dir = await writeConfig({
      'wafctl.yaml': `environments:
  one: {url: ${firewall.url}, token_env: TOKEN_ONE, paths: [base, one]}
  two: {url: http://127.0.0.1:1, token_env: TOKEN_TWO, paths: [base, two]}
`,
      'base/groups.yaml': 'groups:\n  - name: soc\n',
      'one/groups.yaml': 'groups:\n  - name: retired\n',
      'two/groups.yaml': 'groups:\n  - name: hotfix\n    description: Tier-2\n',
    });
    const result = await runCli(['compare', 'one', 'two', dir, '--desired', '--format', 'json']);
    expect(result.code, result.stderr).toBe(2);
    const document = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(Object.keys(document).slice(0, 4)).toEqual(['from', 'to', 'compared', 'format_version']);
    expect(document).toMatchObject({ from: 'one', to: 'two', compared: 'desired' });
    expectValid(COMPARE_SCHEMA_FILE, document);
    expect(compareDocumentSchema.safeParse(document).success).toBe(true);
    expect(validator(COMPARE_SCHEMA_FILE)({ ...document, compared: 'files' })).toBe(false);
    // A comparison is a plan document with three more fields: the plan's schema accepts it too.
    expectValid(PLAN_SCHEMA_FILE, document);
  });

  it('pull --format json: a removal, a conflict and a live object not adopted (issue 40)', async () => {
    const env = { ...firewall.env, WAFCTL_VAR_LEAD: 'Tier-1' };
    const dir = await writeConfig({
      'groups.yaml': `groups:\n  - name: soc\n    description: \${WAFCTL_VAR_LEAD}\n  - name: retired\n`,
      'manage.yaml': 'manage:\n  groups: {prune: true}\n',
    });
    const applied = await runCli(['apply', dir, '--auto-approve'], { env });
    expect(applied.code, applied.stderr).toBe(0);
    const groups = await firewall.api.groups.list();
    const id = (name: string) => groups.find((g) => g.name === name)?.id ?? '';
    await firewall.api.groups.update(id('soc'), {
      name: 'soc',
      description: 'Tier-2',
      permissions: [],
      user_ids: [],
    });
    await firewall.api.groups.delete(id('retired'));
    await firewall.api.groups.create({ name: 'hotfix', permissions: [], user_ids: [] });

    const pulled = await runCli(['pull', dir, '--format', 'json'], { env });
    expect(pulled.code).toBe(1);
    const document = JSON.parse(pulled.stdout) as Record<string, unknown>;
    expectValid(PULL_REPORT_SCHEMA_FILE, document);
    expect(pullReportDocumentSchema.safeParse(document).success).toBe(true);
    expect(document).toMatchObject({
      environment: null,
      objects: { updated: 0, removed: 1, adopted: 0 },
      files: [{ file: join(dir, 'groups.yaml'), created: false, shared_with: [] }],
      conflicts: [{ address: 'group.soc', file: join(dir, 'groups.yaml'), line: 3 }],
      not_adopted: ['group.hotfix'],
    });
    expect(validator(PULL_REPORT_SCHEMA_FILE)({ ...document, objects: { updated: -1 } })).toBe(false);
  });

  it('validate --format json: valid, invalid, and with environments', async () => {
    const valid = await runCli(['validate', EXAMPLES, '--format', 'json']);
    expect(valid.code, valid.stderr).toBe(0);
    const validJson = JSON.parse(valid.stdout) as Record<string, unknown>;
    expect(Object.keys(validJson).slice(0, 3)).toEqual(['valid', 'files', 'groups']);
    expectValid(VALIDATION_SCHEMA_FILE, validJson);
    expect(validator(VALIDATION_SCHEMA_FILE)({ ...validJson, groups: -1 })).toBe(false);

    const dir = await writeConfig({
      'wafctl.yaml': `environments:
  one: {url: ${firewall.url}, token_env: TOKEN_ONE, paths: [base]}
  two: {url: http://127.0.0.1:1, token_env: TOKEN_TWO, paths: [base, two]}
`,
      'base/groups.yaml': 'groups:\n  - name: soc\n',
      'two/groups.yaml': 'groups:\n  - name: soc\n  - name: x\n    bogus: 1\n',
    });
    const invalid = await runCli(['validate', join(dir, 'two'), '--format', 'json']);
    expect(invalid.code).toBe(1);
    const invalidJson = JSON.parse(invalid.stdout) as { problems: Record<string, unknown>[] };
    expect(invalidJson.problems.length).toBeGreaterThan(0);
    expectValid(VALIDATION_SCHEMA_FILE, invalidJson);
    expect(validationDocumentSchema.safeParse(invalidJson).success).toBe(true);
    const [problem] = invalidJson.problems;
    expect(validator(VALIDATION_SCHEMA_FILE)({ ...invalidJson, problems: [{ ...problem, extra: 1 }] })).toBe(
      false,
    );

    const environments = await runCli(['validate', dir, '--format', 'json']);
    expect(environments.code).toBe(1);
    const environmentsJson = JSON.parse(environments.stdout) as Record<string, unknown>;
    expect(environmentsJson).toMatchObject({ valid: false, environments: { one: { valid: true } } });
    expectValid(VALIDATION_SCHEMA_FILE, environmentsJson);
    expect(environmentsValidationSchema.safeParse(environmentsJson).success).toBe(true);
  });

  /** Plans `dir` with `plan --out`, then applies that plan through the applier. */
  async function applyDir(dir: string): Promise<ApplyReport> {
    const out = join(await writeConfig({}), 'plan.json');
    const planned = await runCli(['plan', dir, '--out', out], { env: firewall.env });
    expect(planned.code, planned.stderr).toBe(0);
    const saved = await readSavedPlan(out);
    const plan = await replanSavedPlan(saved, firewall.api, 4, saved);
    return applyPlan(plan, firewall.api, { parallelism: 4, batchSize: 100, username: 'wafctl' });
  }

  it('plan, apply and drift of examples/, then drift after an out-of-band change', async () => {
    const plan = await runCli(['plan', EXAMPLES, '--format', 'json'], { env: firewall.env });
    expect(plan.code, plan.stderr).toBe(0);
    const planJson = JSON.parse(plan.stdout) as { changes: unknown[] };
    expect(planJson.changes.length).toBeGreaterThan(5);
    expectValid(PLAN_SCHEMA_FILE, planJson);
    expect(planDocumentSchema.safeParse(planJson).success).toBe(true);

    await firewall.resetStats();
    const report = await applyDir(EXAMPLES);
    const sent = (await firewall.stats()).total;
    const document = applyReportDocument(report, { exit_code: 0, duration_ms: 1234 });
    expect(document.succeeded).toBe(true);
    expect(document.summary.created).toBe(planJson.changes.length);
    expectValid(
      APPLY_REPORT_SCHEMA_FILE,
      JSON.parse(renderJsonApplyReport(report, { exit_code: 0, duration_ms: 5 })),
    );
    expect(applyReportDocumentSchema.safeParse(document).success).toBe(true);
    // The applier's count is the emulator's, less the reads of `plan --out` and of the re-plan.
    expect(document.requests).toBe(report.requests);
    expect(document.requests).toBeGreaterThan(0);
    expect(document.requests).toBeLessThanOrEqual(sent);
    const several = applyReportEnvironments([
      ['staging', document],
      ['production', document],
    ]);
    expectValid(APPLY_REPORT_SCHEMA_FILE, several);
    expect(applyReportFileSchema.safeParse(several).success).toBe(true);

    const clean = await runCli(['drift', EXAMPLES, '--format', 'json'], { env: firewall.env });
    expect(clean.code, clean.stderr).toBe(0);
    expectValid(DRIFT_SCHEMA_FILE, JSON.parse(clean.stdout));

    const [group] = (await firewall.api.groups.list()).filter((g) => g.name === 'soc-analysts');
    if (group === undefined) throw new Error('soc-analysts was not created');
    await firewall.api.groups.update(group.id, {
      name: group.name,
      description: 'changed by hand',
      is_admin: true,
      permissions: [],
      user_ids: [],
    });
    const drift = await runCli(['drift', EXAMPLES, '--format', 'json'], { env: firewall.env });
    expect(drift.code, drift.stderr).toBe(2);
    const driftJson = JSON.parse(drift.stdout) as { drift: boolean; changes: { action: string }[] };
    expect(driftJson.drift).toBe(true);
    expect(driftJson.changes.map((c) => c.action)).toContain('update');
    expectValid(DRIFT_SCHEMA_FILE, driftJson);
    expect(driftDocumentSchema.safeParse(driftJson).success).toBe(true);
    // A drift report is a plan document with two more fields: the plan's schema accepts it too.
    expectValid(PLAN_SCHEMA_FILE, driftJson);
  });

  it('writes the golden apply report of an apply where an update fails (run-dependent values normalised)', async () => {
    const groups = (analysts: string) =>
      [
        'groups:',
        '  - name: analysts',
        `    description: ${analysts}`,
        '    users: [u-1001]',
        '  - name: auditors',
        '    users: [u-1002]',
        'notifications:',
        '  - name: splunk',
        '    settings: {destination_address: 10.0.0.5, destination_port: 514, format: cef, protocol: udp}',
        '',
      ].join('\n');
    const dir = await writeConfig({ 'waf.yaml': groups('Tier-1') });
    expect((await applyDir(dir)).results.every((r) => r.outcome.status === 'done')).toBe(true);

    // Planned against the firewall, then the group to update is deleted by hand before the apply.
    await writeConfig({});
    const changed = await writeConfig({
      'waf.yaml': groups('Tier-2').replace('u-1002', 'u-1003').replace('protocol: udp', 'protocol: tcp'),
    });
    const planned = await runCli(['plan', changed, '--format', 'json'], { env: firewall.env });
    expect(planned.code, planned.stderr).toBe(0);
    const plan = planDocumentSchema.parse(JSON.parse(planned.stdout));
    const [analysts] = (await firewall.api.groups.list()).filter((g) => g.name === 'analysts');
    if (analysts === undefined) throw new Error('analysts was not created');
    await firewall.api.groups.delete(analysts.id);
    const report = await applyPlan(plan, firewall.api, {
      parallelism: 1,
      batchSize: 100,
      username: 'wafctl',
    });

    const text = renderJsonApplyReport(report, { exit_code: 1, duration_ms: 987.5 });
    const document = JSON.parse(text) as ReturnType<typeof applyReportDocument>;
    expectValid(APPLY_REPORT_SCHEMA_FILE, document);
    expect(document.summary).toMatchObject({ operations: 3, done: 2, failed: 1, updated: 2 });
    const failed = document.results.find((r) => r.outcome === 'failed');
    expect(failed?.error).toMatchObject({
      method: 'PUT',
      path: `/api/v1/groups/${analysts.id}`,
      status: 400,
    });
    // The emulator's ids are no part of the golden file: each becomes ID-1, ID-2... in order.
    let golden = `${JSON.stringify({ ...document, duration_ms: 0 }, null, 2)}\n`;
    // (A notification's id is its name, which stays.)
    const ids = [
      ...new Set(document.results.flatMap((r) => (r.id === null || r.kind !== 'group' ? [] : [r.id]))),
    ];
    ids.forEach((id, n) => {
      for (const [from, to] of [
        [`"id": "${id}"`, `"id": "ID-${n + 1}"`],
        [`/${id}"`, `/ID-${n + 1}"`],
        [`/${id}:`, `/ID-${n + 1}:`],
        [`'${id}'`, `'ID-${n + 1}'`],
      ] as const) {
        golden = golden.replaceAll(from, to);
      }
    });
    await expectGolden('apply-report.json', golden);
  });
});
