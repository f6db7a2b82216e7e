/**
 * The pure half of loading: file texts in, a normalised DesiredState (or every problem) out. No I/O,
 * so tests call it with strings; `load.ts` does the reading.
 */
import { createHash } from 'node:crypto';
import type * as z from 'zod';
import { type ManageScope, scopeMismatch } from '../core/scope.js';
import { printable } from '../core/text.js';
import { type DesiredObjects, KINDS, type Kind, type Section } from '../kinds/index.js';
import { boundedSafeParse } from './bounded-parse.js';
import { describeValue } from './describe-value.js';
import {
  type CredentialVariables,
  cannotDeclare,
  credentialReason,
  type Environment,
  type VariableRules,
} from './env.js';
import { readFast } from './fast-read.js';
import { firewallActionProblems } from './firewall-actions.js';
import { problemsFromIssue, withoutRedundantIssues } from './issues.js';
import { mergeSection } from './merge.js';
import { DeclaredSources } from './natural-keys.js';
import { declaredView, isSuperseded, keepProblem, type Layer, overlayLayers } from './overlay.js';
import {
  declaredVariablesIn,
  EMPTY_FILE,
  INVALID_YAML,
  type ParsedDocument,
  type ParsedFile,
  parseYamlFile,
} from './parse-yaml.js';
import { type ConfigProblem, hiddenProblems, MAX_PROBLEMS_PER_FILE, sortProblems } from './problems.js';
import {
  type DesiredState,
  documentSchema,
  documentSchemaFor,
  manageSchema,
  manageSchemaFor,
  settingsSchema,
} from './schema.js';
import { runSteps, type Steps } from './steps.js';
import { formatPath } from './yaml-path.js';

export interface SourceFile {
  /** As the user gave it; problems name it this way. */
  file: string;
  text: string;
  /**
   * The root's project file (wafctl.yaml, project.ts): its `environments` key is the project's, not
   * configuration, so it is left out here and the rest of the file is read as any other file.
   */
  project?: boolean;
}

/** The top-level key of the project file that is no configuration (see `SourceFile.project`). */
const PROJECT_KEY = 'environments';

/** A project file's documents without their `environments` key. */
function withoutProjectKey(parsed: ReadFile): ReadFile {
  const documents = parsed.documents.map((document) => {
    const data = document.data;
    if (!isMapping(data) || !Object.hasOwn(data as object, PROJECT_KEY)) return document;
    const { [PROJECT_KEY]: _environments, ...rest } = data as Record<string, unknown>;
    return { ...document, data: rest };
  });
  return { ...parsed, documents };
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
  /** What `${NAME}` read: a command that reads the files again substitutes as validation did. */
  variables: VariableRules;
  /** The names the files themselves declare in `variables:` (with a trusted ref, not those read). */
  declaredVariables: ReadonlySet<string>;
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
  | {
      ok: false;
      problems: ConfigProblem[];
      files: string[];
      /** The checks the problems kept from running, each with why: said, so nothing hides silently. */
      skipped: string[];
    };

export interface ValidateOptions {
  env: Environment;
  /** Variables that are credentials (every environment's `token_env`, ...): never read or declared. */
  credentials?: CredentialVariables | undefined;
  /**
   * The `variables:` allow-list to read with instead of the files' own: the trusted ref's
   * (`--trusted-ref`), so that a pull request cannot widen it.
   */
  allowList?: ReadonlySet<string> | undefined;
  /**
   * Read only the policy of each file (`variables`, `manage`, `settings.firewall_actions`,
   * `settings.safety`), as the trusted ref's policy and the policy a saved plan is judged by are
   * read: objects are dropped after reading (unvalidated, and their substitution problems with them),
   * so they can neither fail nor leak.
   */
  policyOnly?: boolean | undefined;
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
  /** The document schema's sections, each validated alone when the document fails. */
  shape: Record<string, z.ZodType>;
  manage: z.ZodType<Record<string, ScopeInput | undefined>>;
  /** One value per family, by section. */
  bySection<T>(make: (kind: Kind) => T): Record<Section, T>;
}

function familyOf(kinds: readonly Kind[]): Family {
  const document = kinds === KINDS ? documentSchema : documentSchemaFor(kinds);
  return {
    kinds,
    document: document as z.ZodType<ValidDocument>,
    shape: (document as z.ZodObject).shape as Record<string, z.ZodType>,
    manage: kinds === KINDS ? manageSchema : manageSchemaFor(kinds),
    bySection: <T>(make: (kind: Kind) => T) =>
      Object.fromEntries(kinds.map((kind) => [kind.section, make(kind)])) as Record<Section, T>,
  };
}

/** A document as its schema outputs it: each section's objects, `manage`, `settings`, `variables`. */
type ValidDocument = Record<string, unknown>;

/** Whether the formatted `path` is `at` or under it. */
function isAtOrUnder(path: string, at: string): boolean {
  return path === at || (path.startsWith(at) && (path[at.length] === '.' || path[at.length] === '['));
}

/**
 * What of a document passed the schema: whole sections, and, in a section of objects that did not,
 * the objects that did (by index; `undefined` for one that did not). `undefined` when nothing did
 * (the document is not a mapping).
 */
function validParts(
  document: ParsedDocument,
  family: Family,
  failedPaths: readonly (readonly PropertyKey[])[],
): ValidDocument | undefined {
  const data = document.data;
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return undefined;
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
    const kind = family.kinds.find((candidate) => candidate.section === section);
    if (items === 'all' || kind === undefined || !Array.isArray(value)) continue;
    output[section] = value.map((item: unknown, index) => {
      if (items.has(index)) return undefined;
      const parsed = kind.schema.safeParse(item);
      return parsed.success ? parsed.data : undefined;
    });
  }
  return output;
}

/**
 * The document as the checks after the schema read it: only the sections that passed it (objects
 * in a section that did not are read from `output`), and without the objects whose natural key is
 * written twice (`ambiguous`).
 */
function checkedView(document: ParsedDocument, output: ValidDocument, family: Family): ParsedDocument {
  const data = document.data as Record<string, unknown>;
  const view: Record<string, unknown> = {};
  for (const key of Object.keys(output)) {
    if (family.kinds.some((kind) => kind.section === key)) continue;
    view[key] = data[key];
  }
  return { ...document, data: view };
}

/**
 * `document` for declaring natural keys: an object whose key field is written twice in it (or a
 * section written twice) is left out, since which key the user meant is unknown.
 */
function declarable(document: ParsedDocument, kinds: readonly Kind[]): ParsedDocument {
  const ambiguous = document.ambiguous;
  const data = document.data;
  if (ambiguous === undefined || data === null || typeof data !== 'object' || Array.isArray(data)) {
    return document;
  }
  const view: Record<string, unknown> = { ...(data as Record<string, unknown>) };
  for (const path of ambiguous) {
    const kind = kinds.find((candidate) => candidate.section === path[0]);
    if (kind === undefined) continue;
    const [, index, field] = path;
    if (path.length === 1) delete view[kind.section];
    else if (typeof index === 'number' && typeof field === 'string' && path.length === 3) {
      const items = view[kind.section];
      if (!Array.isArray(items) || !kind.keyFields.includes(field)) continue;
      const copy = [...items];
      copy[index] = null;
      view[kind.section] = copy;
    }
  }
  return { ...document, data: view };
}

function validateDocument(
  document: ParsedDocument,
  family: Family,
): { output?: ValidDocument; partial?: ValidDocument; problems: ConfigProblem[] } {
  const root = family.document;
  const ambiguous = (document.ambiguous ?? []).map(formatPath);
  const result = boundedSafeParse(root, document.data);
  if (result.success && ambiguous.length === 0) return { output: result.data, problems: [] };
  const issues = result.success ? [] : result.issues;
  const partial = validParts(document, family, [
    ...issues.map((issue) => issue.path),
    ...(document.ambiguous ?? []),
  ]);
  if (issues.length === 0) return { partial, problems: [] };
  const context = { file: document.file, ...document.tree(), root };
  // Placing a problem costs a walk of the yaml tree: 200,000 would take a minute, and only
  // MAX_PROBLEMS_PER_FILE are shown. zod lists issues in document order; the rest are counted.
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
  return { partial, problems };
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
      objects.forEach((object: Record<string, unknown> | undefined, index) => {
        if (object === undefined) return; // it failed the schema: its own problems are said
        if (isSuperseded(document, section, index)) return; // a later path overrides or removes it
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

const YAML_NAME = /\.ya?ml$/i;

function isMapping(value: unknown): boolean {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * The one problem of a file that holds nothing of wafctl's shape: YAML reads a README as one plain
 * string (or a list), so no document of it is a mapping; given by name, a file that is not named
 * `*.yaml`/`*.yml` and does not read as YAML at all, or holds only `#` lines (a markdown file's
 * headings), is said to be no configuration file too, rather than listing YAML's complaints or
 * calling it empty. A really empty file keeps its own problem ("file is empty").
 */
function notConfigurationProblem(
  source: SourceFile,
  parsed: ParsedFile,
  family: Family,
): ConfigProblem | undefined {
  if (parsed.documents.some((document) => isMapping(document.data))) return undefined;
  const sections = [...family.kinds.map((kind) => kind.section), 'settings'].map((section) => `${section}:`);
  const expected = `expected a mapping with sections such as ${sections.join(', ')}`;
  const message = (why: string) => `not a wafctl configuration file: ${expected}, ${why}`;
  const first = parsed.documents[0];
  if (first !== undefined && parsed.problems.length === 0) {
    const { line, col } = first.locate([]);
    return { file: source.file, line, col, path: '', message: message(`got ${describeValue(first.data)}`) };
  }
  if (YAML_NAME.test(source.file)) return undefined;
  const problem = sortProblems(parsed.problems)[0];
  if (problem === undefined) return undefined;
  if (problem.message === EMPTY_FILE && source.text.trim() !== '') {
    return { ...problem, message: message('and it holds only comments (# lines)') };
  }
  const cause = problem.message.startsWith(INVALID_YAML)
    ? problem.message.slice(INVALID_YAML.length)
    : problem.message;
  return { ...problem, message: message(`and YAML cannot read it (${cause})`) };
}

/**
 * `variables:` entries that name an environment's credential variable (`token_env`, ...): data of the
 * project, so checked here; the names every configuration refuses (`WAF_*`, credential-like words) are
 * the schema's.
 */
function credentialDeclarations(
  document: ParsedDocument,
  credentials: CredentialVariables | undefined,
): ConfigProblem[] {
  if (credentials === undefined || credentials.size === 0 || !isMapping(document.data)) return [];
  const list = (document.data as Record<string, unknown>).variables;
  if (!Array.isArray(list)) return [];
  return list.flatMap((name: unknown, index) => {
    if (typeof name !== 'string' || credentialReason(name) !== undefined) return [];
    const reason = credentialReason(name, credentials);
    if (reason === undefined) return [];
    const { line, col } = document.locate(['variables', index]);
    const path = formatPath(['variables', index]);
    return [{ file: document.file, line, col, path, message: cannotDeclare(name, reason) }];
  });
}

/**
 * Each expectation section (`admins:`, kind.ts `expectation`) merged across the documents as
 * `settings` is, leaf by leaf (the same leaf twice is a conflict, in `problems`); a section no
 * document writes is left out.
 */
function mergedExpectations(
  kinds: readonly Kind[],
  documents: readonly ParsedDocument[],
  problems: ConfigProblem[],
): Record<string, Record<string, unknown>> {
  const expected: Record<string, Record<string, unknown>> = {};
  for (const kind of kinds) {
    const section = kind.expectation?.section;
    if (section === undefined) continue;
    const merged = mergeSection(documents, section);
    for (const problem of merged.problems) problems.push(problem);
    if (
      documents.some(
        (document) => isMapping(document.data) && Object.hasOwn(document.data as object, section),
      )
    ) {
      expected[section] = merged.merged;
    }
  }
  return expected;
}

/** A file as read: `fast` when the fast reader read it. */
type ReadFile = ParsedFile & { fast?: true };

/**
 * The names `variables:` declares anywhere in the configuration: substitution in one file may use a
 * name another declares, so all are read first. Only when some file has a reference at all (the
 * fast reader never substitutes), and only in files that mention `variables`. In steps (steps.ts):
 * a file at a time.
 */
function* declaringVariables(
  sources: readonly SourceFile[],
  /** Read the declarations even when no file substitutes (a trusted ref's allow-list is used elsewhere). */
  always: boolean,
): Steps<ReadonlySet<string>> {
  const names = new Set<string>();
  if (!always && !sources.some((source) => source.text.includes('${'))) return names;
  for (const source of sources) {
    yield `reading the variables of ${printable(source.file)}`;
    for (const name of declaredVariablesIn(source.text)) names.add(name);
  }
  return names;
}

/** The registry's expectation sections (`admins`): policy, as `manage` is. */
const EXPECTATION_SECTIONS = KINDS.flatMap((kind) =>
  kind.expectation === undefined ? [] : [kind.expectation.section],
);

/** What of a file a policy-only load reads (`ValidateOptions.policyOnly`). */
const POLICY_PATHS = [
  'variables',
  'manage',
  'settings.firewall_actions',
  'settings.safety',
  ...EXPECTATION_SECTIONS,
];

/** A file as a policy-only load reads it: its documents' policy, and the problems found in it. */
function policyView(parsed: ReadFile): ReadFile {
  const documents = parsed.documents.map((document) => {
    if (!isMapping(document.data)) return document;
    const { variables, manage, settings } = document.data as Record<string, unknown>;
    const data: Record<string, unknown> = {};
    if (variables !== undefined) data.variables = variables;
    if (manage !== undefined) data.manage = manage;
    // What read-only objects are expected to be is policy too: it decides what drift is caught.
    for (const section of EXPECTATION_SECTIONS) {
      const value = (document.data as Record<string, unknown>)[section];
      if (value !== undefined) data[section] = value;
    }
    if (isMapping(settings)) {
      const { firewall_actions, safety } = settings as Record<string, unknown>;
      data.settings = {
        ...(firewall_actions === undefined ? {} : { firewall_actions }),
        ...(safety === undefined ? {} : { safety }),
      };
    } else if (settings !== undefined) data.settings = settings;
    return { ...document, data };
  });
  const problems = parsed.problems.filter(
    (problem) => problem.path === '' || POLICY_PATHS.some((at) => isAtOrUnder(problem.path, at)),
  );
  return { ...parsed, documents, problems };
}

/**
 * How a load reads each file, once, by one reader: the fast reader where it takes the file
 * (`fast-read.ts`), yaml otherwise, substituting with the load's variables; the project file without
 * its `environments`; only the policy when `policyOnly`.
 */
function* fileReader(sources: readonly SourceFile[], options: ValidateOptions) {
  const always = options.policyOnly === true || options.allowList !== undefined;
  const declared = yield* declaringVariables(sources, always);
  const rules: VariableRules = {
    declared: options.allowList ?? declared,
    credentials: options.credentials,
  };
  const read = (source: SourceFile): ReadFile => {
    const documents = readFast(source.file, source.text);
    const parsed: ReadFile =
      documents !== undefined
        ? { documents, problems: [], fast: true }
        : parseYamlFile(source.file, source.text, options.env, rules);
    const configuration = source.project === true ? withoutProjectKey(parsed) : parsed;
    return options.policyOnly === true ? policyView(configuration) : configuration;
  };
  return { read, variables: { rules, declared } };
}

/** The variables of a load: what `${NAME}` read, and what the files declare. */
interface LoadVariables {
  rules: VariableRules;
  declared: ReadonlySet<string>;
}

/**
 * Files are processed in the order given (the loader sorts them); problems come back sorted.
 * Whichever reader read a file places that file's problems.
 */
export function validateSources(sources: readonly SourceFile[], options: ValidateOptions): ValidationResult {
  return runSteps(validatingSources(sources, options));
}

/** `validateSources` in steps (steps.ts): the loader pauses between files, to answer a signal. */
export function* validatingSources(
  sources: readonly SourceFile[],
  options: ValidateOptions,
): Steps<ValidationResult> {
  const { read, variables } = yield* fileReader(sources, options);
  return yield* validateParsed(sources, read, options, variables);
}

/**
 * An environment's load: its paths in order, each path's files in order, a later path overlaying
 * the earlier ones (overlay.ts). Every file is read before any is validated, since an overlay's
 * object is validated merged with the earlier path's.
 */
export function validateLayers(
  layers: readonly { path: string; sources: readonly SourceFile[] }[],
  options: ValidateOptions,
): ValidationResult {
  return runSteps(validatingLayers(layers, options));
}

/** `validateLayers` in steps (steps.ts). */
export function* validatingLayers(
  layers: readonly { path: string; sources: readonly SourceFile[] }[],
  options: ValidateOptions,
): Steps<ValidationResult> {
  const sources = layers.flatMap((layer) => layer.sources);
  const { read: readFile, variables } = yield* fileReader(sources, options);
  const readOne = (source: SourceFile): ReadFile & { source: SourceFile } => ({
    ...readFile(source),
    source,
  });
  const read: Layer<ReadFile & { source: SourceFile }>[] = [];
  for (const layer of layers) {
    const files: (ReadFile & { source: SourceFile })[] = [];
    for (const source of layer.sources) {
      yield `reading ${printable(source.file)}`;
      files.push(readOne(source));
    }
    read.push({ path: layer.path, files });
  }
  const overlaid = overlayLayers(read, options.kinds ?? KINDS);
  const bySource = new Map(
    overlaid.layers.flatMap((layer) => layer.files.map((file) => [file.source, file])),
  );
  return yield* validateParsed(
    sources,
    (source) => bySource.get(source) ?? readOne(source),
    options,
    variables,
    overlaid.problems,
  );
}

/**
 * One file at a time: read, validate, declare; a fast-read document then lets go of its object
 * lists (the validated output is kept), so a large configuration is never held twice.
 */
function* validateParsed(
  sources: readonly SourceFile[],
  read: (source: SourceFile) => ReadFile,
  options: ValidateOptions,
  variables: LoadVariables,
  found: readonly ConfigProblem[] = [],
): Steps<ValidationResult> {
  const files = sources.map((source) => source.file);
  const problems: ConfigProblem[] = [...found];
  const family = familyOf(options.kinds ?? KINDS);
  const declared: DesiredSources = family.bySection((kind) => new DeclaredSources(kind));
  const valid: { document: ParsedDocument; output: ValidDocument }[] = [];
  const skipped: string[] = [];
  for (const source of sources) {
    yield `validating ${printable(source.file)}`;
    const parsed = read(source);
    const notConfiguration = notConfigurationProblem(source, parsed, family);
    if (notConfiguration !== undefined) {
      problems.push(notConfiguration);
      continue;
    }
    for (const problem of parsed.problems) problems.push(problem);
    for (const document of parsed.documents) {
      for (const problem of credentialDeclarations(document, options.credentials)) problems.push(problem);
    }
    // An empty file declares nothing: only a file YAML cannot read hides objects from the checks.
    const unread = parsed.documents.length === 0 && parsed.problems.some((p) => p.message !== EMPTY_FILE);
    if (unread && sources.length > 1) {
      skipped.push(`the objects of ${printable(source.file)} (YAML cannot read it) against the other files`);
    }
    for (const document of parsed.documents) {
      const { output, partial, problems: all } = validateDocument(document, family);
      const found = all.filter((problem) => keepProblem(document, problem));
      for (const problem of found) problems.push(problem);
      const declaring = declaredView(declarable(document, family.kinds));
      for (const sources of Object.values<DeclaredSources>(declared)) {
        for (const problem of sources.declare(declaring)) problems.push(problem);
      }
      // What passed the schema goes on to the checks after it, even when the rest did not: every
      // problem of a run is reported together.
      const checked = output !== undefined && found.length === 0 ? output : partial;
      if (checked !== undefined)
        valid.push({ document: checkedView(document, checked, family), output: checked });
      for (const section of ['settings', 'manage'] as const) {
        if (!isMapping(document.data) || !Object.hasOwn(document.data as object, section)) continue;
        if (checked !== undefined && Object.hasOwn(checked, section)) continue;
        skipped.push(`what depends on the ${section} of ${printable(document.file)} (it has problems)`);
      }
    }
  }

  for (const sources of Object.values<DeclaredSources>(declared)) {
    for (const problem of sources.renameProblems()) problems.push(problem);
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
  const expected = mergedExpectations(family.kinds, validDocuments, problems);
  // Valid documents merged without conflict make valid settings; the action lists overlap or not
  // only once merged (two lists may be set in two files).
  const mergedSettings = settings.problems.length === 0 ? settingsSchema.parse(settings.merged) : undefined;
  if (mergedSettings !== undefined) {
    for (const problem of firewallActionProblems(validDocuments, mergedSettings.firewall_actions)) {
      problems.push(problem);
    }
  }
  if (settings.problems.length > 0) skipped.push('firewall_actions conflicts (settings is set twice)');
  if (manage.problems.length > 0)
    skipped.push('the manage scope of the declared objects (manage is set twice)');
  if (problems.length > 0 || mergedSettings === undefined) {
    return { ok: false, problems: sortProblems(problems), files, skipped: [...new Set(skipped)] };
  }

  const envUsername = options.env.WAF_USERNAME;
  const objects = family.bySection((kind) =>
    valid.flatMap((entry) => {
      const objects = entry.output[kind.section];
      // A singleton's section is one object: held as a list of one, like every section.
      if (kind.singleton) {
        // A later path's section overlays it (overlay.ts): only the last one is loaded.
        return objects === undefined || isSuperseded(entry.document, kind.section, -1) ? [] : [objects];
      }
      if (!Array.isArray(objects)) return [];
      // An object a later path of an environment overrides or removes is not loaded (overlay.ts).
      return objects.filter((_, index) => !isSuperseded(entry.document, kind.section, index));
    }),
  ) as DesiredObjects; // each section's schema made these objects
  const state: DesiredState = {
    ...objects,
    expected,
    manage: scopes ?? finalManage(family, manage.merged),
    settings: {
      username: mergedSettings.username ?? (envUsername ? envUsername : DEFAULT_USERNAME),
      safety: mergedSettings.safety,
      firewall_actions: mergedSettings.firewall_actions,
    },
  };
  const digests = new Map(sources.map((source) => [source.file, textDigest(source.text)]));
  return {
    ok: true,
    config: {
      state,
      sources: declared,
      files,
      digests,
      variables: variables.rules,
      declaredVariables: variables.declared,
    },
  };
}
