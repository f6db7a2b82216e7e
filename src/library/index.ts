/**
 * wafctl as a library: `import { validate, plan, drift, apply, exportState, test } from 'wafctl'`
 * (docs/library.md). Each function runs the operations the CLI's command runs and gives the document
 * that command prints with `--format json`. The caller injects what the CLI takes from the process:
 * the directory, the variables, the connection (or the environment of wafctl.yaml to work on), a
 * signal, the clock and where notes go. Nothing is printed, nothing exits, `process` is never read.
 * The options are checked first (options.ts), whatever the caller's types said.
 *
 * Every export declares its type in src/library/ (types.ts; documents.ts, generated from the JSON
 * Schemas): the package ships these declarations, and they need nothing else installed.
 */
import { applyConfiguration } from './apply.js';
import { isWafctlError as isOwnError } from './context.js';
import type {
  ApplyReport,
  DriftDocument,
  EnvironmentsValidationDocument,
  PlanDocument,
  ValidationDocument,
} from './documents.js';
import { exportFiles } from './export.js';
import { checkedOptions } from './options.js';
import { driftDocument, planDocument } from './plan.js';
import { testDocument } from './test.js';
import type {
  ApplyOptions,
  ExportedState,
  ExportOptions,
  PlanOptions,
  TestOptions,
  TestReport,
  ValidateOptions,
  WafctlErrorLike,
} from './types.js';
import { validateConfiguration } from './validate.js';

export type {
  ApplyReport,
  ApplyResult,
  ConfigurationProblem,
  DriftDocument,
  EnvironmentsValidationDocument,
  InvalidDocument,
  PlanChange,
  PlanDocument,
  PlanSummary,
  ValidationDocument,
  ValidDocument,
} from './documents.js';
export type {
  AbortSignalLike,
  ApplyChoices,
  ApplyOptions,
  Clock,
  ConfigurationOptions,
  ConnectionSettings,
  ErrorCode,
  ExportChoices,
  ExportedFile,
  ExportedState,
  ExportOptions,
  FailOnClass,
  FamilySection,
  FirewallConnection,
  FirewallTarget,
  LeftOutObject,
  PlanOptions,
  RunOptions,
  SelectionOptions,
  SignInConnection,
  TestCaseReport,
  TestOptions,
  TestOutcome,
  TestReport,
  TestTarget,
  TokenConnection,
  ValidateOptions,
  WafctlErrorLike,
} from './types.js';

/**
 * Checks the configuration offline, as `wafctl validate --format json`: `{ valid: true, files,
 * <family>: count, ... }` or `{ valid: false, problems }`; with environments declared in the root's
 * wafctl.yaml, `{ valid, environments: { NAME: ... } }` (every one, or `environment` alone, as
 * `--env NAME`); `strict: true` makes the rule lint's warnings problems, as `--strict`. Throws only for what is not a configuration problem (a usage error, an unreadable
 * directory).
 */
export async function validate(
  options: ValidateOptions,
): Promise<ValidationDocument | EnvironmentsValidationDocument> {
  return validateConfiguration(checkedOptions('validate', options));
}

/**
 * Plans the configuration against the live firewall, as `wafctl plan --format json` (with
 * `environment`, as `wafctl plan --env NAME --format json`). Throws a `CONFIG_INVALID` error (with
 * `problems`) for an invalid configuration, and the API's errors.
 */
export async function plan(options: PlanOptions): Promise<PlanDocument> {
  return planDocument(checkedOptions('plan', options));
}

/** Reports drift, as `wafctl drift --format json`: the plan document with `drift` and `objects`. */
export async function drift(options: PlanOptions): Promise<DriftDocument> {
  return driftDocument(checkedOptions('drift', options));
}

/**
 * Plans and applies, as `wafctl apply --format json` (the CLI's workflow, ops/apply/workflow.ts):
 * gives the apply report. Without `confirm`, applies as `--auto-approve`; a refusal at the gate
 * (`failOn`, the safety threshold, objects that could not be planned) or a declined `confirm` gives
 * the report of what was not applied and why. Throws for an invalid configuration or options, and
 * when the firewall cannot be read.
 */
export async function apply(options: ApplyOptions): Promise<ApplyReport> {
  return applyConfiguration(checkedOptions('apply', options));
}

/**
 * Exports the live state as the files `wafctl export --dir DIR` writes (one per family, loaded back
 * before they are given); writes them into `dir` only with `write: true`.
 */
export async function exportState(options: ExportOptions): Promise<ExportedState> {
  return exportFiles(checkedOptions('exportState', options));
}

/**
 * Runs the configuration's rule tests (`tests:`), as `wafctl test --format json`: against its own
 * application rules, offline, or with `live: true` against the live firewall's (a `connection`, or
 * the `environment`'s). A failing case is in the report (`passed: false`, its `status` and
 * `reason`); a configuration that declares no case throws a `USAGE` error, as the CLI exits 1.
 */
export async function test(options: TestOptions): Promise<TestReport> {
  return testDocument(checkedOptions('test', options));
}

/** Whether `error` is one of wafctl's own errors: then `error.code` is stable (docs/library.md). */
export function isWafctlError(error: unknown): error is WafctlErrorLike {
  return isOwnError(error);
}
