/**
 * The pure half of loading: file texts in, a normalised DesiredState (or every problem) out. No I/O,
 * so tests call it with strings; `load.ts` does the reading.
 *
 * Every file is read by one reader (read-sources.ts); then, one file at a time, its documents are
 * validated (validate-document.ts) and their objects declared (natural-keys.ts); then come the checks
 * across files (merge.ts, manage-scope.ts, firewall-actions.ts, rule-catalog-check.ts, rule-tests.ts),
 * and the state is built (desired-state.ts).
 */
import { createHash } from 'node:crypto';
import { printable } from '../core/text.js';
import { KINDS, type Kind, type Section } from '../kinds/index.js';
import { declarationProblems } from './declared-variables.js';
import { desiredState, type Merged } from './desired-state.js';
import { type AllowList, policyPinned, type VariableRules } from './env.js';
import { firewallActionProblems } from './firewall-actions.js';
import { finalManage, scopeProblems } from './manage-scope.js';
import { isMapping } from './mapping.js';
import { mergedExpectations, mergeSection } from './merge.js';
import { DeclaredSources, declarable } from './natural-keys.js';
import { notConfigurationProblem } from './not-configuration.js';
import { declaredView, keepProblem } from './overlay.js';
import { EMPTY_FILE, type ParsedDocument, type ParsedFile } from './parse-yaml.js';
import { type ConfigProblem, sortProblems } from './problems.js';
import {
  type LoadVariables,
  type ReadFile,
  type ReadOptions,
  readerFor,
  readingLayers,
  type SourceFile,
  type SourceLayer,
} from './read-sources.js';
import { catalogProblems, declaresRules } from './rule-catalog-check.js';
import { catalogExtensions } from './rule-catalog-settings.js';
import { type LocatedTestCase, ruleTests } from './rule-tests.js';
import { type DesiredState, type Family, familyOf, settingsSchema } from './schema.js';
import { runSteps, type Steps } from './steps.js';
import { type CheckedDocument, validateDocument } from './validate-document.js';

export type { SourceFile } from './read-sources.js';

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
  /** The allow-list the load was read with (env.ts): a command validating edits again uses it too. */
  allowList?: AllowList | undefined;
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

export interface ValidateOptions extends ReadOptions {
  /** The families a configuration may declare: the registry's, unless a test registers its own. */
  kinds?: readonly Kind[];
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
  const { read, variables } = yield* readerFor(sources, options);
  return yield* validateParsed(sources, read, options, variables);
}

/**
 * An environment's load: its paths in order, each path's files in order, a later path overlaying
 * the earlier ones (overlay.ts). Every file is read before any is validated, since an overlay's
 * object is validated merged with the earlier path's.
 */
export function validateLayers(layers: readonly SourceLayer[], options: ValidateOptions): ValidationResult {
  return runSteps(validatingLayers(layers, options));
}

/** `validateLayers` in steps (steps.ts). */
export function* validatingLayers(
  layers: readonly SourceLayer[],
  options: ValidateOptions,
): Steps<ValidationResult> {
  const sources = layers.flatMap((layer) => layer.sources);
  const { read, variables } = yield* readerFor(sources, options);
  const overlaid = yield* readingLayers(layers, read, options.kinds ?? KINDS);
  return yield* validateParsed(sources, overlaid.read, options, variables, overlaid.problems);
}

/** What the checks of a load have found so far. */
interface Findings {
  problems: ConfigProblem[];
  /** The checks the problems kept from running, each with why. */
  skipped: string[];
  /** The documents that passed the schema, in whole or in part. */
  valid: CheckedDocument[];
  declared: DesiredSources;
  /** Whether a document's `settings` failed the schema: merged without it, they are not all known. */
  settingsFailed: boolean;
}

/**
 * One file at a time: read, validate, declare; a fast-read document then lets go of its object
 * lists (the validated output is kept), so a large configuration is never held twice.
 */
function* validateParsed(
  sources: readonly SourceFile[],
  read: ReadFile,
  options: ValidateOptions,
  variables: LoadVariables,
  overlayProblems: readonly ConfigProblem[] = [],
): Steps<ValidationResult> {
  const files = sources.map((source) => source.file);
  const family = familyOf(options.kinds ?? KINDS);
  const found: Findings = {
    problems: [...overlayProblems],
    skipped: [],
    valid: [],
    declared: family.bySection((kind) => new DeclaredSources(kind)),
    settingsFailed: false,
  };
  for (const source of sources) {
    yield `validating ${printable(source.file)}`;
    checkFile(source, yield* read(source), found, family, options, sources.length > 1);
  }
  const merged = checkAcrossFiles(found, family, policyPinned(options));
  const { problems, skipped } = found;
  if (problems.length > 0 || merged === undefined) {
    return { ok: false, problems: sortProblems(problems), files, skipped: [...new Set(skipped)] };
  }
  const digests = new Map(sources.map((source) => [source.file, textDigest(source.text)]));
  return {
    ok: true,
    config: {
      state: desiredState(family, found.valid, merged, options.env),
      sources: found.declared,
      files,
      digests,
      variables: variables.rules,
      allowList: options.allowList,
      declaredVariables: variables.declared,
    },
  };
}

/**
 * A file's checks: one problem for a file that is no configuration; else its reading problems, its
 * `variables:` declaring credentials, and each document checked (`checkDocument`). `several`: the
 * load has other files, whose objects a file YAML cannot read is not checked against.
 */
function checkFile(
  source: SourceFile,
  parsed: ParsedFile,
  found: Findings,
  family: Family,
  options: ValidateOptions,
  several: boolean,
): void {
  const notConfiguration = notConfigurationProblem(source, parsed, family);
  if (notConfiguration !== undefined) {
    found.problems.push(notConfiguration);
    return;
  }
  for (const problem of parsed.problems) found.problems.push(problem);
  for (const document of parsed.documents) {
    for (const problem of declarationProblems(document, options)) found.problems.push(problem);
  }
  // An empty file declares nothing: only a file YAML cannot read hides objects from the checks.
  const unread = parsed.documents.length === 0 && parsed.problems.some((p) => p.message !== EMPTY_FILE);
  if (unread && several) {
    found.skipped.push(
      `the objects of ${printable(source.file)} (YAML cannot read it) against the other files`,
    );
  }
  for (const document of parsed.documents) checkDocument(document, found, family);
}

/**
 * A document validated and its objects declared. What passed the schema goes on to the checks after
 * it, even when the rest did not: every problem of a run is reported together.
 */
function checkDocument(document: ParsedDocument, found: Findings, family: Family): void {
  const { checked, problems } = validateDocument(document, family);
  for (const problem of problems) {
    if (keepProblem(document, problem)) found.problems.push(problem);
  }
  const declaring = declaredView(declarable(document, family.kinds));
  for (const sources of Object.values<DeclaredSources>(found.declared)) {
    for (const problem of sources.declare(declaring)) found.problems.push(problem);
  }
  if (checked !== undefined) found.valid.push(checked);
  for (const section of ['settings', 'manage'] as const) {
    if (!isMapping(document.data) || !Object.hasOwn(document.data, section)) continue;
    if (checked !== undefined && Object.hasOwn(checked.output, section)) continue;
    if (section === 'settings') found.settingsFailed = true;
    found.skipped.push(`what depends on the ${section} of ${printable(document.file)} (it has problems)`);
  }
}

/**
 * The checks across files, once every file is declared: renames; `settings` and `manage` merged (a
 * leaf set twice is a conflict); the declared objects against the merged scope, unless a trusted
 * ref's scope is in force (`pinned`: the work tree's globs are data then, never matched; the planner
 * holds the objects to the trusted scope); the expectation sections merged; the firewall action
 * lists against each other; the rules' conditions against the catalog and the rule tests
 * (`rulesAndTests`). Returns what was merged, or undefined after a conflict in `settings` or
 * `manage` (a problem found).
 */
function checkAcrossFiles(found: Findings, family: Family, pinned: boolean): Merged | undefined {
  const { problems, skipped } = found;
  for (const sources of Object.values<DeclaredSources>(found.declared)) {
    for (const problem of sources.renameProblems()) problems.push(problem);
  }
  const documents = found.valid.map((entry) => entry.document);
  const settings = mergeSection(documents, 'settings');
  const manage = mergeSection(documents, 'manage');
  for (const problem of [...settings.problems, ...manage.problems]) problems.push(problem);
  // With a conflict, which glob list counts is unknown. Documents left out for their own problems
  // only ever widen the merged scope, so what is found here is never a false alarm.
  const scopes = manage.problems.length === 0 ? finalManage(family, manage.merged) : undefined;
  if (scopes !== undefined && !pinned) {
    for (const problem of scopeProblems(found.valid, scopes, family.kinds)) problems.push(problem);
  }
  const expected = mergedExpectations(family.kinds, documents, problems);
  // Valid documents merged without conflict make valid settings; the action lists overlap or not
  // only once merged (two lists may be set in two files).
  const merged = settings.problems.length === 0 ? settingsSchema.parse(settings.merged) : undefined;
  if (merged !== undefined) {
    for (const problem of firewallActionProblems(documents, merged.firewall_actions)) problems.push(problem);
  }
  if (settings.problems.length > 0) skipped.push('firewall_actions conflicts (settings is set twice)');
  if (manage.problems.length > 0) {
    skipped.push('the manage scope of the declared objects (manage is set twice)');
  }
  const tests = rulesAndTests(found, merged);
  if (scopes === undefined || merged === undefined) return undefined;
  return { manage: scopes, settings: merged, expected, tests };
}

/**
 * The declared rules' operators, targets and `match` expressions against the catalog, with the
 * merged settings' extensions (operators and targets are not checked when those are unknown: set
 * twice, or a `settings` with problems, said already); and the rule tests gathered across files.
 */
function rulesAndTests(found: Findings, merged: Merged['settings'] | undefined): LocatedTestCase[] {
  const { problems, skipped, valid } = found;
  const extensions =
    merged === undefined || found.settingsFailed ? undefined : catalogExtensions({ settings: merged });
  for (const problem of catalogProblems(valid, extensions)) problems.push(problem);
  if (merged === undefined && declaresRules(valid)) {
    skipped.push('the targets and operators of application rules (settings is set twice)');
  }
  const gathered = ruleTests(valid);
  for (const problem of gathered.problems) problems.push(problem);
  return gathered.tests;
}
