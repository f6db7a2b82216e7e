/**
 * `validate`: the offline checks of a configuration, as the CLI reports them (cli/validate.ts: the
 * text line, or `--format json`) and the library gives them (the same JSON): the number of files
 * and of each family's objects, or every problem; and the rule lint's warnings (ops/validate/lint.ts),
 * which `strict` makes problems. Invalid configuration is an outcome, not an error.
 * With environments, each one selected is validated in turn, in the order wafctl.yaml declares them.
 */

import { ConfigError, capProblems } from '../../config/problems.js';
import type { EnvironmentSpec } from '../../config/project.js';
import { declaredObjects } from '../../config/schema.js';
import type { LoadedConfig } from '../../config/validate-sources.js';
import type { EnvironmentSummary } from '../../core/fleet-summary.js';
import { plural, printable } from '../../core/text.js';
import { KINDS } from '../../kinds/index.js';
import { resultOf } from '../../plan/render/environments.js';
import { countOf } from '../export/document.js';
import {
  type EnvironmentsValidationJson,
  environmentsValidationSchema,
  problemJson,
  type ValidationJson,
  validationDocumentSchema,
} from './document.js';
import { type ConfigWarning, configWarnings } from './lint.js';

/** How to validate: `strict`, a configuration with rule lint warnings is invalid (`--strict`). */
export interface ValidationOptions {
  strict?: boolean | undefined;
}

/**
 * One configuration's validation: its JSON, the text the CLI prints (stdout if valid, else stderr)
 * and the lines of its warnings (stderr, before the text).
 */
export interface ValidationOutcome {
  json: ValidationJson;
  text: string;
  warnings: string[];
}

/** The validation of what `load` loads: a `ConfigError` is its problems; anything else is thrown. */
export async function validationOf(
  load: () => Promise<LoadedConfig>,
  options: ValidationOptions = {},
): Promise<ValidationOutcome> {
  let config: LoadedConfig;
  try {
    config = await load();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const skipped = error.skipped.length === 0 ? {} : { skipped: error.skipped };
    const problems = error.problems.map(problemJson);
    return {
      json: validationDocumentSchema.parse({ valid: false, problems, ...skipped, warnings: [] }),
      text: error.message,
      warnings: [],
    };
  }
  const warnings = configWarnings(config);
  return options.strict === true && warnings.length > 0
    ? strictOutcome(warnings)
    : validOutcome(config, warnings);
}

/** A configuration that loaded: its counts, and its warnings (`Configuration is valid, 2 warnings: ...`). */
function validOutcome(config: LoadedConfig, warnings: readonly ConfigWarning[]): ValidationOutcome {
  const { state, files } = config;
  const families = KINDS.map((kind) => ({ kind, count: declaredObjects(state, kind).length }));
  const counts = Object.fromEntries(families.map(({ kind, count }) => [kind.section, count]));
  // A singleton section (settings) is named when declared, not counted.
  const shown = families
    .filter(({ kind, count }) => !kind.singleton || count > 0)
    .map(({ kind, count }) =>
      kind.singleton ? kind.section.replaceAll('_', ' ') : countOf(kind.section, count),
    );
  const verdict =
    warnings.length === 0
      ? 'Configuration is valid'
      : `Configuration is valid, ${plural(warnings.length, 'warning')}`;
  return {
    json: validationDocumentSchema.parse({ valid: true, files: files.length, ...counts, warnings }),
    text: `${verdict}: ${[plural(files.length, 'file'), ...shown].join(', ')}.`,
    warnings: warningLines(warnings),
  };
}

/**
 * With `strict`, a configuration with warnings is invalid: the warnings are its problems too (capped
 * per file as problems are), so a reader of `problems` alone still learns why.
 */
function strictOutcome(warnings: readonly ConfigWarning[]): ValidationOutcome {
  const problems = capProblems(warnings.map(problemJson));
  return {
    json: validationDocumentSchema.parse({ valid: false, problems, warnings }),
    text: `Configuration is invalid: ${plural(warnings.length, 'warning')}, which --strict makes errors.`,
    warnings: warningLines(warnings),
  };
}

/**
 * `FILE:LINE:COL: warning: MESSAGE`, one line each, at most MAX_PROBLEMS_PER_FILE per file as for
 * problems, then `FILE: warning: N more warnings in this file not shown`. Data is shown `printable`.
 */
function warningLines(warnings: readonly ConfigWarning[]): string[] {
  return capProblems(warnings).map(({ file, line, col, message, hidden }) => {
    const where = line > 0 ? `${printable(file)}:${line}:${col}` : printable(file);
    const what =
      hidden === undefined ? printable(message) : `${plural(hidden, 'more warning')} in this file not shown`;
    return `${where}: warning: ${what}`;
  });
}

/** One environment's validation. */
export interface EnvironmentValidation {
  name: string;
  outcome: ValidationOutcome;
}

/** Validates each of `environments`, one at a time (each reads its own files), in their order. */
export async function validateEnvironments(
  environments: readonly EnvironmentSpec[],
  load: (environment: EnvironmentSpec) => Promise<LoadedConfig>,
  options: ValidationOptions = {},
): Promise<EnvironmentValidation[]> {
  const validations: EnvironmentValidation[] = [];
  for (const environment of environments) {
    const outcome = await validationOf(() => load(environment), options);
    validations.push({ name: environment.name, outcome });
  }
  return validations;
}

/** The JSON of environments' validations. */
export function environmentsJson(validations: readonly EnvironmentValidation[]): EnvironmentsValidationJson {
  // The schema is the contract: a document that does not match it is a bug here, not output.
  return environmentsValidationSchema.parse({
    valid: validations.every(({ outcome }) => outcome.json.valid),
    environments: Object.fromEntries(validations.map(({ name, outcome }) => [name, outcome.json])),
    summary: Object.fromEntries(validations.map(({ name, outcome }) => [name, validationSummary(outcome)])),
  });
}

/** An environment's row in the summary of several: `valid`, or `invalid: N problems`. */
export function validationSummary({ json }: ValidationOutcome): EnvironmentSummary {
  const count = json.valid ? 0 : json.problems.reduce((sum, problem) => sum + (problem.hidden ?? 1), 0);
  return { result: resultOf('validate', count), count, impact: null, error: null };
}
