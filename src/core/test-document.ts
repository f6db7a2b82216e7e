/**
 * The rule-test report as JSON (`wafctl test --format json`, the body of `test --out FILE` in that
 * format, and what the library's `test` gives): every case with where it is declared, what it
 * expected, what happened and why. Its zod schema is the source of `schemas/test-report.schema.json`
 * and of the document's type, and `testReportDocument` writes the document through it, so the two
 * cannot diverge. docs/commands.md ("Rule tests") documents the fields.
 */
import * as z from 'zod';
import { documentJsonSchema } from './document-schemas.js';

export const TEST_REPORT_FORMAT_VERSION = 1 as const;
export const TEST_REPORT_SCHEMA_FILE = 'test-report.schema.json';

const count = z.int().min(0);

/** An outcome as the document writes it: the action, and the rule and firewall when a rule decided. */
const outcomeSchema = z.strictObject({
  /** The deciding rule's `firewall_action`, or `none`. */
  action: z.string(),
  /** The rule's key, `RQ_HOST/DESCRIPTION` (expected: only when the case names one). */
  rule: z.string().optional(),
  /** The firewall of the action (expected: only when the case names one). */
  firewall: z.string().optional(),
});

const caseSchema = z.strictObject({
  name: z.string(),
  /** Where the case is declared (`tests[N]` of that file). */
  file: z.string(),
  line: z.int().min(1),
  col: z.int().min(1),
  status: z.enum(['pass', 'fail', 'error']),
  expected: outcomeSchema,
  /** What happened; absent when the case could not be evaluated (`error`). */
  actual: outcomeSchema.optional(),
  /** One line: what decided (pass), why not as expected (fail), why it could not be evaluated (error). */
  reason: z.string(),
  /** For a failure: the closest rule that did not apply, and its first condition that did not match. */
  closest: z
    .strictObject({
      rule: z.string(),
      /**
       * Index of its first condition that did not match, in the rule's `conditions` (0-based, as
       * `conditions[0]`); null when every condition matched (the rule is disabled, is for another
       * host, or another rule decided first).
       */
      condition: count.nullable(),
      why: z.string(),
    })
    .optional(),
});

export const testReportDocumentSchema = z.strictObject({
  format_version: z.literal(TEST_REPORT_FORMAT_VERSION),
  /** What the cases ran against: the configuration's application rules, or the live firewall's. */
  source: z.enum(['configuration', 'live']),
  /** The environment of wafctl.yaml (`--env NAME`), null without environments. */
  environment: z.string().nullable(),
  /** How many application rules the cases ran against. */
  rules: count,
  /** Whether every case passed. */
  passed: z.boolean(),
  summary: z.strictObject({ total: count, passed: count, failed: count, errors: count }),
  /** Every case, in the order the configuration declares them. */
  cases: z.array(caseSchema),
});

/** Several environments' reports (`test --env all --format json`): null for one that failed. */
export const testReportEnvironmentsSchema = z.strictObject({
  format_version: z.literal(TEST_REPORT_FORMAT_VERSION),
  environments: z.record(z.string(), testReportDocumentSchema.nullable()),
});

export type TestReportJson = z.output<typeof testReportDocumentSchema>;
export type TestCaseJson = TestReportJson['cases'][number];
export type TestReportEnvironmentsJson = z.output<typeof testReportEnvironmentsSchema>;

/** Where a case is declared. */
export interface CaseLocation {
  readonly file: string;
  readonly line: number;
  readonly col: number;
}

/** An outcome as the evaluator gives it. */
interface OutcomeLike {
  readonly action: string;
  readonly rule?: string | undefined;
  readonly firewall?: string | undefined;
}

/**
 * One case run, as the evaluator gives it (core/rules/evaluate.ts `CaseResult`), declared here by
 * its shape: core/rules imports from core, so core does not import from it.
 */
export interface CaseResultLike {
  readonly name: string;
  readonly status: 'pass' | 'fail' | 'error';
  readonly expected: OutcomeLike;
  readonly actual?: OutcomeLike | undefined;
  readonly reason: string;
  /** `condition` -1: none of the rule's conditions failed. */
  readonly closest?: { readonly rule: string; readonly condition: number; readonly why: string } | undefined;
}

/** One case's result, and where the case is declared. */
export interface LocatedResult {
  readonly result: CaseResultLike;
  readonly at: CaseLocation;
}

/** What the results do not say by themselves. */
export interface TestReportMeta {
  source: 'configuration' | 'live';
  /** The environment's name, with `--env`. */
  environment: string | undefined;
  /** How many application rules the cases ran against. */
  rules: number;
}

/** `{action, rule?, firewall?}` without the fields that are absent. */
function outcomeJson(outcome: OutcomeLike) {
  return {
    action: outcome.action,
    ...(outcome.rule === undefined ? {} : { rule: outcome.rule }),
    ...(outcome.firewall === undefined ? {} : { firewall: outcome.firewall }),
  };
}

function caseJson({ result, at }: LocatedResult): TestCaseJson {
  const { closest, actual } = result;
  return {
    name: result.name,
    file: at.file,
    line: at.line,
    col: at.col,
    status: result.status,
    expected: outcomeJson(result.expected),
    ...(actual === undefined ? {} : { actual: outcomeJson(actual) }),
    reason: result.reason,
    ...(closest === undefined
      ? {}
      : {
          closest: {
            rule: closest.rule,
            // The evaluator's -1: no condition failed.
            condition: closest.condition < 0 ? null : closest.condition,
            why: closest.why,
          },
        }),
  };
}

/** The report of `results` (in the order given), checked against its schema. */
export function testReportDocument(results: readonly LocatedResult[], meta: TestReportMeta): TestReportJson {
  const cases = results.map(caseJson);
  const counted = (status: TestCaseJson['status']) => cases.filter((c) => c.status === status).length;
  const summary = {
    total: cases.length,
    passed: counted('pass'),
    failed: counted('fail'),
    errors: counted('error'),
  };
  // The schema is the contract: a document that does not match it is a bug here, not output.
  return testReportDocumentSchema.parse({
    format_version: TEST_REPORT_FORMAT_VERSION,
    source: meta.source,
    environment: meta.environment ?? null,
    rules: meta.rules,
    passed: summary.passed === summary.total,
    summary,
    cases,
  });
}

/** Several environments' reports in one document, in the order given; null for one that failed. */
export function testReportEnvironments(
  reports: readonly (readonly [string, TestReportJson | undefined])[],
): TestReportEnvironmentsJson {
  return testReportEnvironmentsSchema.parse({
    format_version: TEST_REPORT_FORMAT_VERSION,
    environments: Object.fromEntries(reports.map(([name, report]) => [name, report ?? null])),
  });
}

/** `schemas/test-report.schema.json`: `test --format json`. */
export function buildTestReportJsonSchema(): string {
  return documentJsonSchema(z.union([testReportDocumentSchema, testReportEnvironmentsSchema]), {
    file: TEST_REPORT_SCHEMA_FILE,
    title: 'wafctl test report',
    description:
      'The JSON rule-test report: `wafctl test --format json` (and `--out FILE` in that format): each case with where it is declared, its status (`pass`, `fail`, `error`), what it expected, what happened and why, and for a failure the closest rule that did not apply; with several environments, `{"format_version": 1, "environments": {NAME: report or null}}`. Fields of format_version 1 never change meaning; more may be added.',
    reused: 'ref',
  });
}
