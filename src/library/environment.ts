/**
 * The environment of wafctl.yaml a call works on: `environment`, selected as the CLI's `--env NAME`
 * selects it (ops/project.ts: the same checks, before any request), one per call. Without it, a root
 * that declares environments is refused, as the CLI refuses it without `--env`.
 */
import { type EnvironmentSpec, type Project, projectRoot, readProject } from '../config/project.js';
import { usageError } from '../core/errors.js';
import { connectionOf, type EnvironmentConnection, environmentNamed, selectedNames } from '../ops/project.js';
import type { FirewallTarget, RunOptions } from './types.js';

/** The environment selected: the project's paths and vars for it, and where its firewall is. */
export interface SelectedEnvironment {
  project: Project;
  environment: EnvironmentSpec;
  connection: EnvironmentConnection;
}

/**
 * The environment `options.environment` names, of the project at `paths` (relative to `cwd`), or
 * undefined when the root declares none and none is named; `verb` says what the call does, in the
 * refusal of a root with environments and none named. Its URL is read here (`url`, or `url_env` in
 * `env`); a `connection` that says where or as whom is refused with it, as `--url` with `--env`.
 */
export async function selectEnvironment(
  options: RunOptions & FirewallTarget,
  paths: readonly string[],
  verb: string,
): Promise<SelectedEnvironment | undefined> {
  const root = await projectRoot(paths, options.cwd);
  const given = options.environment === undefined ? [] : [options.environment];
  const selection = selectedNames({ root, project: await readProject(root, options.cwd) }, paths, given, {
    option: 'environment',
    needed: `give \`environment\` to choose the one to ${verb}`,
  });
  if (selection === undefined) return undefined;
  const { project, names, several } = selection;
  if (several) {
    throw usageError(
      `a call works on one environment, not ${names.join(', ')}: make one call per environment`,
    );
  }
  const environment = environmentNamed(project, names[0] ?? '');
  const conflicting = Object.entries(options.connection ?? {})
    .filter(([key, value]) => key !== 'timeoutSeconds' && value !== undefined)
    .map(([key]) => `connection.${key}`);
  if (conflicting.length > 0) {
    throw usageError(
      `${conflicting.join(' and ')} cannot be combined with environment: environment ${environment.name} takes its URL and credentials from ${project.file}`,
    );
  }
  return { project, environment, connection: connectionOf(environment, project.file, options.env ?? {}) };
}
