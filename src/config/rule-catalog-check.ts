/**
 * Every condition of every declared application rule against the vendor's catalog
 * (src/core/rules/catalog.ts) and the firmware's extensions (`settings.extra_targets`,
 * `settings.extra_operators`): an unknown operator or target, and a `match` expression that does not
 * compile, is one problem each, at its own node, with the closest name.
 *
 * It runs across files, once `settings` is merged: the extensions may be set in another file than the
 * rules. A configuration holds 100,000 rules, so nothing is placed until a problem is found, and each
 * distinct expression is compiled once per load, but those of a shape that always compiles
 * (simple-expression.ts), which are not compiled at all.
 */
import { expressionProblem, operatorProblem, targetProblem } from '../core/rules/catalog.js';
import type { CatalogExtensions, EvalCondition } from '../core/rules/types.js';
import { keepProblem } from './overlay.js';
import type { ConfigProblem } from './problems.js';
import { compilesForCertain } from './simple-expression.js';
import type { CheckedDocument } from './validate-document.js';
import { formatPath, type YamlPath } from './yaml-path.js';

/** The section of the rules checked. */
const RULES = 'application_rules';

/** Each distinct `match` expression's problem, found once per load. */
class ExpressionChecks {
  private readonly found = new Map<string, string | undefined>();

  problem(expression: string): string | undefined {
    if (compilesForCertain(expression)) return undefined;
    if (this.found.has(expression)) return this.found.get(expression);
    const problem = expressionProblem('match', expression);
    this.found.set(expression, problem);
    return problem;
  }
}

/** One run of the check: where problems go, the extensions (undefined: operators and targets are not checked). */
interface Check {
  problems: ConfigProblem[];
  extensions: CatalogExtensions | undefined;
  expressions: ExpressionChecks;
}

/**
 * A problem at `path` of `document`, unless the value was already reported (a `${VAR}` that could not
 * be substituted) or is under a field an overlay inherits (said where the earlier path writes it:
 * overlay.ts `keepProblem`).
 */
function report(check: Check, document: CheckedDocument['document'], path: YamlPath, message: string): void {
  const shown = formatPath(path);
  if (document.reportedPaths.has(shown)) return;
  const { line, col } = document.locate(path);
  const problem = { file: document.file, line, col, path: shown, message };
  if (keepProblem(document, problem)) check.problems.push(problem);
}

function checkCondition(
  check: Check,
  document: CheckedDocument['document'],
  at: YamlPath,
  condition: EvalCondition,
): void {
  const { extensions } = check;
  if (extensions !== undefined) {
    const operator = operatorProblem(condition.operator, extensions);
    if (operator !== undefined) report(check, document, [...at, 'operator'], operator);
    condition.targets.forEach((target, k) => {
      const problem = targetProblem(target, extensions);
      if (problem !== undefined) report(check, document, [...at, 'targets', k], problem);
    });
  }
  if (condition.operator !== 'match') return;
  condition.expressions.forEach((expression, k) => {
    const problem = check.expressions.problem(expression);
    if (problem !== undefined) report(check, document, [...at, 'expressions', k], problem);
  });
}

/**
 * The problems of the declared rules' conditions (see the module comment). `extensions` undefined:
 * the merged settings are unknown (set twice, or with problems), so operators and targets are not
 * checked, only `match` expressions.
 */
export function catalogProblems(
  valid: readonly CheckedDocument[],
  extensions: CatalogExtensions | undefined,
): ConfigProblem[] {
  const check: Check = { problems: [], extensions, expressions: new ExpressionChecks() };
  for (const { document, output } of valid) {
    const rules = output[RULES];
    if (!Array.isArray(rules)) continue;
    rules.forEach((rule: { conditions: readonly EvalCondition[] } | undefined, r) => {
      rule?.conditions.forEach((condition, c) => {
        checkCondition(check, document, [RULES, r, 'conditions', c], condition);
      });
    });
  }
  return check.problems;
}

/** Whether any valid document declares a rule: the check has something to skip. */
export function declaresRules(valid: readonly CheckedDocument[]): boolean {
  return valid.some(({ output }) => Array.isArray(output[RULES]) && output[RULES].length > 0);
}
