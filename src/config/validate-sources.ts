/**
 * The pure half of loading: file texts in, a normalised DesiredState (or every problem) out. No I/O,
 * so tests call it with strings; `load.ts` does the reading.
 */
import { createHash } from 'node:crypto';
import { type ManageScope, scopeMismatch } from '../core/scope.js';
import { boundedSafeParse } from './bounded-parse.js';
import type { Environment } from './env.js';
import { readFast, YamlNeeded } from './fast-read.js';
import { firewallActionProblems } from './firewall-actions.js';
import { problemsFromIssue } from './issues.js';
import { mergeSection } from './merge.js';
import { DeclaredSources, KIND_NOUNS } from './natural-keys.js';
import { declaredVariablesIn, type ParsedDocument, type ParsedFile, parseYamlFile } from './parse-yaml.js';
import { type ConfigProblem, hiddenProblems, MAX_PROBLEMS_PER_FILE, sortProblems } from './problems.js';
import {
  type DesiredDocument,
  type DesiredState,
  documentSchema,
  KIND_NAMES,
  type KindName,
  manageSchema,
  settingsSchema,
} from './schema.js';
import { formatPath } from './yaml-path.js';

export interface SourceFile {
  /** As the user gave it; problems name it this way. */
  file: string;
  text: string;
}

/** Where each declared object is, by kind and natural key: the planner names it in its errors. */
export type DesiredSources = Record<KindName, DeclaredSources>;

export interface LoadedConfig {
  state: DesiredState;
  sources: DesiredSources;
  files: string[];
  /** Names declared in `variables:`: a command that reads the files again substitutes as validation did. */
  variables: ReadonlySet<string>;
  /**
   * `textDigest` of each file's text as it was validated, by file: a command that rewrites the files
   * later (`pull`) refuses one that changed since, as its positions would point at other values.
   */
  digests: ReadonlyMap<string, string>;
}

/** SHA-256 of a text, hex: equal digests, equal texts. */
export function textDigest(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

export type ValidationResult =
  | { ok: true; config: LoadedConfig }
  | { ok: false; problems: ConfigProblem[]; files: string[] };

export interface ValidateOptions {
  env: Environment;
}

export const DEFAULT_USERNAME = 'wafctl';

function validateDocument(document: ParsedDocument): { output?: DesiredDocument; problems: ConfigProblem[] } {
  const result = boundedSafeParse(documentSchema, document.data);
  if (result.success) return { output: result.data, problems: [] };
  const context = { file: document.file, ...document.tree(), root: documentSchema };
  // Placing a problem costs a walk of the yaml tree: 200,000 would take a minute, and only
  // MAX_PROBLEMS_PER_FILE are shown. zod lists issues in document order; the rest are counted.
  const placed = result.issues.slice(0, MAX_PROBLEMS_PER_FILE);
  const problems = placed
    .flatMap((issue) => problemsFromIssue(issue, context))
    .filter((problem) => !document.reportedPaths.has(problem.path));
  let unplaced = 0;
  for (const issue of result.issues.slice(MAX_PROBLEMS_PER_FILE)) {
    unplaced += issue.code === 'unrecognized_keys' ? issue.keys.length : 1;
  }
  if (unplaced > 0) problems.push(hiddenProblems(document.file, unplaced));
  return { problems };
}

/** Default scope of a kind that no file mentions: everything, never pruned. */
const manageAll = (): ManageScope => ({ prune: false, match: {} });

/** The match fields a file left out are dropped, so every listed field really has globs. */
function scopeOf(
  parsed: { prune: boolean; match: Record<string, string[] | undefined> } | undefined,
): ManageScope {
  if (parsed === undefined) return manageAll();
  const match = Object.entries(parsed.match).filter(
    (entry): entry is [string, string[]] => entry[1] !== undefined,
  );
  return { prune: parsed.prune, match: Object.fromEntries(match) };
}

function finalManage(merged: unknown): Record<KindName, ManageScope> {
  const parsed = manageSchema.parse(merged);
  return {
    groups: scopeOf(parsed.groups),
    application_rules: scopeOf(parsed.application_rules),
    notifications: scopeOf(parsed.notifications),
    schedules: scopeOf(parsed.schedules),
  };
}

function hasPath(data: unknown, path: readonly (string | number)[]): boolean {
  let current = data;
  for (const segment of path) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, segment)) return false;
    current = (current as Record<string | number, unknown>)[segment];
  }
  return true;
}

/**
 * A declared object outside its kind's `manage.<kind>.match` would never be created or updated (the
 * planner refuses it): said here, at the field that fails (at the object when the field was left to
 * its default), naming the glob list and where `manage` sets it, which may be another file.
 */
function scopeProblems(
  valid: readonly { document: ParsedDocument; output: DesiredDocument }[],
  manage: Record<KindName, ManageScope>,
): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const matchSetAt = (kind: KindName, field: string): string => {
    const path = ['manage', kind, 'match', field];
    const document = valid.find((entry) => hasPath(entry.document.data, path))?.document;
    if (document === undefined) return '';
    const { line, col } = document.locate(path);
    return ` (set at ${document.file}:${line}:${col})`;
  };
  for (const { document, output } of valid) {
    for (const kind of KIND_NAMES) {
      const scope = manage[kind];
      if (Object.keys(scope.match).length === 0) continue;
      (output[kind] ?? []).forEach((object, index) => {
        const mismatch = scopeMismatch(object, scope);
        if (mismatch === undefined) return;
        const { field, value, globs } = mismatch;
        const declared = hasPath(document.data, [kind, index, field]);
        const path = declared ? [kind, index, field] : [kind, index];
        const { line, col } = document.locate(path);
        const shown =
          value === undefined
            ? `${field} (not set)`
            : `${field} ${JSON.stringify(value)}${declared ? '' : ' (the default)'}`;
        const listed = `manage.${kind}.match.${field} [${globs.map((glob) => JSON.stringify(glob)).join(', ')}]`;
        problems.push({
          file: document.file,
          line,
          col,
          path: formatPath(path),
          message: `${shown} is outside the manage scope: it matches none of ${listed}${matchSetAt(kind, field)}, so wafctl would never create or update this ${KIND_NOUNS[kind]}`,
        });
      });
    }
  }
  return problems;
}

/** A file as read: `fast` when the fast reader read it (its documents can place list items only). */
type ReadFile = ParsedFile & { fast?: true };

/**
 * The document without its object lists, once they are validated and declared: what is left
 * (`settings`, `manage`) is all the rest of a run needs of it. Only for fast-read documents: a run
 * with problems is redone with yaml, which keeps every list to place problems in.
 */
function withoutObjects(document: ParsedDocument): ParsedDocument {
  const data = document.data;
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return document;
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) {
    if (!(KIND_NAMES as readonly string[]).includes(key)) rest[key] = value;
  }
  return { ...document, data: rest };
}

/**
 * The names `variables:` declares anywhere in the configuration: substitution in one file may use a
 * name another declares, so all are read first. Only when some file has a reference at all (the
 * fast reader never substitutes), and only in files that mention `variables`.
 */
export function declaredVariables(sources: readonly SourceFile[]): ReadonlySet<string> {
  const names = new Set<string>();
  if (!sources.some((source) => source.text.includes('${'))) return names;
  for (const source of sources) for (const name of declaredVariablesIn(source.text)) names.add(name);
  return names;
}

/**
 * Files are processed in the order given (the loader sorts them); problems come back sorted.
 *
 * Files are read by the fast reader where it can (`fast-read.ts`), by yaml otherwise. A run that
 * finds a problem is redone with yaml alone, so that problems are always placed by yaml.
 */
export function validateSources(sources: readonly SourceFile[], options: ValidateOptions): ValidationResult {
  let fastReads = 0;
  const variables = declaredVariables(sources);
  // A file yaml read in the first run is not read again in the second.
  const byYaml = new Map<SourceFile, ParsedFile>();
  const readWithYaml = (source: SourceFile): ParsedFile => {
    let parsed = byYaml.get(source);
    if (parsed === undefined) {
      parsed = parseYamlFile(source.file, source.text, options.env, variables);
      byYaml.set(source, parsed);
    }
    return parsed;
  };
  const readQuickly = (source: SourceFile): ReadFile => {
    const documents = readFast(source.file, source.text);
    if (documents === undefined) return readWithYaml(source);
    fastReads++;
    return { documents, problems: [], fast: true };
  };
  try {
    const result = validateParsed(sources, readQuickly, options, variables);
    if (result.ok || fastReads === 0) return result;
  } catch (error) {
    if (!(error instanceof YamlNeeded)) throw error;
  }
  return validateParsed(sources, readWithYaml, options, variables);
}

/**
 * One file at a time: read, validate, declare; a fast-read document then lets go of its object
 * lists (the validated output is kept), so a large configuration is never held twice.
 */
function validateParsed(
  sources: readonly SourceFile[],
  read: (source: SourceFile) => ReadFile,
  options: ValidateOptions,
  variables: ReadonlySet<string>,
): ValidationResult {
  const files = sources.map((source) => source.file);
  const problems: ConfigProblem[] = [];
  const declared: DesiredSources = {
    groups: new DeclaredSources('groups'),
    application_rules: new DeclaredSources('application_rules'),
    notifications: new DeclaredSources('notifications'),
    schedules: new DeclaredSources('schedules'),
  };
  const valid: { document: ParsedDocument; output: DesiredDocument }[] = [];
  for (const source of sources) {
    const parsed = read(source);
    for (const problem of parsed.problems) problems.push(problem);
    for (const document of parsed.documents) {
      const { output, problems: found } = validateDocument(document);
      for (const problem of found) problems.push(problem);
      for (const kind of KIND_NAMES) {
        for (const problem of declared[kind].declare(document)) problems.push(problem);
      }
      if (output && found.length === 0) {
        valid.push({ document: parsed.fast ? withoutObjects(document) : document, output });
      }
    }
  }

  const validDocuments = valid.map((entry) => entry.document);
  const settings = mergeSection(validDocuments, 'settings');
  const manage = mergeSection(validDocuments, 'manage');
  for (const problem of [...settings.problems, ...manage.problems]) problems.push(problem);
  // With a conflict, which glob list counts is unknown. Documents left out for their own problems
  // only ever widen the merged scope, so what is found here is never a false alarm.
  const scopes = manage.problems.length === 0 ? finalManage(manage.merged) : undefined;
  if (scopes !== undefined) for (const problem of scopeProblems(valid, scopes)) problems.push(problem);
  // Valid documents merged without conflict make valid settings; the action lists overlap or not
  // only once merged (two lists may be set in two files).
  const mergedSettings = settings.problems.length === 0 ? settingsSchema.parse(settings.merged) : undefined;
  if (mergedSettings !== undefined) {
    for (const problem of firewallActionProblems(validDocuments, mergedSettings.firewall_actions)) {
      problems.push(problem);
    }
  }
  if (problems.length > 0 || mergedSettings === undefined) {
    return { ok: false, problems: sortProblems(problems), files };
  }

  const envUsername = options.env.WAF_USERNAME;
  const state: DesiredState = {
    groups: valid.flatMap((entry) => entry.output.groups ?? []),
    application_rules: valid.flatMap((entry) => entry.output.application_rules ?? []),
    notifications: valid.flatMap((entry) => entry.output.notifications ?? []),
    schedules: valid.flatMap((entry) => entry.output.schedules ?? []),
    manage: scopes ?? finalManage(manage.merged),
    settings: {
      username: mergedSettings.username ?? (envUsername ? envUsername : DEFAULT_USERNAME),
      safety: mergedSettings.safety,
      firewall_actions: mergedSettings.firewall_actions,
    },
  };
  const digests = new Map(sources.map((source) => [source.file, textDigest(source.text)]));
  return { ok: true, config: { state, sources: declared, files, digests, variables } };
}
