/**
 * `wafctl pull`, the I/O half: refresh the live state, plan (configuration -> live), decide the
 * edits (decide.ts, pure), apply them to the files' texts (yaml-edit.ts), and check that the edited
 * configuration still loads. Nothing is written here: the command shows or writes the result.
 *
 * What pull reads, and with what. Loading (`loadDesiredState`, before pull) validated each file
 * with one reader (config/validate-sources.ts) and kept no documents: a large configuration is not
 * held twice. Pull then reads the files it edits for two more jobs, each with yaml: a file that
 * holds a declared object is read as the loader reads it (`parseYamlFile`: substitution included)
 * for the object's data as written, and every file is parsed once with its source tokens for the
 * editing job (`Source`: each value's origin and the byte-faithful splices). The edited texts are
 * validated again before anything is written (`assertLoads`, validate-edits.ts). Reading the data
 * from the editing parse instead would skip substitution; keeping the loader's documents would need
 * the loader to hand them over (and hold every object list of a run): not done.
 *
 * With `--env` (`environment`), the files are the environment's paths, and an object may be
 * declared in several of them (environment.ts): each declaration is read, the changed fields go
 * into the one that set them unless other environments read it too (then into the last path, the
 * environment's own, unless `writeShared`: decide.ts), new objects and removals of shared ones into
 * the last path, and the edited files are validated as the environment loads them (`validateLayers`).
 */

import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { ApiClient } from '../../api/index.js';
import type { Environment } from '../../config/env.js';
import { parseYamlFile } from '../../config/parse-yaml.js';
import { declaredObjects, scopeOf } from '../../config/schema.js';
import { type LoadedConfig, sourcesOf, textDigest } from '../../config/validate-sources.js';
import { WafctlError } from '../../core/errors.js';
import type { Change, KindName, Plan } from '../../core/model.js';
import type { Kind } from '../../kinds/index.js';
import { type UserDirectory, userDirectoryOnce } from '../../kinds/users.js';
import { type KindPlanInput, planChanges } from '../../plan/planner.js';
import { schemaReference } from '../export/schema-reference.js';
import type { LeftOut } from '../export/select.js';
import { hasMembers, planOptions, refreshInputs } from '../refresh.js';
import { type Adoption, adoptionOf, adoptTargetOf } from './adopt.js';
import { declareCatalogNames } from './catalog-settings.js';
import { type PullCredit, pullCredits } from './credits.js';
import {
  type AdoptCandidate,
  type AdoptTarget,
  type DeclaredObject,
  decidePull,
  declaredKey,
  type PullDecision,
} from './decide.js';
import {
  declarationChains,
  type EnvironmentDeclarations,
  lastPathTarget,
  type PullEnvironment,
  sharedWith,
  withDeclarations,
} from './environment.js';
import type { FileChange } from './model.js';
import { pullRules } from './rules.js';
import { assertLoads } from './validate-edits.js';
import { editYaml, valueOrigin } from './yaml-edit.js';
import { Source } from './yaml-source.js';

export interface PullOptions {
  /** The PATHs the configuration was loaded from (the first one receives new files). */
  paths: readonly string[];
  kinds: readonly Kind[];
  adopt: boolean;
  concurrency: number;
  /** A note for the user (one line, on stderr). */
  warn?: (line: string) => void;
  env: Environment;
  /** What the relative file names of the configuration (and `paths`) are relative to. */
  cwd: string;
  /**
   * With `--env NAME`: the environment the configuration was loaded from (`loadEnvironment`; `env`
   * then carries its vars). Its last path receives new objects and removals of shared ones.
   */
  environment?: PullEnvironment;
  /**
   * With `environment`: write a changed field into the declaration that sets it even when other
   * environments read that file (`--write-shared`); by default it is kept in the last path.
   */
  writeShared?: boolean;
}

export interface PullResult {
  decision: PullDecision;
  files: FileChange[];
  leftOut: LeftOut[];
  /**
   * Live objects in a pruned scope that no file declares and that this pull does not adopt (without
   * `--adopt`; with it, those it could not adopt): the next plan deletes them. In plan order.
   */
  unadopted: Pick<Change, 'kind' | 'key'>[];
  /** With an environment: each changed file that other environments read too, and their names. */
  shared: { file: string; environments: string[] }[];
  /** Who made the hand changes pulled, and when, newest first (credits.ts). */
  credits: PullCredit[];
}

/** Reads a file of the configuration (or one pull may create); undefined when it does not exist. */
type ReadFile = (file: string) => Promise<string | undefined>;

/**
 * Prepares a pull: refreshes the live state and plans, reads where each object is declared (with an
 * environment, every declaration), finds what `--adopt` adds, decides the edits and makes them on
 * the files' texts, and checks that the edited configuration loads. Nothing is written.
 */
export async function preparePull(
  config: LoadedConfig,
  api: ApiClient,
  requested: PullOptions,
): Promise<PullResult> {
  const options = { ...requested, kinds: kindsToRead(config, requested) };
  const { inputs, plan, directory } = await refreshLive(config, api, options);
  const read = fileCache(config.digests, options.cwd);
  const declared = await readDeclared(config, options, inputs, read);
  const { environment } = options;
  const layered =
    environment === undefined
      ? undefined
      : await declarationChains(environment, options.kinds, read, options.env, config.variables);
  const targetOf = newEntryTargets(config, options, layered, read);
  if (environment !== undefined && layered !== undefined) {
    await withDeclarations(declared, options.kinds, layered, {
      target: targetOf,
      sharedWith: (file) => sharedWith(environment, file, options.cwd),
    });
  }
  const adoption: Adoption = options.adopt
    ? await adoptionOf(options.kinds, inputs, directory, targetOf)
    : { candidates: [], leftOut: [], targets: new Map() };
  const texts = new Map<string, string>();
  for (const file of config.files) texts.set(file, (await read(file)) ?? '');
  const sourceOf = editingSources();
  const adoptTarget = (kind: KindName): AdoptTarget => {
    const target = adoption.targets.get(kind);
    if (target === undefined) throw new Error(`no adopt target for ${kind}`);
    return target;
  };
  const decision = decidePull({
    plan,
    declared,
    rules: pullRules(options.kinds, directory),
    adopt: adoption.candidates,
    adoptTarget,
    origin: (file, document, path) => valueOrigin(sourceOf(file, texts.get(file) ?? ''), document, path),
    writeShared: options.writeShared === true,
  });
  // Names the written rules use beyond the catalog and the settings are declared too.
  declareCatalogNames(
    { config, plan, decision, declared, adopted: adoption.candidates, adoptTarget, texts, env: options.env },
    options.warn,
  );
  const files = await editedFiles(decision, texts, read, sourceOf, options.cwd);
  assertLoads(texts, files, { env: options.env, allowList: config.allowList }, environment);
  const unadopted = unadoptedOf(plan, adoption.candidates);
  const shared = environment === undefined ? [] : sharedFiles(environment, files, options.cwd);
  const credits = pullCredits(plan, inputs, { conflicts: decision.conflicts, adopted: adoption.candidates });
  return { decision, files, leftOut: adoption.leftOut, unadopted, shared, credits };
}

/**
 * The kinds to read. Without --adopt, a kind no file declares has nothing to pull: it is not even
 * read, unless its scope prunes (its live objects are then what the next apply deletes, which pull
 * must say).
 */
function kindsToRead(config: LoadedConfig, { adopt, kinds }: PullOptions): readonly Kind[] {
  if (adopt) return kinds;
  return kinds.filter(
    (kind) => declaredObjects(config.state, kind).length > 0 || scopeOf(config.state, kind).prune,
  );
}

/**
 * The refresh of `options.kinds` (in order), the plan (configuration -> live), and the user
 * directory when it was read.
 */
async function refreshLive(
  config: LoadedConfig,
  api: ApiClient,
  options: PullOptions,
): Promise<{ inputs: KindPlanInput[]; plan: Plan; directory: UserDirectory | undefined }> {
  const { kinds } = options;
  // Read once, by refresh (to resolve the files' usernames) and here (to write usernames back).
  const users = userDirectoryOnce(api);
  const inputs = await refreshInputs(
    config,
    api,
    { concurrency: options.concurrency, users, ...(options.warn ? { warn: options.warn } : {}) },
    kinds,
  );
  // Only for a family with members that has objects: one skipped as absent has none, and a token
  // that may not read it (403) may not read the user directory either.
  const directory = kinds.some((kind, i) => hasMembers(kind, inputs[i])) ? await users() : undefined;
  return { inputs, plan: planChanges(inputs, planOptions(config)), directory };
}

/**
 * The declared objects as refreshInputs made them (one per object of config.state), by
 * `declaredKey`, each with its data as its file writes it, read as the loader reads it (one parse
 * per file, substitution included).
 */
async function readDeclared(
  config: LoadedConfig,
  options: PullOptions,
  inputs: readonly KindPlanInput[],
  read: ReadFile,
): Promise<Map<string, DeclaredObject>> {
  const declared = new Map<string, DeclaredObject>();
  const parsed = new Map<string, ReturnType<typeof parseYamlFile>>();
  for (const [i, kind] of options.kinds.entries()) {
    for (const object of inputs[i]?.desired ?? []) {
      const { key } = object;
      const location = sourcesOf(config, kind).get(key);
      if (location === undefined) continue;
      if (!parsed.has(location.file)) {
        parsed.set(
          location.file,
          parseYamlFile(location.file, (await read(location.file)) ?? '', options.env, config.variables),
        );
      }
      const document = parsed.get(location.file)?.documents.find((d) => d.index === location.document);
      const raw = valueAt(document?.data, location.nodePath);
      if (raw === null || typeof raw !== 'object') continue;
      declared.set(declaredKey(kind.name, key), {
        kind: kind.name,
        key,
        location,
        raw: raw as Record<string, unknown>,
        protect: object.protect,
      });
    }
  }
  return declared;
}

function valueAt(data: unknown, path: readonly (string | number)[]): unknown {
  let current = data;
  for (const step of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string | number, unknown>)[step];
  }
  return current;
}

/**
 * Where new entries of a kind go (adopted objects; with an environment, also its new overlay
 * entries and removals of shared objects): with an environment, its last path (`layered`: its
 * declarations); without, the file that holds most of the kind.
 */
function newEntryTargets(
  config: LoadedConfig,
  options: PullOptions,
  layered: EnvironmentDeclarations | undefined,
  read: ReadFile,
): (kind: Kind) => Promise<AdoptTarget> {
  const { environment } = options;
  if (environment === undefined || layered === undefined) {
    return (kind) => adoptTargetOf(kind, config, options, read);
  }
  const lastDocument = async (file: string) => {
    const text = await read(file);
    if (text === undefined) return undefined;
    return parseYamlFile(file, text, options.env).documents.at(-1)?.index ?? 0;
  };
  return (kind) => lastPathTarget(kind, environment, layered, options.cwd, lastDocument);
}

/**
 * One parse per file for the editing job: every value's origin and the edits read the same one (a
 * file is parsed again only for another text: a created file's first line).
 */
function editingSources(): (file: string, text: string) => Source {
  const editable = new Map<string, Source>();
  return (file, text) => {
    let source = editable.get(file);
    if (source === undefined || source.text !== text) {
      source = new Source(text);
      editable.set(file, source);
    }
    return source;
  };
}

/**
 * The decision's edits made on the files' texts (a new file starts with its schema line); a file the
 * edits leave as it was is left out.
 */
async function editedFiles(
  decision: PullDecision,
  texts: ReadonlyMap<string, string>,
  read: ReadFile,
  sourceOf: (file: string, text: string) => Source,
  cwd: string,
): Promise<FileChange[]> {
  const files: FileChange[] = [];
  for (const [file, edits] of decision.edits) {
    const existing = texts.get(file) ?? (await read(file));
    const fresh = existing === undefined;
    const before = existing ?? '';
    const start = fresh
      ? `# yaml-language-server: $schema=${schemaReference(dirname(file), { cwd })}\n`
      : before;
    const after = editYaml(sourceOf(file, start), edits);
    if (after !== before) files.push({ file, before, after, created: existing === undefined });
  }
  return files;
}

/**
 * What the next plan deletes and the files will still not declare: prunes (a duplicate of a
 * declared object is deleted whatever the scope, and is no object to adopt).
 */
function unadoptedOf(plan: Plan, adopted: readonly AdoptCandidate[]): Pick<Change, 'kind' | 'key'>[] {
  const keys = new Set(adopted.map((candidate) => declaredKey(candidate.kind, candidate.key)));
  return plan.changes
    .filter(
      (change) =>
        change.action === 'delete' &&
        change.duplicate_of === undefined &&
        !keys.has(declaredKey(change.kind, change.key)),
    )
    .map(({ kind, key }) => ({ kind, key }));
}

/** The changed files other environments read too (in the order of `files`). */
function sharedFiles(
  environment: PullEnvironment,
  files: readonly FileChange[],
  cwd: string,
): { file: string; environments: string[] }[] {
  return files
    .map((change) => ({ file: change.file, environments: sharedWith(environment, change.file, cwd) }))
    .filter((entry) => entry.environments.length > 0);
}

/** The refusal when a file is not the text pull planned on: its positions would point at other values. */
function changedSinceRead(file: string): WafctlError {
  const message = `${file} changed since pull read it; nothing was written, run pull again`;
  return new WafctlError('PLAN_REFUSED', message, { userFault: true });
}

async function readIfExists(file: string, cwd: string): Promise<string | undefined> {
  return readFile(resolve(cwd, file), 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw new WafctlError('USAGE', `cannot read ${file}: ${error.code ?? String(error)}`, {
      userFault: true,
    });
  });
}

/**
 * Reads each file once; a file that does not exist reads as undefined. A configuration file must
 * still be the text the configuration was loaded from (`digests`): the plan and every node path come
 * from that text, and applied to an edited file they would land on other objects.
 */
function fileCache(digests: ReadonlyMap<string, string>, cwd: string): ReadFile {
  const texts = new Map<string, string | undefined>();
  return async (file: string): Promise<string | undefined> => {
    if (!texts.has(file)) {
      const text = await readIfExists(file, cwd);
      const digest = digests.get(file);
      if (digest !== undefined && (text === undefined || textDigest(text) !== digest)) {
        throw changedSinceRead(file);
      }
      texts.set(file, text);
    }
    return texts.get(file);
  };
}

/**
 * Immediately before writing: every file still holds the text the edits were made on (a created
 * file still does not exist), or nothing is written at all.
 */
export async function assertUnchanged(files: readonly FileChange[], cwd: string): Promise<void> {
  for (const file of files) {
    const now = await readIfExists(file.file, cwd);
    if (now !== (file.created ? undefined : file.before)) throw changedSinceRead(file.file);
  }
}
