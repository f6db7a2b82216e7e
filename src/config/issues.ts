/**
 * zod issues -> positioned, human problems. The issue's path is walked through the YAML node tree
 * for FILE:LINE:COL. Where a problem points: at the offending value; at the key itself for an
 * unknown field; at the mapping that lacks it for a missing field.
 */

import type { Document, LineCounter } from 'yaml';
import * as z from 'zod';
import { didYouMean } from '../core/suggest.js';
import { describeType, describeValue } from './describe-value.js';
import type { ConfigProblem } from './problems.js';
import { allowedKeysAt, schemaAt } from './schema-lookup.js';
import { formatPath, keyNodeAt, nodeAt, offsetOf, pairOf, type YamlPath } from './yaml-path.js';

export interface IssueContext {
  file: string;
  doc: Document;
  lineCounter: LineCounter;
  /** The schema the document was validated with (to find allowed keys and bounds). */
  root: z.ZodType;
}

type Issue = z.core.$ZodIssue;

const TOP_LEVEL_HINT = 'groups, application_rules, notifications, schedules, manage, settings, variables';

function toYamlPath(path: readonly PropertyKey[]): YamlPath {
  return path.map((segment) => (typeof segment === 'number' ? segment : String(segment)));
}

function suggestion(input: unknown, candidates: readonly string[]): string {
  if (typeof input !== 'string') return '';
  const match = didYouMean(input, candidates);
  return match === undefined ? '' : ` (did you mean "${match}"?)`;
}

function isInteger(ctx: IssueContext, path: YamlPath): boolean {
  const found = schemaAt(ctx.root, path)?.schema;
  return found instanceof z.ZodNumber && found.isInt;
}

function typeMessage(
  issue: Extract<Issue, { code: 'invalid_type' }>,
  ctx: IssueContext,
  path: YamlPath,
): string {
  const got = describeValue(issue.input);
  if (path.length === 0) return `the top level must be a mapping (keys: ${TOP_LEVEL_HINT}), got ${got}`;
  const nullable = schemaAt(ctx.root, path)?.nullable ?? false;
  return `expected ${describeType(issue.expected, isInteger(ctx, path))}${nullable ? ' or null' : ''}, got ${got}`;
}

/** Bounds on a length ("must not be empty") or on a number ("must be between 0 and 100, got 150"). */
function rangeMessage(
  issue: Extract<Issue, { code: 'too_small' | 'too_big' }>,
  ctx: IssueContext,
  path: YamlPath,
): string {
  const small = issue.code === 'too_small';
  const bound = small ? issue.minimum : issue.maximum;
  if (issue.origin === 'string' || issue.origin === 'array') {
    if (small && Number(bound) === 1) return 'must not be empty';
    const unit = issue.origin === 'string' ? 'characters' : 'items';
    return `must have ${small ? 'at least' : 'at most'} ${bound} ${unit}`;
  }
  const got = `got ${String(issue.input)}`;
  const found = schemaAt(ctx.root, path)?.schema;
  // z.int() carries the safe-integer range as bounds; only bounds the schema chose are worth naming.
  const chosen = (n: number | null): n is number => n !== null && Math.abs(n) < Number.MAX_SAFE_INTEGER;
  if (found instanceof z.ZodNumber && chosen(found.minValue) && chosen(found.maxValue)) {
    return `must be between ${found.minValue} and ${found.maxValue}, ${got}`;
  }
  const operator = small ? (issue.inclusive ? '>=' : '>') : issue.inclusive ? '<=' : '<';
  return `must be ${operator} ${bound}, ${got}`;
}

/**
 * Every union in the schema carries its own `error` naming what it accepts (e.g. "expected a
 * permission name or id"), because the branches' own messages would be about zod's types.
 */
function unionMessage(issue: Extract<Issue, { code: 'invalid_union' }>): string {
  return `${issue.message}, got ${describeValue(issue.input)}`;
}

export function problemsFromIssue(issue: Issue, ctx: IssueContext): ConfigProblem[] {
  const path = toYamlPath(issue.path);
  const at = (node: unknown, problemPath: YamlPath, message: string): ConfigProblem => {
    const { line, col } = ctx.lineCounter.linePos(offsetOf(node));
    return { file: ctx.file, line, col, path: formatPath(problemPath), message };
  };
  const here = (message: string) => at(nodeAt(ctx.doc, path), path, message);

  // A field that is absent fails as "expected string" or "expected one of ...": say what happened.
  const last = path[path.length - 1];
  if (issue.input === undefined && typeof last === 'string' && issue.code !== 'unrecognized_keys') {
    const parent = path.slice(0, -1);
    return [at(nodeAt(ctx.doc, parent), parent, `required field "${last}" is missing`)];
  }

  switch (issue.code) {
    case 'unrecognized_keys': {
      const mapping = nodeAt(ctx.doc, path);
      const candidates = allowedKeysAt(ctx.root, path).filter((key) => !pairOf(mapping, key));
      return issue.keys.map((key) =>
        at(
          keyNodeAt(ctx.doc, path, key) ?? mapping,
          path,
          `unknown field "${key}"${suggestion(key, candidates)}`,
        ),
      );
    }
    case 'invalid_type':
      return [here(typeMessage(issue, ctx, path))];
    case 'invalid_value': {
      const values = issue.values.map(String);
      const got = describeValue(issue.input);
      return [here(`expected one of ${values.join(', ')}, got ${got}${suggestion(issue.input, values)}`)];
    }
    case 'too_small':
    case 'too_big':
      return [here(rangeMessage(issue, ctx, path))];
    case 'invalid_union':
      return [here(unionMessage(issue))];
    case 'custom': {
      const duplicateOf: unknown = issue.params?.duplicateOf;
      if (typeof duplicateOf === 'number') {
        const first = ctx.lineCounter.linePos(offsetOf(nodeAt(ctx.doc, [...path.slice(0, -1), duplicateOf])));
        return [here(`${issue.message}: already listed at ${ctx.file}:${first.line}:${first.col}`)];
      }
      return [here(issue.message)];
    }
    default:
      return [here(issue.message)];
  }
}
