/**
 * One file's text -> its YAML documents, with positions, after variable substitution. Everything
 * that is not plain data is refused here, before any schema sees it: syntax errors, duplicate keys,
 * tags, complex keys, unknown aliases and alias bombs.
 */
import { type Document, isScalar, isSeq, LineCounter, parseAllDocuments, type SchemaOptions } from 'yaml';
import {
  type Environment,
  NO_VARIABLES,
  substituteInDocument,
  VARIABLE_NAME,
  type VariableRules,
} from './env.js';
import type { ConfigProblem } from './problems.js';
import { characterProblem, lineAndColumn, nestingProblem, valueProblem } from './text-checks.js';
import {
  aliasesOf,
  complexKeys,
  duplicateKeyAt,
  forEachStringValue,
  formatPath,
  nodeAt,
  offsetOf,
  type YamlPath,
} from './yaml-path.js';

/** Checked before parsing: a desired-state file is hand-written; megabytes of it are a mistake. */
export const MAX_FILE_BYTES = 5 * 1024 * 1024;
/** yaml's expansion budget (uses x anchor size): plenty for shared conditions, fatal for alias bombs. */
export const MAX_ALIAS_COUNT = 100;

/** How wafctl files are read: YAML 1.2 core types only, even under `%YAML 1.1`. */
export const SCHEMA_OPTIONS = {
  schema: 'core', // no `yes` booleans
  merge: false, // no `<<` merges
  customTags: [],
  resolveKnownTags: false, // no !!binary, !!set, !!timestamp...
} as const satisfies SchemaOptions;

interface LineAndColumn {
  line: number;
  col: number;
}

export interface ParsedDocument {
  file: string;
  /** Its position among the file's documents as yaml's `parseAllDocuments` lists them (empty ones too). */
  index: number;
  /** The document as plain data. */
  data: unknown;
  /**
   * Paths whose values were already reported (a substitution problem, a character the API cannot
   * store): schema complaints about them would be noise.
   */
  reportedPaths: Set<string>;
  /**
   * Keys written twice in one mapping (a problem already reported): the value read is the last one,
   * but which one the user meant is unknown, so nothing is said about what is at or under them and
   * no object is declared by a natural key written twice. Absent when there is none.
   */
  ambiguous?: readonly YamlPath[];
  /** Where the node at `path` starts (the deepest node on it that exists). */
  locate(path: YamlPath): LineAndColumn;
  /** Whether the document holds a node at `path` (also once a caller has let go of `data`). */
  has(path: YamlPath): boolean;
  /**
   * The document's nodes with their positions, to place schema problems in: yaml's own tree, or
   * for a fast-read document, one built from the fast reader's positions (see fast-read.ts).
   */
  tree(): { doc: Document; lineCounter: LineCounter; text: string };
}

export interface ParsedFile {
  documents: ParsedDocument[];
  problems: ConfigProblem[];
}

function problemAt(
  file: string,
  lines: LineCounter,
  offset: number,
  path: YamlPath,
  message: string,
): ConfigProblem {
  const { line, col } = lines.linePos(offset);
  return { file, line, col, path: formatPath(path), message };
}

/** A document with nothing in it (`---` alone, or only comments), as opposed to an explicit `null`. */
export function isEmptyDocument(doc: Document): boolean {
  const contents = doc.contents;
  if (contents === null) return true;
  return isScalar(contents) && contents.value === null && contents.range?.[0] === contents.range?.[1];
}

export function tooLargeProblem(file: string, bytes: number): ConfigProblem {
  const message = `file is too large: ${bytes} bytes, the limit is ${MAX_FILE_BYTES} bytes (5 MiB)`;
  return { file, line: 1, col: 1, path: '', message };
}

function hasPath(data: unknown, path: YamlPath): boolean {
  let current = data;
  for (const segment of path) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, segment)) return false;
    current = (current as Record<string | number, unknown>)[segment];
  }
  return true;
}

/**
 * Refused before yaml reads anything: a file over the size limit, text that is not text, nesting
 * deeper than MAX_NESTING. One problem at most: the rest of the file is not read.
 */
function unreadableProblem(file: string, text: string): ConfigProblem | undefined {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_FILE_BYTES) return tooLargeProblem(file, bytes);
  const found = characterProblem(text) ?? nestingProblem(text);
  if (found === undefined) return undefined;
  return { file, ...lineAndColumn(text, found.offset), path: '', message: found.message };
}

function parseDocuments(text: string, lineCounter?: LineCounter): Document[] {
  const parsed = parseAllDocuments(text, {
    lineCounter,
    prettyErrors: false,
    uniqueKeys: true,
    ...SCHEMA_OPTIONS,
    logLevel: 'silent',
  });
  return Array.isArray(parsed) ? parsed : [];
}

/**
 * The names a file declares in top-level `variables:` lists (any of its documents), read before
 * substitution so that one file may use a name another declares. Only names: the schema checks
 * the lists themselves. A file that cannot be read declares nothing (its problems come later).
 */
export function declaredVariablesIn(text: string): string[] {
  if (!text.includes('variables') || unreadableProblem('', text) !== undefined) return [];
  const names: string[] = [];
  for (const doc of parseDocuments(text)) {
    const list = doc.errors.length === 0 ? doc.get('variables') : undefined;
    if (!isSeq(list)) continue;
    for (const item of list.items) {
      if (isScalar(item) && typeof item.value === 'string' && VARIABLE_NAME.test(item.value))
        names.push(item.value);
    }
  }
  return names;
}

/**
 * A message yaml wrote may quote the source (a token, a line): only its first line is kept, and a
 * long quotation is cut, so that an error never prints more of a file than the offending token.
 */
export function yamlMessage(message: string): string {
  const first = message.split('\n', 1)[0] ?? '';
  return first.length > MAX_QUOTED ? `${first.slice(0, MAX_QUOTED)}...` : first;
}

const MAX_QUOTED = 120;

/** How a YAML error's problem starts, and the problem of a file with no document. */
export const INVALID_YAML = 'invalid YAML: ';
export const EMPTY_FILE = 'file is empty';

/**
 * `variables`: the names the whole configuration declares in `variables:` (see `declaredVariablesIn`)
 * and the credentials never read; `WAFCTL_VAR_*` variables are read without being declared.
 */
export function parseYamlFile(
  file: string,
  text: string,
  env: Environment,
  variables: VariableRules = NO_VARIABLES,
): ParsedFile {
  const unreadable = unreadableProblem(file, text);
  if (unreadable !== undefined) return { documents: [], problems: [unreadable] };
  const lineCounter = new LineCounter();
  const docs = parseDocuments(text, lineCounter);
  const problems: ConfigProblem[] = [];
  const at = (offset: number, path: YamlPath, message: string) =>
    problems.push(problemAt(file, lineCounter, offset, path, message));

  const documents: ParsedDocument[] = [];
  for (const [index, doc] of docs.entries()) {
    const before = problems.length;
    // A key written twice leaves the rest of the document readable: it is read on (the later value
    // counts, and `ambiguous` says where), so the checks after the schema still run on it.
    const ambiguous: YamlPath[] = [];
    for (const error of doc.errors) {
      const duplicate = error.code === 'DUPLICATE_KEY' ? duplicateKeyAt(doc, error.pos[0]) : undefined;
      if (duplicate) {
        const first = lineCounter.linePos(duplicate.firstOffset);
        at(
          error.pos[0],
          [],
          `duplicate key "${duplicate.key}" (first at ${file}:${first.line}:${first.col})`,
        );
        ambiguous.push(duplicate.path);
      } else at(error.pos[0], [], `${INVALID_YAML}${yamlMessage(error.message)}`);
    }
    for (const warning of doc.warnings) {
      if (warning.code === 'TAG_RESOLVE_FAILED') {
        const tag = yamlMessage(text.slice(warning.pos[0], warning.pos[1]));
        at(warning.pos[0], [], `unsupported tag ${tag}: tags are not allowed in wafctl files`);
      } else at(warning.pos[0], [], `${INVALID_YAML}${yamlMessage(warning.message)}`);
    }
    for (const pair of complexKeys(doc)) {
      at(offsetOf(pair.key), [], 'a mapping key must be a plain scalar, not a list or mapping');
    }
    const aliases = aliasesOf(doc);
    for (const { alias, resolved } of aliases) {
      if (!resolved)
        at(offsetOf(alias), [], `unknown alias *${alias.source}: no anchor &${alias.source} before it`);
    }
    if (problems.length > before + ambiguous.length) continue;
    if (isEmptyDocument(doc)) continue;
    const reportedPaths = new Set<string>();
    // Escapes make in values what raw text cannot hold (`"\0"`, `"\uD800"`).
    forEachStringValue(doc, (scalar, path) => {
      const refused = valueProblem(scalar.value);
      if (refused === undefined) return;
      at(offsetOf(scalar), path, refused);
      reportedPaths.add(formatPath(path));
    });
    for (const problem of substituteInDocument(doc, text, { env, ...variables })) {
      at(problem.offset, problem.path, problem.message);
      reportedPaths.add(formatPath(problem.path));
    }
    let data: unknown;
    try {
      data = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      at(
        offsetOf(aliases[0]?.alias ?? doc.contents),
        [],
        message.includes('Excessive alias count')
          ? `too many alias expansions (limit ${MAX_ALIAS_COUNT}): refusing a possible alias bomb`
          : `${INVALID_YAML}${message}`,
      );
      continue;
    }
    documents.push({
      file,
      index,
      data,
      reportedPaths,
      ...(ambiguous.length > 0 ? { ambiguous } : {}),
      locate: (path) => lineCounter.linePos(offsetOf(nodeAt(doc, path))),
      has: (path) => hasPath(data, path),
      tree: () => ({ doc, lineCounter, text }),
    });
  }
  if (documents.length === 0 && problems.length === 0) {
    problems.push({ file, line: 1, col: 1, path: '', message: EMPTY_FILE });
  }
  return { documents, problems };
}
