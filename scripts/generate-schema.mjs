// Writes the JSON Schemas under schemas/ from the zod schemas (run by `npm run schema`, which builds
// first): the configuration's (wafctl.schema.json) and those of the JSON outputs (the plan, the drift
// report, the comparison, the apply report, the pull report, the validation, the rule-test report).
// A test fails when a committed file differs from what the schemas generate.
import { writeFileSync } from 'node:fs';
import { buildJsonSchema } from '../dist/config/json-schema.js';
import {
  buildCompareJsonSchema,
  buildDriftJsonSchema,
  buildPlanJsonSchema,
  COMPARE_SCHEMA_FILE,
  DRIFT_SCHEMA_FILE,
  PLAN_SCHEMA_FILE,
} from '../dist/core/document-schemas.js';
import { buildTestReportJsonSchema, TEST_REPORT_SCHEMA_FILE } from '../dist/core/test-document.js';
import { APPLY_REPORT_SCHEMA_FILE, buildApplyReportJsonSchema } from '../dist/ops/apply/report-document.js';
import { buildPullReportJsonSchema, PULL_REPORT_SCHEMA_FILE } from '../dist/ops/pull/report-document.js';
import { buildValidationJsonSchema, VALIDATION_SCHEMA_FILE } from '../dist/ops/validate/document.js';

const files = {
  'wafctl.schema.json': buildJsonSchema(),
  [PLAN_SCHEMA_FILE]: buildPlanJsonSchema(),
  [DRIFT_SCHEMA_FILE]: buildDriftJsonSchema(),
  [COMPARE_SCHEMA_FILE]: buildCompareJsonSchema(),
  [APPLY_REPORT_SCHEMA_FILE]: buildApplyReportJsonSchema(),
  [PULL_REPORT_SCHEMA_FILE]: buildPullReportJsonSchema(),
  [VALIDATION_SCHEMA_FILE]: buildValidationJsonSchema(),
  [TEST_REPORT_SCHEMA_FILE]: buildTestReportJsonSchema(),
};
for (const [name, text] of Object.entries(files)) {
  const target = new URL(`../schemas/${name}`, import.meta.url);
  writeFileSync(target, text);
  console.log(`wrote ${target.pathname}`);
}
