/**
 * zod issues -> positioned, human problems. The issue's path is walked through the YAML node tree
 * for FILE:LINE:COL. Where a problem points: at the offending value; at the key itself for an
 * unknown field; at the mapping that lacks it for a missing field.
 */

import { type Document, isAlias, isMap, isScalar, isSeq, type LineCounter } from 'yaml';
import * as z from 'zod';
import { didYouMean } from '../core/suggest.js';
import { describeType, describeValue } from './describe-value.js';
import type { ConfigProblem } from './problems.js';
import { allowedKeysAt, schemaAt } from './schema-lookup.js';
import { formatPath, keyString, nodeAt, offsetOf, pairOf, type YamlPath } from './yaml-path.js';

export interface IssueContext {
  file: string;
  doc: Document;
  lineCounter: LineCounter;
  /** The file's text: a number is quoted as written (`100000000000000000000000`, not `1e+23`). */
  text?: string;
  /** The schema the document was validated with (to find allowed keys and bounds). */
  root: z.ZodType;
}

type Issue = z.core.$ZodIssue;

function toYamlPath(path: readonly PropertyKey[]): YamlPath {
  return path.map((segment) => (typeof segment === 'number' ? segment : String(segment)));
}

function suggestion(input: unknown, candidates: readonly string[]): string {
  if (typeof input !== 'string') return '';
  const match = didYouMean(input, candidates);
  return match === undefined ? '' : ` (did you mean "${match}"?)`;
}

/** The plain scalar at exactly `path`, as written in the file; undefined if there is none. */
function writtenAt(ctx: IssueContext, path: YamlPath): string | undefined {
  if (ctx.text === undefined) return undefined;
  let node: unknown = ctx.doc.contents;
  for (const segment of path) {
    if (isMap(node) && typeof segment === 'string') node = pairOf(node, segment)?.value;
    else if (isSeq(node) && typeof segment === 'number') node = node.items[segment];
    else return undefined;
  }
  if (!isScalar(node) || node.range === undefined || node.range === null) return undefined;
  const [start, end] = node.range;
  const written = ctx.text.slice(start, end).trimEnd();
  return written === '' || /[\s"'|>]/.test(written[0] ?? '') ? undefined : written;
}

/** A value in a message: a number as the file writes it (JavaScript would print a huge one `1e+23`). */
function shown(ctx: IssueContext, path: YamlPath, input: unknown): string {
  const described = describeValue(input);
  if (typeof input !== 'number') return described;
  const written = writtenAt(ctx, path);
  return written === undefined ? described : `number ${written}`;
}

/** A number as the file writes it, without the word "number". */
function writtenNumber(ctx: IssueContext, path: YamlPath, input: unknown): string {
  return (typeof input === 'number' ? writtenAt(ctx, path) : undefined) ?? String(input);
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
  const got = shown(ctx, path, issue.input);
  if (path.length === 0) {
    // The document schema's keys: built from the registry (schema.ts), so every family's section is named.
    return `the top level must be a mapping (keys: ${allowedKeysAt(ctx.root, []).join(', ')}), got ${got}`;
  }
  const nullable = schemaAt(ctx.root, path)?.nullable ?? false;
  return `expected ${describeType(issue.expected, isInteger(ctx, path))}${nullable ? ' or null' : ''}, got ${got}`;
}

/** z.int() carries the safe-integer range as bounds; only bounds the schema chose are worth naming. */
const chosen = (n: number | null): n is number => n !== null && Math.abs(n) < Number.MAX_SAFE_INTEGER;

/** A bound z.int() adds by itself: the safe-integer range, not one the schema chose. */
function isSafeIntegerBound(issue: Issue): boolean {
  if (issue.code !== 'too_small' && issue.code !== 'too_big') return false;
  return (
    (issue.origin === 'int' || issue.origin === 'number') &&
    !chosen(Number(issue.code === 'too_small' ? issue.minimum : issue.maximum))
  );
}

/**
 * One message per value: a huge integer fails z.int()'s safe range and the bound the schema chose
 * (a port's 65535); only the chosen bound is said.
 */
export function withoutRedundantIssues(issues: readonly Issue[]): Issue[] {
  const key = (issue: Issue) => issue.path.map(String).join('\u0000');
  const others = new Set(issues.filter((issue) => !isSafeIntegerBound(issue)).map(key));
  return issues.filter((issue) => !isSafeIntegerBound(issue) || !others.has(key(issue)));
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
  const got = `got ${writtenNumber(ctx, path, issue.input)}`;
  const found = schemaAt(ctx.root, path)?.schema;
  if (found instanceof z.ZodNumber && chosen(found.minValue) && chosen(found.maxValue)) {
    if (found.isInt) return `expected an integer from ${found.minValue} to ${found.maxValue}, ${got}`;
    return `must be between ${found.minValue} and ${found.maxValue}, ${got}`;
  }
  const operator = small ? (issue.inclusive ? '>=' : '>') : issue.inclusive ? '<=' : '<';
  return `must be ${operator} ${bound}, ${got}`;
}

/**
 * Every union in the schema carries its own `error` naming what it accepts (e.g. "expected a
 * permission name or id"), because the branches' own messages would be about zod's types.
 */
function unionMessage(issue: Extract<Issue, { code: 'invalid_union' }>, got: string): string {
  return `${issue.message}, got ${got}`;
}

/**
 * The first key node of each name in `mapping` (an alias: its anchor's), as `keyNodeAt` finds them:
 * one pass for all of a mapping's unknown keys, not one each (a mapping holds up to 1,000 keys).
 */
function keyNodesOf(doc: Document, mapping: unknown): Map<string, unknown> {
  const target = isAlias(mapping) ? mapping.resolve(doc) : mapping;
  const keys = new Map<string, unknown>();
  if (!isMap(target)) return keys;
  for (const pair of target.items) {
    const name = keyString(pair.key);
    if (name !== undefined && !keys.has(name)) keys.set(name, pair.key);
  }
  return keys;
}

/** One zod issue as problems, each placed at FILE:LINE:COL (see the module comment). */
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
      const keys = keyNodesOf(ctx.doc, mapping);
      const candidates = allowedKeysAt(ctx.root, path).filter((key) => !(isMap(mapping) && keys.has(key)));
      return issue.keys.map((key) =>
        at(keys.get(key) ?? mapping, path, `unknown field "${key}"${suggestion(key, candidates)}`),
      );
    }
    case 'invalid_type':
      return [here(typeMessage(issue, ctx, path))];
    case 'invalid_value': {
      const values = issue.values.map(String);
      const got = shown(ctx, path, issue.input);
      return [here(`expected one of ${values.join(', ')}, got ${got}${suggestion(issue.input, values)}`)];
    }
    case 'too_small':
    case 'too_big':
      return [here(rangeMessage(issue, ctx, path))];
    case 'invalid_union':
      return [here(unionMessage(issue, shown(ctx, path, issue.input)))];
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
