/**
 * `validate`: the offline checks of a configuration, as the CLI reports them (cli/validate.ts: the
 * text line, or `--format json`) and the library gives them (the same JSON): the number of files
 * and of each family's objects, or every problem. Invalid configuration is an outcome, not an error.
 * With environments, each one selected is validated in turn, in the order wafctl.yaml declares them.
 */
import { ConfigError } from '../../config/problems.js';
import type { EnvironmentSpec } from '../../config/project.js';
import { declaredObjects } from '../../config/schema.js';
import type { LoadedConfig } from '../../config/validate-sources.js';
import { plural } from '../../core/text.js';
import { KINDS } from '../../kinds/index.js';
import { countOf } from '../export/document.js';
import {
  type EnvironmentsValidationJson,
  environmentsValidationSchema,
  problemJson,
  type ValidationJson,
  validationDocumentSchema,
} from './document.js';

/** One configuration's validation: its JSON, and the text the CLI prints (stdout if valid, else stderr). */
export interface ValidationOutcome {
  json: ValidationJson;
  text: string;
}

/** The validation of what `load` loads: a `ConfigError` is its problems; anything else is thrown. */
export async function validationOf(load: () => Promise<LoadedConfig>): Promise<ValidationOutcome> {
  try {
    const { state, files } = await load();
    const families = KINDS.map((kind) => ({ kind, count: declaredObjects(state, kind).length }));
    const counts = Object.fromEntries(families.map(({ kind, count }) => [kind.section, count]));
    // A singleton section (settings) is named when declared, not counted.
    const shown = families
      .filter(({ kind, count }) => !kind.singleton || count > 0)
      .map(({ kind, count }) =>
        kind.singleton ? kind.section.replaceAll('_', ' ') : countOf(kind.section, count),
      );
    return {
      json: validationDocumentSchema.parse({ valid: true, files: files.length, ...counts }),
      text: `Configuration is valid: ${[plural(files.length, 'file'), ...shown].join(', ')}.`,
    };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const skipped = error.skipped.length === 0 ? {} : { skipped: error.skipped };
    const problems = error.problems.map(problemJson);
    return {
      json: validationDocumentSchema.parse({ valid: false, problems, ...skipped }),
      text: error.message,
    };
  }
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
): Promise<EnvironmentValidation[]> {
  const validations: EnvironmentValidation[] = [];
  for (const environment of environments) {
    validations.push({ name: environment.name, outcome: await validationOf(() => load(environment)) });
  }
  return validations;
}

/** The JSON of environments' validations. */
export function environmentsJson(validations: readonly EnvironmentValidation[]): EnvironmentsValidationJson {
  // The schema is the contract: a document that does not match it is a bug here, not output.
  return environmentsValidationSchema.parse({
    valid: validations.every(({ outcome }) => outcome.json.valid),
    environments: Object.fromEntries(validations.map(({ name, outcome }) => [name, outcome.json])),
  });
}
