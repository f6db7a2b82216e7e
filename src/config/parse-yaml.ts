/**
 * One file's text -> its YAML documents, with positions, after variable substitution. Everything
 * that is not plain data is refused here, before any schema sees it: syntax errors, duplicate keys,
 * mappings of more than MAX_MAPPING_KEYS keys, tags, complex keys, unknown aliases and alias bombs.
 *
 * Duplicate keys are found here, not by yaml: its check (`uniqueKeys`) compares each key with every
 * key before it in its mapping, so a mapping of 300,000 keys took minutes. `checkKeys` makes one
 * pass with a Map per mapping, as many lookups as there are keys, and says what yaml said.
 */
import {
  type Document,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  parseAllDocuments,
  type SchemaOptions,
} from 'yaml';
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
  forEachStringValue,
  formatPath,
  keyString,
  nodeAt,
  offsetOf,
  type YamlPath,
} from './yaml-path.js';

/** Checked before parsing: a desired-state file is hand-written; megabytes of it are a mistake. */
export const MAX_FILE_BYTES = 5 * 1024 * 1024;
/** yaml's expansion budget (uses x anchor size): plenty for shared conditions, fatal for alias bombs. */
export const MAX_ALIAS_COUNT = 100;
/**
 * Keys one mapping may hold. wafctl's mappings are objects of a few dozen fields and small maps
 * (`vars`, `environments`); a larger one is refused at its start and the document is read no
 * further. It bounds what still grows faster than a mapping: each problem about a key looks the key
 * up among its mapping's keys (an unknown field, a position), and pull's editing parse checks
 * uniqueness as yaml does. The fast reader declines such a mapping (fast-read.ts).
 */
export const MAX_MAPPING_KEYS = 1000;
/**
 * Distinct keys written twice in one document, past which it is read no further (every duplicate
 * is still reported): each problem found under it would be compared with every one of them.
 */
export const MAX_AMBIGUOUS_KEYS = 100;

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

/** yaml's reading, without its duplicate-key check (quadratic: `checkKeys` does it in one pass). */
function parseDocuments(text: string, lineCounter?: LineCounter): Document[] {
  const parsed = parseAllDocuments(text, {
    lineCounter,
    prettyErrors: false,
    uniqueKeys: false,
    ...SCHEMA_OPTIONS,
    logLevel: 'silent',
  });
  return Array.isArray(parsed) ? parsed : [];
}

/** A key written again in its mapping (`offset`), as yaml's `uniqueKeys` finds it. */
export interface DuplicateKey {
  offset: number;
  /** The key as the data names it (`keyString`). */
  key: string;
  /** Where the first key of that name is in the mapping. */
  firstOffset: number;
  /** The mapping's path and the key. */
  path: YamlPath;
}

export interface KeyCheck {
  duplicates: DuplicateKey[];
  /** Duplicates inside a mapping that is itself a key (`? {a: 1, a: 2}`), refused anyway. */
  inKeys: number[];
  /** Mappings of more than the cap: where they start, and their paths. Their keys are not checked. */
  tooLarge: { offset: number; path: YamlPath }[];
  /** Set and Map lookups made: two per key (test/config/key-bounds.test.ts counts them). */
  lookups: number;
}

/**
 * Duplicate keys and oversized mappings of a document, in one pass: a Map per mapping. A key is a
 * duplicate when its scalar value equals an earlier key's (`===`: `1` and `0x1` are, `1` and `"1"`
 * are not, as with yaml's `uniqueKeys`); its first occurrence is the first key of the same name
 * (`keyString`). Paths follow values; an alias is not followed (its anchor is checked where it is
 * written). `maxKeys`: the cap, a parameter for the test that counts the lookups of a larger mapping.
 */
export function checkKeys(doc: Document, maxKeys = MAX_MAPPING_KEYS): KeyCheck {
  const found: KeyCheck = { duplicates: [], inKeys: [], tooLarge: [], lookups: 0 };
  const walk = (node: unknown, path: YamlPath, inKey: boolean): void => {
    if (isSeq(node)) {
      node.items.forEach((item, index) => {
        walk(item, [...path, index], inKey);
      });
      return;
    }
    if (!isMap(node)) return;
    if (node.items.length > maxKeys) {
      if (!inKey) found.tooLarge.push({ offset: offsetOf(node), path });
      return;
    }
    const values = new Set<unknown>();
    const firsts = new Map<string, number>();
    // In document order: each key, then what is under it.
    for (const pair of node.items) {
      const key = pair.key;
      const name = keyString(key) ?? '';
      // A collection or alias as a key is never equal to another key (and is refused anyway).
      if (isScalar(key)) {
        found.lookups += 2;
        const first = firsts.get(name);
        if (first === undefined) firsts.set(name, offsetOf(key));
        // NaN is no duplicate of NaN (`===`), although a Set would say so.
        if (!values.has(key.value) || Number.isNaN(key.value)) values.add(key.value);
        else if (inKey) found.inKeys.push(offsetOf(key));
        else
          found.duplicates.push({
            offset: offsetOf(key),
            key: name,
            firstOffset: first as number,
            path: [...path, name],
          });
      }
      walk(key, path, true);
      walk(pair.value, [...path, name], inKey);
    }
  };
  walk(doc.contents, [], false);
  return found;
}

/** The problem of a mapping over MAX_MAPPING_KEYS. */
export const TOO_MANY_KEYS = `a mapping holds more than ${MAX_MAPPING_KEYS} keys: wafctl configurations never need that many`;

/**
 * The names a file declares in top-level `variables:` lists (any of its documents), read before
 * substitution so that one file may use a name another declares. Only names: the schema checks
 * the lists themselves. A file that cannot be read declares nothing (its problems come later).
 */
export function declaredVariablesIn(text: string): string[] {
  if (!text.includes('variables') || unreadableProblem('', text) !== undefined) return [];
  const names: string[] = [];
  for (const doc of parseDocuments(text)) {
    const check = doc.errors.length === 0 ? checkKeys(doc) : undefined;
    const readable =
      check !== undefined && check.duplicates.length + check.inKeys.length + check.tooLarge.length === 0;
    const list = readable ? doc.get('variables') : undefined;
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
    const keys = checkKeys(doc);
    const ambiguous: YamlPath[] = [];
    const seen = new Set<string>();
    for (const duplicate of keys.duplicates) {
      const first = lineCounter.linePos(duplicate.firstOffset);
      at(
        duplicate.offset,
        [],
        `duplicate key "${duplicate.key}" (first at ${file}:${first.line}:${first.col})`,
      );
      const shown = formatPath(duplicate.path);
      if (!seen.has(shown)) ambiguous.push(duplicate.path);
      seen.add(shown);
    }
    for (const offset of keys.inKeys) at(offset, [], `${INVALID_YAML}Map keys must be unique`);
    for (const { offset, path } of keys.tooLarge) at(offset, path, TOO_MANY_KEYS);
    for (const error of doc.errors) at(error.pos[0], [], `${INVALID_YAML}${yamlMessage(error.message)}`);
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
    if (problems.length > before + keys.duplicates.length || ambiguous.length > MAX_AMBIGUOUS_KEYS) continue;
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
