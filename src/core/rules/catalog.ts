/**
 * The vendor's catalog of application-rule targets and condition operators, and the dialect of
 * `match` expressions. Sources (docs/rule-tests.md cites them rule by rule):
 *
 * - Targets: the table of the "Application Rules" page (docs.seerbox.it/main/how-to/protection/
 *   application_rules): basic targets by name, composed targets as `PREFIX<name>`.
 * - Operators: `match` (the contract's spelling: a regular expression), `equals` and `contains`
 *   (used by examples/ and by the vendor's own rule records, `matching_method: contains`).
 * - Firmware may know more: `settings.extra_targets` / `settings.extra_operators` (CatalogExtensions).
 *   An extra target ending in `:*` names a composed family (`request_cookie:*` accepts
 *   `request_cookie:session`).
 *
 * Expressions of `match` are compiled by RE2 (the re2js package): Perl/PCRE syntax without
 * backreferences and lookaround, in time linear in the input, since expressions come from a pull
 * request and run in CI.
 */
import { RE2JS, RE2JSException, RE2JSSyntaxException } from 're2js';
import { didYouMean } from '../suggest.js';
import type { CatalogExtensions } from './types.js';

/** Basic targets: one value each, by name. */
export const BASIC_TARGETS = [
  'method',
  'parameter_key',
  'parameter_value',
  'path',
  'protocol',
  'query',
  'request_body',
  'request_size',
  'request_target',
] as const;

/** Composed targets: a prefix and a name (a header, a form field). */
export const COMPOSED_TARGETS = [
  { prefix: 'request:', what: 'a request header, by name (ignoring case)' },
  { prefix: 'request_body:x-www-form-urlencoded:', what: 'a field of a form-encoded body, by name' },
] as const;

/** Condition operators wafctl can evaluate. */
export const OPERATORS = ['match', 'equals', 'contains'] as const;

/** The longest expression wafctl compiles: a bound on the work an untrusted file can ask for. */
export const MAX_EXPRESSION_LENGTH = 4096;

/** The composed forms as written in messages: `request:<name>`. */
const composedForms = COMPOSED_TARGETS.map((composed) => `${composed.prefix}<name>`);

/** Whether `target` is in the catalog or among the extensions. */
export function isKnownTarget(target: string, extensions: CatalogExtensions): boolean {
  if ((BASIC_TARGETS as readonly string[]).includes(target)) return true;
  if (COMPOSED_TARGETS.some(({ prefix }) => target.startsWith(prefix) && target.length > prefix.length)) {
    return true;
  }
  return extensions.extraTargets.some((extra) =>
    extra.endsWith(':*')
      ? target.startsWith(extra.slice(0, -1)) && target.length > extra.length - 1
      : extra === target,
  );
}

/** Whether `operator` is in the catalog or among the extensions. */
export function isKnownOperator(operator: string, extensions: CatalogExtensions): boolean {
  return (OPERATORS as readonly string[]).includes(operator) || extensions.extraOperators.includes(operator);
}

/** The closest known target to an unknown one (`pth` → `path`, `requst:x` → `request:x`). */
function closestTarget(target: string, extensions: CatalogExtensions): string | undefined {
  const colon = target.indexOf(':');
  if (colon === -1) return didYouMean(target, [...BASIC_TARGETS, ...extensions.extraTargets]);
  const head = target.slice(0, target.lastIndexOf(':') + 1);
  const name = target.slice(head.length);
  const prefixes = [
    ...COMPOSED_TARGETS.map(({ prefix }) => prefix),
    ...extensions.extraTargets.filter((extra) => extra.endsWith(':*')).map((extra) => extra.slice(0, -1)),
  ];
  const prefix = didYouMean(head, prefixes);
  if (prefix !== undefined && name.length > 0) return `${prefix}${name}`;
  return didYouMean(target, extensions.extraTargets);
}

/** Why `target` is refused, with the closest name, or undefined when it is known. */
export function targetProblem(target: string, extensions: CatalogExtensions): string | undefined {
  if (isKnownTarget(target, extensions)) return undefined;
  const hint = closestTarget(target, extensions);
  if (hint !== undefined) return `unknown target ${JSON.stringify(target)} (did you mean "${hint}"?)`;
  return `unknown target ${JSON.stringify(target)}: expected one of ${BASIC_TARGETS.join(', ')}, ${composedForms.join(', ')}, or a name in settings.extra_targets`;
}

/** Why `operator` is refused, with the closest name, or undefined when it is known. */
export function operatorProblem(operator: string, extensions: CatalogExtensions): string | undefined {
  if (isKnownOperator(operator, extensions)) return undefined;
  const hint = didYouMean(operator, [...OPERATORS, ...extensions.extraOperators]);
  if (hint !== undefined) return `unknown operator ${JSON.stringify(operator)} (did you mean "${hint}"?)`;
  return `unknown operator ${JSON.stringify(operator)}: expected one of ${OPERATORS.join(', ')}, or a name in settings.extra_operators`;
}

/** What RE2 cannot do that PCRE can, named in the message when the pattern seems to use it. */
function unsupported(expression: string): string {
  if (/\(\?<?[=!]/u.test(expression)) return ' (RE2 has no lookahead or lookbehind)';
  if (/\\[1-9]|\\k</u.test(expression)) return ' (RE2 has no backreferences)';
  if (/\(\?>|[*+?}]\+/u.test(expression)) return ' (RE2 has no atomic groups or possessive quantifiers)';
  return '';
}

/**
 * The compiled expression, or the reason it does not compile in the WAF's dialect as wafctl reads
 * it (RE2). Throws nothing.
 */
export function compileExpression(expression: string): { regex: RE2JS } | { problem: string } {
  if (expression.length > MAX_EXPRESSION_LENGTH) {
    return {
      problem: `expression is ${expression.length} characters long: at most ${MAX_EXPRESSION_LENGTH}`,
    };
  }
  try {
    return { regex: RE2JS.compile(expression) };
  } catch (error) {
    if (!(error instanceof RE2JSException)) throw error;
    const what =
      error instanceof RE2JSSyntaxException
        ? `${error.getDescription()}${error.getPattern() === null ? '' : `: \`${error.getPattern()}\``}`
        : error.message;
    return { problem: `the regular expression does not compile: ${what}${unsupported(expression)}` };
  }
}

/** Why a `match` expression is refused, or undefined (other operators take any text). */
export function expressionProblem(operator: string, expression: string): string | undefined {
  if (operator !== 'match') return undefined;
  const compiled = compileExpression(expression);
  return 'problem' in compiled ? compiled.problem : undefined;
}
