/**
 * `validate`: offline checks of a configuration, giving what `wafctl validate --format json` prints
 * (ops/validate/validate.ts): one configuration's document, or, when the root's wafctl.yaml declares
 * environments, each environment's under its name (only `environment`'s, when it is given, as
 * `--env NAME`). Invalid configuration is an answer (`valid: false` and its problems), not an error;
 * so is, with `strict`, a configuration with rule lint warnings.
 */
import { loadDesiredState } from '../config/load.js';
import { type Project, projectRoot, readProject } from '../config/project.js';
import type { Section } from '../kinds/index.js';
import { assertRootPaths, environmentNamed, loadTarget, noEnvironments } from '../ops/project.js';
import { environmentsJson, validateEnvironments, validationOf } from '../ops/validate/validate.js';
import { loadOptionsOf, type Same } from './context.js';
import type { EnvironmentsValidationDocument, ValidationDocument, ValidDocument } from './documents.js';
import type { FamilySection, ValidateOptions } from './types.js';

// The public FamilySection (types.ts) is the registry's sections (kinds/index.ts), and a valid
// document counts each of them: a family added to the registry and not there fails here.
const sameSections: Same<FamilySection, Section> = true;
const sameCounts: Same<Exclude<keyof ValidDocument, 'warnings'>, 'valid' | 'files' | FamilySection> = true;
void sameSections;
void sameCounts;

/** Validates the configuration at `options.paths`; the environments of a project. */
export async function validateConfiguration(
  options: ValidateOptions,
): Promise<ValidationDocument | EnvironmentsValidationDocument> {
  const paths = options.paths ?? ['.'];
  const root = await projectRoot(paths, options.cwd);
  let project: Project | undefined;
  try {
    project = await readProject(root, options.cwd);
  } catch (error) {
    // An invalid `environments:` is reported as any invalid configuration is.
    return (await validationOf(() => Promise.reject(error), options)).json;
  }
  if (project === undefined) {
    if (options.environment !== undefined) throw noEnvironments(root, 'environment');
    return (await validationOf(() => loadDesiredState(paths, loadOptionsOf(options)), options)).json;
  }
  assertRootPaths(project, root, paths);
  const { environment } = options;
  const environments =
    environment === undefined ? project.environments : [environmentNamed(project, environment)];
  const load = loadOptionsOf(options, project);
  const current = project;
  return environmentsJson(
    await validateEnvironments(
      environments,
      (spec) => loadTarget(current, { paths, environment: spec }, load),
      options,
    ),
  );
}
