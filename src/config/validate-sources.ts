/**
 * The pure half of loading: file texts in, a normalised DesiredState (or every problem) out. No I/O,
 * so tests call it with strings; `load.ts` does the reading.
 */
import { createHash } from 'node:crypto';
import type * as z from 'zod';
import { type ManageScope, scopeMismatch } from '../core/scope.js';
import { type DesiredObjects, KINDS, type Kind, type Section } from '../kinds/index.js';
import { boundedSafeParse } from './bounded-parse.js';
import type { Environment } from './env.js';
import { readFast } from './fast-read.js';
import { firewallActionProblems } from './firewall-actions.js';
import { problemsFromIssue } from './issues.js';
import { mergeSection } from './merge.js';
import { DeclaredSources } from './natural-keys.js';
import { declaredVariablesIn, type ParsedDocument, type ParsedFile, parseYamlFile } from './parse-yaml.js';
import { type ConfigProblem, hiddenProblems, MAX_PROBLEMS_PER_FILE, sortProblems } from './problems.js';
import {
  type DesiredState,
  documentSchema,
  documentSchemaFor,
  manageSchema,
  manageSchemaFor,
  settingsSchema,
} from './schema.js';
import { formatPath } from './yaml-path.js';

export interface SourceFile {
  /** As the user gave it; problems name it this way. */
  file: string;
  text: string;
}

/** Where each declared object is, by section and natural key: the planner names it in its errors. */
export type DesiredSources = Record<Section, DeclaredSources>;

/** Where a family's declared objects are (an empty index for a family the configuration does not know). */
export function sourcesOf(config: Pick<LoadedConfig, 'sources'>, kind: Kind): DeclaredSources {
  return (config.sources as Record<string, DeclaredSources>)[kind.section] ?? new DeclaredSources(kind);
}

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
  /** The families a configuration may declare: the registry's, unless a test registers its own. */
  kinds?: readonly Kind[];
}

export const DEFAULT_USERNAME = 'wafctl';

/**
 * The schemas of a configuration of some families, made once: the registry's are the module's
 * constants (`documentSchema`, typed section by section); a test's own families get theirs.
 */
interface Family {
  kinds: readonly Kind[];
  document: z.ZodType<ValidDocument>;
  manage: z.ZodType<Record<string, ScopeInput | undefined>>;
  /** One value per family, by section. */
  bySection<T>(make: (kind: Kind) => T): Record<Section, T>;
}

function familyOf(kinds: readonly Kind[]): Family {
  return {
    kinds,
    document: kinds === KINDS ? documentSchema : documentSchemaFor(kinds),
    manage: kinds === KINDS ? manageSchema : manageSchemaFor(kinds),
    bySection: <T>(make: (kind: Kind) => T) =>
      Object.fromEntries(kinds.map((kind) => [kind.section, make(kind)])) as Record<Section, T>,
  };
}

/** A document as its schema outputs it: each section's objects, `manage`, `settings`, `variables`. */
type ValidDocument = Record<string, unknown>;

function validateDocument(
  document: ParsedDocument,
  root: z.ZodType<ValidDocument>,
): { output?: ValidDocument; problems: ConfigProblem[] } {
  const result = boundedSafeParse(root, document.data);
  if (result.success) return { output: result.data, problems: [] };
  const context = { file: document.file, ...document.tree(), root };
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
type ScopeInput = { prune: boolean; match: Record<string, string[] | undefined> };

function scopeOf(parsed: ScopeInput | undefined): ManageScope {
  if (parsed === undefined) return manageAll();
  const match = Object.entries(parsed.match).filter(
    (entry): entry is [string, string[]] => entry[1] !== undefined,
  );
  return { prune: parsed.prune, match: Object.fromEntries(match) };
}

function finalManage(family: Family, merged: unknown): Record<Section, ManageScope> {
  const parsed = family.manage.parse(merged);
  return family.bySection((kind) => scopeOf(parsed[kind.section]));
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
  valid: readonly { document: ParsedDocument; output: ValidDocument }[],
  manage: Record<string, ManageScope>,
  kinds: readonly Kind[],
): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const matchSetAt = (section: string, field: string): string => {
    const path = ['manage', section, 'match', field];
    const document = valid.find((entry) => hasPath(entry.document.data, path))?.document;
    if (document === undefined) return '';
    const { line, col } = document.locate(path);
    return ` (set at ${document.file}:${line}:${col})`;
  };
  for (const { document, output } of valid) {
    for (const kind of kinds) {
      const section = kind.section;
      const scope = manage[section];
      if (scope === undefined || Object.keys(scope.match).length === 0) continue;
      const objects = output[section];
      if (!Array.isArray(objects)) continue;
      objects.forEach((object: Record<string, unknown>, index) => {
        const mismatch = scopeMismatch(object, scope);
        if (mismatch === undefined) return;
        const { field, value, globs } = mismatch;
        const declared = document.has([section, index, field]);
        const path = declared ? [section, index, field] : [section, index];
        const { line, col } = document.locate(path);
        const shown =
          value === undefined
            ? `${field} (not set)`
            : `${field} ${JSON.stringify(value)}${declared ? '' : ' (the default)'}`;
        const listed = `manage.${section}.match.${field} [${globs.map((glob) => JSON.stringify(glob)).join(', ')}]`;
        problems.push({
          file: document.file,
          line,
          col,
          path: formatPath(path),
          message: `${shown} is outside the manage scope: it matches none of ${listed}${matchSetAt(section, field)}, so wafctl would never create or update this ${kind.noun}`,
        });
      });
    }
  }
  return problems;
}

/** A file as read: `fast` when the fast reader read it. */
type ReadFile = ParsedFile & { fast?: true };

/**
 * The document without its object lists, once they are validated and declared: what is left
 * (`settings`, `manage`) is all the rest of a run needs of its data. Only for fast-read documents,
 * whose positions need no data (`has`, `locate`); a yaml document's tree holds its data anyway.
 */
function withoutObjects(document: ParsedDocument, kinds: readonly Kind[]): ParsedDocument {
  const data = document.data;
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return document;
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) {
    if (!kinds.some((kind) => kind.section === key)) rest[key] = value;
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
 * Each file is read once, by one reader: the fast reader where it takes the file (`fast-read.ts`),
 * yaml otherwise. Whichever read a file places that file's problems.
 */
export function validateSources(sources: readonly SourceFile[], options: ValidateOptions): ValidationResult {
  const variables = declaredVariables(sources);
  const read = (source: SourceFile): ReadFile => {
    const documents = readFast(source.file, source.text);
    if (documents !== undefined) return { documents, problems: [], fast: true };
    return parseYamlFile(source.file, source.text, options.env, variables);
  };
  return validateParsed(sources, read, options, variables);
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
  const family = familyOf(options.kinds ?? KINDS);
  const declared: DesiredSources = family.bySection((kind) => new DeclaredSources(kind));
  const valid: { document: ParsedDocument; output: ValidDocument }[] = [];
  for (const source of sources) {
    const parsed = read(source);
    for (const problem of parsed.problems) problems.push(problem);
    for (const document of parsed.documents) {
      const { output, problems: found } = validateDocument(document, family.document);
      for (const problem of found) problems.push(problem);
      for (const sources of Object.values<DeclaredSources>(declared)) {
        for (const problem of sources.declare(document)) problems.push(problem);
      }
      if (output && found.length === 0) {
        valid.push({ document: parsed.fast ? withoutObjects(document, family.kinds) : document, output });
      }
    }
  }

  const validDocuments = valid.map((entry) => entry.document);
  const settings = mergeSection(validDocuments, 'settings');
  const manage = mergeSection(validDocuments, 'manage');
  for (const problem of [...settings.problems, ...manage.problems]) problems.push(problem);
  // With a conflict, which glob list counts is unknown. Documents left out for their own problems
  // only ever widen the merged scope, so what is found here is never a false alarm.
  const scopes = manage.problems.length === 0 ? finalManage(family, manage.merged) : undefined;
  if (scopes !== undefined) {
    for (const problem of scopeProblems(valid, scopes, family.kinds)) problems.push(problem);
  }
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
  const objects = family.bySection((kind) =>
    valid.flatMap((entry) => {
      const objects = entry.output[kind.section];
      return Array.isArray(objects) ? objects : [];
    }),
  ) as DesiredObjects; // each section's schema made these objects
  const state: DesiredState = {
    ...objects,
    manage: scopes ?? finalManage(family, manage.merged),
    settings: {
      username: mergedSettings.username ?? (envUsername ? envUsername : DEFAULT_USERNAME),
      safety: mergedSettings.safety,
      firewall_actions: mergedSettings.firewall_actions,
    },
  };
  const digests = new Map(sources.map((source) => [source.file, textDigest(source.text)]));
  return { ok: true, config: { state, sources: declared, files, digests, variables } };
}
