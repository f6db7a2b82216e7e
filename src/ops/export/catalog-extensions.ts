/**
 * What export does with application rules that use names outside wafctl's catalog of targets and
 * operators (core/rules/catalog.ts). A firmware may know more than the vendor's documentation says,
 * and the firewall holds what it holds: such a rule is exported as it is, and the names it uses are
 * declared in `settings.extra_targets` / `settings.extra_operators`, so the export still validates
 * and plans to "No changes.". A `match` expression that RE2 cannot compile (a lookahead, a
 * backreference), or a name settings cannot declare, is another matter: no setting makes `validate`
 * accept it, so the rule is left out with that reason (select.ts), like any other value the
 * configuration format refuses.
 */
import type * as z from 'zod';
import { extraOperatorsSchema, extraTargetsSchema } from '../../config/rule-catalog-settings.js';
import type { Attributes } from '../../core/model.js';
import { expressionProblem, isKnownOperator, isKnownTarget } from '../../core/rules/catalog.js';
import { NO_EXTENSIONS } from '../../core/rules/types.js';

/** The section whose rules name targets and operators: with `--dir`, its file carries `CatalogSettings`. */
export const RULES_SECTION = 'application_rules';

/** The `settings` an export writes for the names its rules use beyond the catalog; empty when none. */
export type CatalogSettings = {
  extra_targets?: string[];
  extra_operators?: string[];
};

interface ConditionNames {
  operator: string;
  targets: readonly string[];
  expressions: readonly string[];
}

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];

/** The conditions of an application rule in the configuration's shape, as far as they are strings. */
function conditionsOf(rule: Attributes): ConditionNames[] {
  const conditions = rule.conditions;
  if (!Array.isArray(conditions)) return [];
  return conditions.flatMap((condition: unknown) => {
    if (condition === null || typeof condition !== 'object') return [];
    const { operator, targets, expressions } = condition as Record<string, unknown>;
    if (typeof operator !== 'string') return [];
    return [{ operator, targets: strings(targets), expressions: strings(expressions) }];
  });
}

/** Sorted in code-unit order (the same bytes on every machine), without duplicates. */
const sortedUnique = (names: Iterable<string>): string[] =>
  [...new Set(names)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/**
 * The settings that make `rules` (application rules as export writes them) valid: each target and
 * operator outside the catalog, by its exact name. A list with no name is omitted, so a firewall
 * that uses only catalog names gets no settings at all.
 */
export function catalogSettingsOf(rules: readonly Attributes[]): CatalogSettings {
  const conditions = rules.flatMap(conditionsOf);
  const targets = sortedUnique(
    conditions.flatMap((c) => c.targets).filter((target) => !isKnownTarget(target, NO_EXTENSIONS)),
  );
  const operators = sortedUnique(
    conditions.map((c) => c.operator).filter((operator) => !isKnownOperator(operator, NO_EXTENSIONS)),
  );
  return {
    ...(targets.length > 0 ? { extra_targets: targets } : {}),
    ...(operators.length > 0 ? { extra_operators: operators } : {}),
  };
}

/** Why `name` cannot be declared in settings (`schema`: its list's), or undefined when it can. */
function undeclarable(name: string, schema: z.ZodType, list: string): string | undefined {
  const parsed = schema.safeParse([name]);
  if (parsed.success) return undefined;
  return `it is outside wafctl's catalog and cannot be declared in settings.${list}: ${parsed.error.issues[0]?.message ?? 'refused'}`;
}

/** Why one condition makes the rule unacceptable to `validate` whatever the settings say, or undefined. */
function conditionProblem({ operator, targets, expressions }: ConditionNames): string | undefined {
  if (!isKnownOperator(operator, NO_EXTENSIONS)) {
    const why = undeclarable(operator, extraOperatorsSchema, 'extra_operators');
    if (why !== undefined) return `its operator ${JSON.stringify(operator)}: ${why}`;
  }
  for (const target of targets.filter((name) => !isKnownTarget(name, NO_EXTENSIONS))) {
    const why = undeclarable(target, extraTargetsSchema, 'extra_targets');
    if (why !== undefined) return `its target ${JSON.stringify(target)}: ${why}`;
  }
  for (const expression of expressions) {
    const problem = expressionProblem(operator, expression);
    if (problem !== undefined) {
      return `its match expression ${JSON.stringify(expression)} is refused by validate whatever the settings say (${problem}): rewrite it in RE2 syntax and declare the rule by hand (the new expression replaces the rule)`;
    }
  }
  return undefined;
}

/**
 * Why `validate` would refuse an application rule whatever the settings say, or undefined: a `match`
 * expression RE2 cannot compile (a lookahead, a backreference), or a name outside the catalog that
 * settings cannot declare (one with whitespace, say). Such a rule is left out of an export.
 */
export function catalogProblem(rule: Attributes): string | undefined {
  for (const condition of conditionsOf(rule)) {
    const problem = conditionProblem(condition);
    if (problem !== undefined) return problem;
  }
  return undefined;
}
