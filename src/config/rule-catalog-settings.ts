/**
 * `settings.extra_targets` and `settings.extra_operators`: the targets and operators a firmware knows
 * beyond wafctl's catalog (src/core/rules/catalog.ts), so that `validate` accepts them. Leaves of the
 * `settings` merge like the other settings (one file sets each list). wafctl cannot evaluate an
 * extra operator, nor read an extra target from a test's request: docs/rule-tests.md says what a
 * test then does.
 */
import * as z from 'zod';
import type { CatalogExtensions } from '../core/rules/types.js';
import { setOf } from '../core/set-schema.js';

const quoted = (input: unknown) => JSON.stringify(String(input));

/** A name, or a composed family `PREFIX:*`: no whitespace or control character, `*` only in a final `:*`. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point.
const EXTRA_TARGET = /^[^\s\x00-\x1f\x7f-\x9f*]+(?::\*)?$/u;

/** An operator's name: no whitespace or control character. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point.
const EXTRA_OPERATOR = /^[^\s\x00-\x1f\x7f-\x9f]+$/u;

const extraTarget = z.string().regex(EXTRA_TARGET, {
  error: (issue) =>
    `expected a target name, or a family of composed targets ending in ":*" (request_cookie:*), with no whitespace and "*" only at the end, got ${quoted(issue.input)}`,
});

const extraOperator = z.string().regex(EXTRA_OPERATOR, {
  error: (issue) => `expected an operator name, with no whitespace, got ${quoted(issue.input)}`,
});

export const extraTargetsSchema = setOf(extraTarget, 'target').default([]).meta({
  description:
    'Targets the firmware knows besides the catalog of wafctl; `PREFIX:*` accepts a composed family (request_cookie:* accepts request_cookie:session). Default [].',
});

export const extraOperatorsSchema = setOf(extraOperator, 'operator').default([]).meta({
  description: 'Condition operators the firmware knows besides match, equals and contains. Default [].',
});

/** What a loaded configuration's settings add to the catalog. */
export function catalogExtensions(state: {
  readonly settings: {
    readonly extra_targets: readonly string[];
    readonly extra_operators: readonly string[];
  };
}): CatalogExtensions {
  return { extraTargets: state.settings.extra_targets, extraOperators: state.settings.extra_operators };
}
