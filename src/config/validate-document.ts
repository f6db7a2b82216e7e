/**
 * One document against the document schema: its problems, placed at FILE:LINE:COL, and what of it
 * passed, which the checks after the schema read even when the rest did not (every problem of a run
 * is reported together).
 */
import type * as z from 'zod';
import { boundedSafeParse } from './bounded-parse.js';
import { problemsFromIssue, withoutRedundantIssues } from './issues.js';
import { isMapping } from './mapping.js';
import type { ParsedDocument } from './parse-yaml.js';
import { type ConfigProblem, hiddenProblems, MAX_PROBLEMS_PER_FILE } from './problems.js';
import { TESTS, testCaseSchema } from './rule-test-schema.js';
import type { Family, ValidDocument } from './schema.js';
import { formatPath, isAtOrUnder } from './yaml-path.js';

/** A document that passed the schema, in part or whole: as the checks after it read it, and its output. */
export interface CheckedDocument {
  /** The document with only what passed (see `checkedView`). */
  document: ParsedDocument;
  output: ValidDocument;
}

/** The schema of one item of a section of objects (a family's, or `tests`), read item by item when some fail. */
function itemSchemaOf(family: Family, section: string): z.ZodType | undefined {
  if (section === TESTS) return testCaseSchema;
  return family.kinds.find((candidate) => candidate.section === section)?.schema;
}

/**
 * What of a document passed the schema: whole sections, and, in a section of objects that did not
 * (a family's, or `tests`), the objects that did (by index; `undefined` for one that did not).
 * `undefined` when nothing did (the document is not a mapping).
 */
function validParts(
  document: ParsedDocument,
  family: Family,
  failedPaths: readonly (readonly PropertyKey[])[],
): ValidDocument | undefined {
  const data = document.data;
  if (!isMapping(data)) return undefined;
  const failed = new Map<string, Set<number> | 'all'>();
  for (const path of failedPaths) {
    if (path.length === 0) continue; // an unknown top-level key: the sections are still read
    const section = String(path[0]);
    const item = path[1];
    const earlier = failed.get(section);
    if (typeof item !== 'number') failed.set(section, 'all');
    else if (earlier !== 'all') failed.set(section, (earlier ?? new Set()).add(item));
  }
  const output: ValidDocument = {};
  for (const [section, value] of Object.entries(data)) {
    const schema = Object.hasOwn(family.shape, section) ? family.shape[section] : undefined;
    if (schema === undefined) continue;
    const items = failed.get(section);
    if (items === undefined) {
      const parsed = boundedSafeParse(schema, value);
      if (parsed.success) output[section] = parsed.data;
      continue;
    }
    const itemSchema = itemSchemaOf(family, section);
    if (items === 'all' || itemSchema === undefined || !Array.isArray(value)) continue;
    output[section] = value.map((item: unknown, index) => {
      if (items.has(index)) return undefined;
      const parsed = itemSchema.safeParse(item);
      return parsed.success ? parsed.data : undefined;
    });
  }
  return output;
}

/**
 * The document as the checks after the schema read it: only the sections that passed it, and no
 * family's section (its objects are read from the output), so that a fast-read document's object
 * lists are not held twice.
 */
function checkedView(document: ParsedDocument, output: ValidDocument, family: Family): CheckedDocument {
  const data = document.data as Record<string, unknown>;
  const view: Record<string, unknown> = {};
  for (const key of Object.keys(output)) {
    if (family.kinds.some((kind) => kind.section === key)) continue;
    view[key] = data[key];
  }
  return { document: { ...document, data: view }, output };
}

/**
 * The schema's problems of a document, placed. Placing a problem costs a walk of the yaml tree:
 * 200,000 would take a minute, and only MAX_PROBLEMS_PER_FILE are shown. zod lists issues in
 * document order; the rest are counted. Nothing is said at or under a key written twice
 * (`ambiguous`), nor at a path already reported (`reportedPaths`).
 */
function placedProblems(
  document: ParsedDocument,
  family: Family,
  issues: readonly z.core.$ZodIssue[],
  ambiguous: readonly string[],
): ConfigProblem[] {
  const context = { file: document.file, ...document.tree(), root: family.document };
  const placed = withoutRedundantIssues(issues.slice(0, MAX_PROBLEMS_PER_FILE));
  const problems = placed
    .flatMap((issue) => problemsFromIssue(issue, context))
    .filter((problem) => !document.reportedPaths.has(problem.path))
    .filter((problem) => !ambiguous.some((at) => isAtOrUnder(problem.path, at)));
  let unplaced = 0;
  for (const issue of issues.slice(MAX_PROBLEMS_PER_FILE)) {
    unplaced += issue.code === 'unrecognized_keys' ? issue.keys.length : 1;
  }
  if (unplaced > 0) problems.push(hiddenProblems(document.file, unplaced));
  return problems;
}

/**
 * A document validated: its problems, and what of it passed (the whole output when it all did, else
 * `validParts`), as the checks after the schema read it; `checked` is undefined when nothing passed.
 */
export function validateDocument(
  document: ParsedDocument,
  family: Family,
): { checked?: CheckedDocument | undefined; problems: ConfigProblem[] } {
  const ambiguous = (document.ambiguous ?? []).map(formatPath);
  const result = boundedSafeParse(family.document, document.data);
  if (result.success && ambiguous.length === 0) {
    return { checked: checkedView(document, result.data, family), problems: [] };
  }
  const issues = result.success ? [] : result.issues;
  const partial = validParts(document, family, [
    ...issues.map((issue) => issue.path),
    ...(document.ambiguous ?? []),
  ]);
  const checked = partial === undefined ? undefined : checkedView(document, partial, family);
  if (issues.length === 0) return { checked, problems: [] };
  return { checked, problems: placedProblems(document, family, issues, ambiguous) };
}
