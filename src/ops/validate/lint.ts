/**
 * The rule lint of a loaded configuration (core/rules/lint.ts: rules that can never decide,
 * duplicates, blocking rules that match the empty string), each finding placed at the rule's
 * `FILE:LINE:COL` as `validate` reports it: a warning, an error with `--strict`.
 */
import { formatLocation, type SourceLocation } from '../../config/natural-keys.js';
import { type ConfigProblem, sortProblems } from '../../config/problems.js';
import { type LoadedConfig, sourcesOf } from '../../config/validate-sources.js';
import { formatPath } from '../../config/yaml-path.js';
import { actionClass } from '../../core/firewall-actions.js';
import { lintRules, type RuleLint } from '../../core/rules/lint.js';
import { applicationRulesKind, evalRuleOf } from '../../kinds/application-rules.js';
import type { WarningJson } from './document.js';

/** A lint finding at its place: a problem's fields and the lint code. */
export type ConfigWarning = WarningJson;

/**
 * Where a finding points: the rule, or for `matches_empty` the expression's path (at the rule's
 * line: the loader keeps no place below an object, and reading the file again for it is not worth it).
 * Every linted rule was declared; a rule with no place (never expected) is put on the first file.
 */
function placeOf(finding: RuleLint, at: SourceLocation | undefined, files: readonly string[]): ConfigProblem {
  if (at === undefined) return { file: files[0] ?? '', line: 0, col: 0, path: '', message: finding.message };
  const { condition, expression } = finding;
  const path =
    condition === undefined || expression === undefined
      ? at.path
      : formatPath([...at.nodePath, 'conditions', condition, 'expressions', expression]);
  return { file: at.file, line: at.line, col: at.col, path, message: finding.message };
}

/**
 * The lint findings of a loaded configuration, sorted by file, line and column. A finding naming
 * another rule also says where that one is, so both can be found without a search.
 */
export function configWarnings(config: LoadedConfig): ConfigWarning[] {
  const { firewall_actions } = config.state.settings;
  const isBlocking = (action: string) => actionClass(firewall_actions, action) === 'blocking';
  const findings = lintRules(config.state.application_rules.map(evalRuleOf), isBlocking);
  if (findings.length === 0) return [];
  const sources = sourcesOf(config, applicationRulesKind);
  const warnings = findings.map((finding): ConfigWarning => {
    const { file, line, col, path, message } = placeOf(finding, sources.get(finding.rule), config.files);
    const other = finding.other === undefined ? undefined : sources.get(finding.other);
    const where = other === undefined ? '' : `; ${finding.other} is at ${formatLocation(other)}`;
    return { file, line, col, path, code: finding.code, message: `${message}${where}` };
  });
  // Sorting keeps each object as it is: the cast only gives back the warnings' own type.
  return sortProblems(warnings) as ConfigWarning[];
}
