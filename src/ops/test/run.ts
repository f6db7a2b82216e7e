/**
 * `test`: the configuration's rule tests (`tests:`) run against application rules — the
 * configuration's own, or the live firewall's — and the report the CLI prints and the library
 * gives (core/test-document.ts). A case that fails is an outcome, not an error; a configuration that
 * declares no case is refused (`noCases`): a pipeline step that tests nothing is a mistake.
 */

import type { EnvironmentSpec } from '../../config/project.js';
import { catalogExtensions } from '../../config/rule-catalog-settings.js';
import type { LocatedTestCase } from '../../config/rule-tests.js';
import type { LoadedConfig } from '../../config/validate-sources.js';
import { usageError, type WafctlError } from '../../core/errors.js';
import { compileRules } from '../../core/rules/evaluate.js';
import type { EvalRule } from '../../core/rules/types.js';
import { redact } from '../../core/secrets.js';
import { type TestReportJson, type TestReportMeta, testReportDocument } from '../../core/test-document.js';

/** What a run tests against, and where it says it came from. */
export type TestSource = Omit<TestReportMeta, 'rules'>;

/**
 * The cases the configuration declares, in the order it declares them; refused when there is none,
 * before any request: `where` names what was read (the PATHs, or an environment's paths).
 */
export function casesOf(config: Pick<LoadedConfig, 'state'>, where: string): readonly LocatedTestCase[] {
  const cases = config.state.tests;
  if (cases.length === 0) throw noCases(where);
  return cases;
}

function noCases(where: string): WafctlError {
  return usageError(
    `no test cases in ${where}: declare them under \`tests:\` (docs/rule-tests.md); a run that tests nothing fails`,
  );
}

/** Runs every case of `config` against `rules` and gives the report; refuses a configuration without one. */
export function runTests(
  config: Pick<LoadedConfig, 'state'>,
  rules: readonly EvalRule[],
  source: TestSource,
  where: string,
): TestReportJson {
  const cases = casesOf(config, where);
  const ruleSet = compileRules(rules, catalogExtensions(config.state));
  const results = cases.map((test) => ({ result: ruleSet.run(test), at: test.at }));
  return redacted(testReportDocument(results, { ...source, rules: rules.length }));
}

/**
 * The report with every registered secret redacted from its strings: a case's name, request or
 * reason may quote a value that is also the token. Redacted here, not only when printed, so that
 * `--out FILE` and the library's document hold no secret either.
 */
function redacted<T>(value: T): T {
  if (typeof value === 'string') return redact(value) as T;
  if (Array.isArray(value)) return value.map(redacted) as T;
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redacted(item)])) as T;
}

/** `a, b and c`. */
function listOf(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/** What a run reads, as its refusals name it: the PATHs (none: `.`), or an environment's paths. */
export function sourceFiles(paths: readonly string[], environment: EnvironmentSpec | undefined): string {
  if (environment === undefined) return listOf(paths.length === 0 ? ['.'] : paths);
  return `the paths of environment ${environment.name} (${listOf(environment.paths)})`;
}
