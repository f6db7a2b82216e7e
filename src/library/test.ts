/**
 * `test`: the configuration's rule tests (`tests:`) run against its application rules, or with
 * `live` against the live firewall's, giving what `wafctl test --format json` prints (ops/test/).
 * One environment per call, as `plan`: `environment` is required where the root declares
 * environments; offline, its URL and credentials are never read. A case that fails is an answer (the
 * report says so); a configuration without a case is refused, as the CLI refuses it.
 */
import { type EnvironmentSpec, projectRoot, readProject } from '../config/project.js';
import { usageError } from '../core/errors.js';
import type { TestReportJson } from '../core/test-document.js';
import { HYDRATION_CONCURRENCY } from '../ops/defaults.js';
import { environmentNamed, loadTarget, selectedNames } from '../ops/project.js';
import { configuredRules, liveRules } from '../ops/test/rules.js';
import { casesOf, runTests, sourceFiles } from '../ops/test/run.js';
import { apiClientOf, loadOptionsOf, type Same } from './context.js';
import { loadConfiguration, type SelectedConfiguration } from './plan.js';
import type { PlanOptions, TestOptions, TestReport } from './types.js';

// The public TestReport (types.ts) is the document's type: a field added to one and not the other
// fails here.
const sameReport: Same<TestReport, TestReportJson> = true;
void sameReport;

/** What a call tests: the configuration, the environment's spec, and its firewall (with `live`). */
type Tested = SelectedConfiguration & { spec: EnvironmentSpec | undefined };

/** The configuration of `options`, offline: the PATHs', or `environment`'s (never its connection). */
async function offlineConfiguration(options: TestOptions, paths: readonly string[]): Promise<Tested> {
  const root = await projectRoot(paths, options.cwd);
  const project = await readProject(root, options.cwd);
  const given = options.environment === undefined ? [] : [options.environment];
  const selection = selectedNames({ root, project }, paths, given, {
    option: 'environment',
    needed: 'give `environment` to choose the one to test',
  });
  if (selection?.several) {
    throw usageError(
      `a call works on one environment, not ${selection.names.join(', ')}: make one call per environment`,
    );
  }
  const spec =
    selection === undefined ? undefined : environmentNamed(selection.project, selection.names[0] ?? '');
  const config = await loadTarget(project, { paths, environment: spec }, loadOptionsOf(options, project));
  return { config, environment: undefined, spec };
}

/** The configuration of `options` and the live firewall it names: the connection, or the environment's. */
async function liveConfiguration(options: TestOptions): Promise<Tested> {
  const selected = await loadConfiguration(options as PlanOptions, 'test against');
  return { ...selected, spec: selected.environment?.spec };
}

/** What `wafctl test --format json` prints (with `environment`, `--env NAME`; with `live`, `--live`). */
export async function testDocument(options: TestOptions): Promise<TestReport> {
  const paths = options.paths ?? ['.'];
  const live = options.live === true;
  const { config, environment, spec } = live
    ? await liveConfiguration(options)
    : await offlineConfiguration(options, paths);
  const where = sourceFiles(paths, spec);
  // Refused before any request.
  casesOf(config, where);
  const rules = live
    ? await liveRules(await apiClientOf(options as PlanOptions, environment), {
        concurrency: HYDRATION_CONCURRENCY,
      })
    : configuredRules(config.state);
  const source = { source: live ? 'live' : 'configuration', environment: spec?.name } as const;
  return runTests(config, rules, source, where);
}
