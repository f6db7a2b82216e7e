/**
 * One file's text -> its YAML documents, with positions, after variable substitution. Everything
 * that is not plain data is refused here, before any schema sees it: syntax errors, duplicate keys
 * and mappings of more than MAX_MAPPING_KEYS keys (found by key-check.ts, not by yaml), tags,
 * complex keys, unknown aliases and alias bombs.
 */
import {
  Composer,
  type CST,
  type Document,
  isScalar,
  Lexer,
  LineCounter,
  Parser,
  type SchemaOptions,
} from 'yaml';
import {
  type Environment,
  NO_VARIABLES,
  substituteInDocument,
  type VariableRules,
  type Variables,
} from './env.js';
import { checkKeys, type KeyCheck, MAX_MAPPING_KEYS, TOO_MANY_KEYS } from './key-check.js';
import { hasPath } from './mapping.js';
import type { ConfigProblem } from './problems.js';
import { PAUSE, runSteps, type Steps } from './steps.js';
import {
  characterProblem,
  lineAndColumn,
  NestingCheck,
  type TextProblem,
  valueProblem,
} from './text-checks.js';
import {
  aliasesOf,
  complexKeys,
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

/** The problem of a file over MAX_FILE_BYTES, at its start. */
export function tooLargeProblem(file: string, bytes: number): ConfigProblem {
  const message = `file is too large: ${bytes} bytes, the limit is ${MAX_FILE_BYTES} bytes (5 MiB)`;
  return { file, line: 1, col: 1, path: '', message };
}

/**
 * Refused before yaml reads anything: a file over the size limit, or text that is not text (nesting
 * deeper than MAX_NESTING is refused as the file is lexed: `readingDocuments`). One problem at most:
 * the rest of the file is not read.
 */
export function notTextProblem(file: string, text: string): ConfigProblem | undefined {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_FILE_BYTES) return tooLargeProblem(file, bytes);
  return placed(file, text, characterProblem(text));
}

function placed(file: string, text: string, found: TextProblem | undefined): ConfigProblem | undefined {
  if (found === undefined) return undefined;
  return { file, ...lineAndColumn(text, found.offset), path: '', message: found.message };
}

/** Lexer tokens read between two pauses of `readingDocuments`: a small part of a second's work. */
const TOKENS_PER_STEP = 20_000;

/**
 * yaml's `parseAllDocuments` in steps (steps.ts), so that a signal is answered inside one large
 * file too: the text is lexed once, each token fed to the nesting check (text-checks.ts) and to
 * yaml's parser, with a pause every TOKENS_PER_STEP tokens; each document is then composed, with a
 * pause before each. A mapping of more than MAX_MAPPING_KEYS keys is cut to
 * one key more before it is composed: it is refused at its start (key-check.ts), and composing the
 * rest (300,000 keys took seconds) would change nothing but the time. Without yaml's duplicate-key
 * check (quadratic: `checkKeys` does it in one pass). Returns the nesting problem, if there is one.
 */
export function* readingDocuments(text: string, lineCounter?: LineCounter): Steps<Document[] | TextProblem> {
  const nesting = new NestingCheck();
  const parser = new Parser(lineCounter?.addNewLine);
  lineCounter?.addNewLine(0);
  const tokens: CST.Token[] = [];
  let count = 0;
  for (const lexeme of new Lexer().lex(text)) {
    const problem = nesting.next(lexeme);
    if (problem !== undefined) return problem;
    for (const token of parser.next(lexeme)) tokens.push(token);
    if (++count % TOKENS_PER_STEP === 0) yield PAUSE;
  }
  for (const token of parser.end()) tokens.push(token);
  const composer = new Composer({
    prettyErrors: false,
    uniqueKeys: false,
    ...SCHEMA_OPTIONS,
    logLevel: 'silent',
  });
  const documents: Document[] = [];
  for (const token of tokens) {
    yield PAUSE;
    cutLargeMappings(token);
    for (const document of composer.next(token)) documents.push(document);
  }
  for (const document of composer.end()) documents.push(document);
  return documents;
}

/** Cuts every mapping of `token` to at most MAX_MAPPING_KEYS + 1 keys (see `readingDocuments`). */
function cutLargeMappings(token: CST.Token): void {
  const pending: (CST.Token | undefined)[] = [token];
  while (pending.length > 0) {
    const node = pending.pop();
    if (node === undefined) continue;
    if (node.type === 'document') pending.push(node.value);
    else if (node.type === 'block-map' || node.type === 'block-seq' || node.type === 'flow-collection') {
      const isMapping =
        node.type === 'block-map' || (node.type === 'flow-collection' && node.start.source === '{');
      if (isMapping && node.items.length > MAX_MAPPING_KEYS + 1) node.items.length = MAX_MAPPING_KEYS + 1;
      for (const item of node.items) pending.push(item.key ?? undefined, item.value ?? undefined);
    }
  }
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
 * One file's reading by yaml under way: its line counter, and the problems found so far, each placed
 * by its offset.
 */
class YamlReading {
  readonly problems: ConfigProblem[] = [];
  readonly lineCounter = new LineCounter();

  constructor(
    private readonly file: string,
    private readonly text: string,
    private readonly variables: Variables,
  ) {}

  private at(offset: number, path: YamlPath, message: string): void {
    this.problems.push(problemAt(this.file, this.lineCounter, offset, path, message));
  }

  /**
   * The document at `index` read as data, or undefined when it is empty or refused (its problems
   * reported). A key written twice leaves the rest of the document readable: it is read on (the later
   * value counts, and `ambiguous` says where), so the checks after the schema still run on it.
   */
  *document(doc: Document, index: number): Steps<ParsedDocument | undefined> {
    const before = this.problems.length;
    const keys = checkKeys(doc);
    const ambiguous = this.duplicateKeys(keys);
    const aliases = this.refusals(doc, keys);
    if (this.problems.length > before + keys.duplicates.length || ambiguous.length > MAX_AMBIGUOUS_KEYS) {
      return undefined;
    }
    if (isEmptyDocument(doc)) return undefined;
    yield PAUSE;
    const reportedPaths = this.substitute(doc);
    yield PAUSE;
    let data: unknown;
    try {
      data = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.at(
        offsetOf(aliases[0]?.alias ?? doc.contents),
        [],
        message.includes('Excessive alias count')
          ? `too many alias expansions (limit ${MAX_ALIAS_COUNT}): refusing a possible alias bomb`
          : `${INVALID_YAML}${message}`,
      );
      return undefined;
    }
    const { file, lineCounter, text } = this;
    return {
      file,
      index,
      data,
      reportedPaths,
      ...(ambiguous.length > 0 ? { ambiguous } : {}),
      locate: (path) => lineCounter.linePos(offsetOf(nodeAt(doc, path))),
      has: (path) => hasPath(data, path),
      tree: () => ({ doc, lineCounter, text }),
    };
  }

  /** Each key written twice, reported; the paths of those keys, each once. */
  private duplicateKeys(keys: KeyCheck): YamlPath[] {
    const ambiguous: YamlPath[] = [];
    const seen = new Set<string>();
    for (const duplicate of keys.duplicates) {
      const first = this.lineCounter.linePos(duplicate.firstOffset);
      this.at(
        duplicate.offset,
        [],
        `duplicate key "${duplicate.key}" (first at ${this.file}:${first.line}:${first.col})`,
      );
      const shown = formatPath(duplicate.path);
      if (!seen.has(shown)) ambiguous.push(duplicate.path);
      seen.add(shown);
    }
    return ambiguous;
  }

  /**
   * Reports what refuses the document: a duplicate inside a key, an oversized mapping, yaml's errors
   * and warnings (an unsupported tag), a complex key, an unknown alias. Returns the document's
   * aliases (a failed expansion is placed at the first).
   */
  private refusals(doc: Document, keys: KeyCheck): ReturnType<typeof aliasesOf> {
    for (const offset of keys.inKeys) this.at(offset, [], `${INVALID_YAML}Map keys must be unique`);
    for (const { offset, path } of keys.tooLarge) this.at(offset, path, TOO_MANY_KEYS);
    for (const error of doc.errors) this.at(error.pos[0], [], `${INVALID_YAML}${yamlMessage(error.message)}`);
    for (const warning of doc.warnings) {
      if (warning.code === 'TAG_RESOLVE_FAILED') {
        const tag = yamlMessage(this.text.slice(warning.pos[0], warning.pos[1]));
        this.at(warning.pos[0], [], `unsupported tag ${tag}: tags are not allowed in wafctl files`);
      } else this.at(warning.pos[0], [], `${INVALID_YAML}${yamlMessage(warning.message)}`);
    }
    for (const pair of complexKeys(doc)) {
      this.at(offsetOf(pair.key), [], 'a mapping key must be a plain scalar, not a list or mapping');
    }
    const aliases = aliasesOf(doc);
    for (const { alias, resolved } of aliases) {
      if (!resolved)
        this.at(offsetOf(alias), [], `unknown alias *${alias.source}: no anchor &${alias.source} before it`);
    }
    return aliases;
  }

  /**
   * The string values checked (escapes make in values what raw text cannot hold: `"\0"`, `"\uD800"`)
   * and substituted, in place; the paths of those reported, whose schema problems would be noise.
   */
  private substitute(doc: Document): Set<string> {
    const reportedPaths = new Set<string>();
    forEachStringValue(doc, (scalar, path) => {
      const refused = valueProblem(scalar.value);
      if (refused === undefined) return;
      this.at(offsetOf(scalar), path, refused);
      reportedPaths.add(formatPath(path));
    });
    for (const problem of substituteInDocument(doc, this.text, this.variables)) {
      this.at(problem.offset, problem.path, problem.message);
      reportedPaths.add(formatPath(problem.path));
    }
    return reportedPaths;
  }
}

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
  return runSteps(parsingYamlFile(file, text, env, variables));
}

/** `parseYamlFile` in steps (steps.ts): a loader pauses inside a large file too. */
export function* parsingYamlFile(
  file: string,
  text: string,
  env: Environment,
  variables: VariableRules = NO_VARIABLES,
): Steps<ParsedFile> {
  const unreadable = notTextProblem(file, text);
  if (unreadable !== undefined) return { documents: [], problems: [unreadable] };
  const reading = new YamlReading(file, text, { env, ...variables });
  const read = yield* readingDocuments(text, reading.lineCounter);
  if (!Array.isArray(read)) return { documents: [], problems: [placed(file, text, read) as ConfigProblem] };
  const documents: ParsedDocument[] = [];
  for (const [index, doc] of read.entries()) {
    yield PAUSE;
    const document = yield* reading.document(doc, index);
    if (document !== undefined) documents.push(document);
  }
  const problems = reading.problems;
  if (documents.length === 0 && problems.length === 0) {
    problems.push({ file, line: 1, col: 1, path: '', message: EMPTY_FILE });
  }
  return { documents, problems };
}
