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
 * validated again before anything is written (`assertLoads`). Reading the data from the editing
 * parse instead would skip substitution; keeping the loader's documents would need the loader to
 * hand them over (and hold every object list of a run): not done.
 *
 * With `--env` (`environment`), the files are the environment's paths, and an object may be
 * declared in several of them (environment.ts): each declaration is read, the changed fields go
 * into the one that set them unless other environments read it too (then into the last path, the
 * environment's own, unless `writeShared`: decide.ts), new objects and removals of shared ones into
 * the last path, and the edited files are validated as the environment loads them (`validateLayers`).
 */

import { readFile, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { ApiClient } from '../../api/index.js';
import type { Environment } from '../../config/env.js';
import { REMOVE } from '../../config/overlay.js';
import { parseYamlFile } from '../../config/parse-yaml.js';
import { formatProblem } from '../../config/problems.js';
import { declaredObjects, scopeOf } from '../../config/schema.js';
import {
  type LoadedConfig,
  type SourceFile,
  sourcesOf,
  textDigest,
  validateLayers,
  validateSources,
} from '../../config/validate-sources.js';
import { sameJson } from '../../core/canonical.js';
import { WafctlError } from '../../core/errors.js';
import type { Attributes, Change, KindName } from '../../core/model.js';
import { inScope } from '../../core/scope.js';
import type { Kind } from '../../kinds/index.js';
import { type UserDirectory, userDirectoryOnce, withUsernames } from '../../kinds/users.js';
import { planChanges } from '../../plan/planner.js';
import { omitDefaults } from '../export/defaults.js';
import { fileNameOf } from '../export/export.js';
import { schemaReference } from '../export/schema-reference.js';
import { type LeftOut, selectExportable } from '../export/select.js';
import { hasMembers, planOptions, refreshInputs } from '../refresh.js';
import {
  type AdoptCandidate,
  type AdoptTarget,
  type DeclaredObject,
  decidePull,
  declaredKey,
  type PullDecision,
  type PullRules,
} from './decide.js';
import {
  declarationChains,
  type EnvironmentDeclarations,
  lastPathTarget,
  mergedRaw,
  type PullEnvironment,
  sharedWith,
} from './environment.js';
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

export interface FileChange {
  file: string;
  before: string;
  after: string;
  /** The file did not exist: `--adopt` creates it. */
  created: boolean;
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
}

/**
 * How `kind`'s values are written and compared. With the user directory, members (`userFields`) are
 * written by username, as export writes them (unless the file's list is written by id), and a file's
 * member means a live one when it resolves to that user's id (a file may name `alice` where the
 * firewall holds her id).
 */
function rulesOf(kind: Kind, users: UserDirectory | undefined): PullRules {
  const schema = kind.schema;
  const isMembers = (field: string) => users !== undefined && (kind.userFields ?? []).includes(field);
  return {
    fileValue(field, value, raw) {
      // Members by username, unless the file writes this list by id: the author's style is kept.
      const listed = raw[field];
      const byId = Array.isArray(listed) && listed.some((m) => typeof m === 'string' && users?.isId(m));
      const named =
        isMembers(field) && users !== undefined && !byId
          ? withUsernames(kind, { [field]: value }, users)[field]
          : value;
      const kept = omitDefaults({ [field]: named }, schema) as Record<string, unknown>;
      return Object.hasOwn(kept, field) ? kept[field] : named;
    },
    sameMember(field, raw, member, live) {
      if (isMembers(field) && users !== undefined && typeof member === 'string') {
        const found = users.resolve(member);
        return 'id' in found && found.id === live;
      }
      const parsed = schema.safeParse({ ...raw, [field]: [member] });
      if (!parsed.success) return false;
      const members = kind.attributes(parsed.data)[field];
      return Array.isArray(members) && members.length === 1 && sameJson(members[0], live);
    },
  };
}

function valueAt(data: unknown, path: readonly (string | number)[]): unknown {
  let current = data;
  for (const step of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string | number, unknown>)[step];
  }
  return current;
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
function fileCache(digests: ReadonlyMap<string, string>, cwd: string) {
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

/** The file that holds most of `kind` (the first such file on a tie), or `<kind>.yaml` in the first PATH. */
async function adoptTargetOf(
  kind: Kind,
  config: LoadedConfig,
  options: PullOptions,
  read: (file: string) => Promise<string | undefined>,
): Promise<AdoptTarget> {
  const counts = new Map<string, Map<number, number>>();
  for (const location of sourcesOf(config, kind).values()) {
    const documents = counts.get(location.file) ?? new Map<number, number>();
    documents.set(location.document, (documents.get(location.document) ?? 0) + 1);
    counts.set(location.file, documents);
  }
  const total = (file: string) => [...(counts.get(file)?.values() ?? [])].reduce((a, b) => a + b, 0);
  const best = config.files.filter((file) => counts.has(file)).sort((a, b) => total(b) - total(a))[0];
  if (best !== undefined) {
    const documents = [...(counts.get(best) ?? new Map<number, number>())].sort((a, b) => b[1] - a[1]);
    return { file: best, document: documents[0]?.[0] ?? 0, path: [kind.section] };
  }
  const first = options.paths[0] ?? '.';
  const isDirectory = await stat(resolve(options.cwd, first)).then(
    (info) => info.isDirectory(),
    () => false,
  );
  const dir = isDirectory ? first : dirname(first);
  const file = join(dir, fileNameOf(kind.section));
  const existing = await read(file);
  if (existing === undefined) return { file, document: 0, path: [kind.section] };
  // An existing file that declares none of the kind: the key goes into its last document.
  const documents = parseYamlFile(file, existing, options.env).documents;
  return { file, document: documents.at(-1)?.index ?? 0, path: [kind.section] };
}

export async function preparePull(
  config: LoadedConfig,
  api: ApiClient,
  requested: PullOptions,
): Promise<PullResult> {
  // Without --adopt, a kind no file declares has nothing to pull: it is not even read, unless its
  // scope prunes (its live objects are then what the next apply deletes, which pull must say).
  const kinds = requested.adopt
    ? requested.kinds
    : requested.kinds.filter(
        (kind) => declaredObjects(config.state, kind).length > 0 || scopeOf(config.state, kind).prune,
      );
  const options = { ...requested, kinds };
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
  const plan = planChanges(inputs, planOptions(config));
  const read = fileCache(config.digests, options.cwd);

  const declared = new Map<string, DeclaredObject>();
  const parsed = new Map<string, ReturnType<typeof parseYamlFile>>();
  // The declared objects as refreshInputs made them (one per object of config.state, keyed).
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

  const environment = options.environment;
  const lastDocument = async (file: string) => {
    const text = await read(file);
    if (text === undefined) return undefined;
    return parseYamlFile(file, text, options.env).documents.at(-1)?.index ?? 0;
  };
  let layered: EnvironmentDeclarations | undefined;
  if (environment !== undefined) {
    const found = await declarationChains(environment, options.kinds, read, options.env, config.variables);
    layered = found;
    await withDeclarations(declared, options.kinds, found, {
      target: (kind) => lastPathTarget(kind, environment, found, options.cwd, lastDocument),
      sharedWith: (file) => sharedWith(environment, file, options.cwd),
    });
  }

  const adopt: AdoptCandidate[] = [];
  const leftOut: LeftOut[] = [];
  const targets = new Map<KindName, AdoptTarget>();
  if (options.adopt) {
    for (const [i, kind] of options.kinds.entries()) {
      const input = inputs[i];
      // A singleton section (settings) has no scope to adopt into: left out, it is not managed.
      if (input === undefined || kind.singleton) continue;
      const keys = new Set(input.desired.map((d) => d.key));
      const undeclared = input.remote.filter((r) => !keys.has(r.key) && inScope(r.attributes, input.scope));
      if (undeclared.length === 0) continue;
      const selected = selectExportable(kind, undeclared);
      for (const entry of selected.leftOut) leftOut.push(entry);
      for (const object of selected.objects) {
        const named = directory === undefined ? object : withUsernames(kind, object, directory);
        adopt.push({ kind: kind.name, key: kind.keyOf(object as Attributes), object: named });
      }
      if (selected.objects.length > 0) {
        targets.set(
          kind.name,
          environment === undefined || layered === undefined
            ? await adoptTargetOf(kind, config, options, read)
            : await lastPathTarget(kind, environment, layered, options.cwd, lastDocument),
        );
      }
    }
  }

  const texts = new Map<string, string>();
  for (const file of config.files) texts.set(file, (await read(file)) ?? '');
  // One parse per file for the editing job: every value's origin and the edits read the same one.
  const editable = new Map<string, Source>();
  const sourceOf = (file: string, text: string): Source => {
    let source = editable.get(file);
    if (source === undefined || source.text !== text) {
      source = new Source(text);
      editable.set(file, source);
    }
    return source;
  };
  const decision = decidePull({
    plan,
    declared,
    rules: Object.fromEntries(options.kinds.map((kind) => [kind.name, rulesOf(kind, directory)])) as Record<
      KindName,
      PullRules
    >,
    adopt,
    adoptTarget: (kind) => {
      const target = targets.get(kind);
      if (target === undefined) throw new Error(`no adopt target for ${kind}`);
      return target;
    },
    origin: (file, document, path) => valueOrigin(sourceOf(file, texts.get(file) ?? ''), document, path),
    writeShared: options.writeShared === true,
  });

  const files: FileChange[] = [];
  for (const [file, edits] of decision.edits) {
    const existing = texts.get(file) ?? (await read(file));
    const fresh = existing === undefined;
    const before = existing ?? '';
    const start = fresh
      ? `# yaml-language-server: $schema=${schemaReference(dirname(file), { cwd: options.cwd })}\n`
      : before;
    const after = editYaml(sourceOf(file, start), edits);
    if (after !== before) files.push({ file, before, after, created: existing === undefined });
  }
  assertLoads(texts, files, options.env, environment);
  // What the next plan deletes and the files will still not declare: prunes (a duplicate of a
  // declared object is deleted whatever the scope, and is no object to adopt).
  const adopted = new Set(adopt.map((candidate) => declaredKey(candidate.kind, candidate.key)));
  const unadopted = plan.changes
    .filter(
      (change) =>
        change.action === 'delete' &&
        change.duplicateOf === undefined &&
        !adopted.has(declaredKey(change.kind, change.key)),
    )
    .map(({ kind, key }) => ({ kind, key }));
  const shared = environment === undefined ? [] : sharedFiles(environment, files, options.cwd);
  return { decision, files, leftOut, unadopted, shared };
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

/** Where `withDeclarations` puts what leaves an environment's shared paths, and who shares a file. */
interface EnvironmentPlaces {
  /** Where new entries of a kind go in the environment's own (last) path. */
  target: (kind: Kind) => Promise<AdoptTarget>;
  /** The other environments that read a file. */
  sharedWith: (file: string) => readonly string[];
}

/**
 * The declared objects of an environment, with every declaration in path order (`declarations`,
 * `raw` merged, each in an earlier path marked with the other environments that read it), where a
 * change kept out of a shared path goes (`own`: the object's declaration in the last path, else a
 * new overlay entry there), and how each leaves the files when deleted live (`removal`): an object
 * whose last declaration is in an earlier path is removed by a `remove: true` entry in the last path,
 * one whose last declaration overrides an earlier one by turning that override into the removal; an
 * object only the last path declares is removed as without environments.
 */
async function withDeclarations(
  declared: Map<string, DeclaredObject>,
  kinds: readonly Kind[],
  layered: EnvironmentDeclarations,
  places: EnvironmentPlaces,
): Promise<void> {
  const byName = new Map(kinds.map((kind) => [kind.name as string, kind]));
  const targets = new Map<string, AdoptTarget>();
  const targetOf = async (kind: Kind) => {
    const target = targets.get(kind.name) ?? (await places.target(kind));
    targets.set(kind.name, target);
    return target;
  };
  for (const [id, object] of declared) {
    const chain = layered.chains.get(id);
    const kind = byName.get(object.kind);
    const own = chain?.at(-1);
    if (chain === undefined || kind === undefined || own === undefined) continue;
    // The loader's location and this reading's must be the same declaration.
    if (own.location.file !== object.location.file || own.location.path !== object.location.path) continue;
    object.declarations = chain.map(({ location, raw, layer }) => {
      const shared = layer < layered.lastLayer ? places.sharedWith(location.file) : [];
      return { location, raw, ...(shared.length > 0 ? { sharedWith: shared } : {}) };
    });
    if (chain.length > 1) object.raw = mergedRaw(chain);
    if (own.layer === layered.lastLayer) {
      object.own = { op: 'declared' };
      // (A singleton is never deleted live: it always exists on the server.)
      if (chain.length > 1 && !kind.singleton) object.removal = { op: 'override', keep: kind.keyFields };
      continue;
    }
    const target = await targetOf(kind);
    if (kind.singleton) {
      object.own = { op: 'section', target };
      continue;
    }
    const key = Object.fromEntries(kind.keyFields.map((field) => [field, object.raw[field]]));
    object.own = { op: 'append', target, key };
    object.removal = { op: 'append', target, entry: { ...key, [REMOVE]: true } };
  }
}

/**
 * The edited configuration must load, or nothing is written: a live value the configuration format
 * cannot hold would otherwise leave the user with files that no command can read.
 */
function assertLoads(
  texts: ReadonlyMap<string, string>,
  files: readonly FileChange[],
  env: Environment,
  environment: PullEnvironment | undefined,
): void {
  if (files.length === 0) return;
  const changed = new Map(files.map((f) => [f.file, f.after]));
  const sources = [...texts].map(([file, text]) => ({ file, text: changed.get(file) ?? text }));
  for (const f of files) if (!texts.has(f.file)) sources.push({ file: f.file, text: f.after });
  const result =
    environment === undefined
      ? validateSources(sources, { env })
      : validateLayers(layersOf(environment, texts, changed), { env });
  if (result.ok) return;
  const problems = result.problems.slice(0, 5).map(formatProblem).join('\n');
  throw new WafctlError(
    'CONFIG_INVALID',
    `pull would write files that do not load, so nothing was written:\n${problems}`,
  );
}

/** The environment's paths with the edited texts, a created file in the last path (where pull creates them). */
function layersOf(
  environment: PullEnvironment,
  texts: ReadonlyMap<string, string>,
  changed: ReadonlyMap<string, string>,
): { path: string; sources: SourceFile[] }[] {
  const last = environment.layers.length - 1;
  return environment.layers.map((layer, index) => {
    const files = [...layer.files];
    if (index === last) {
      for (const file of changed.keys()) if (!texts.has(file)) files.push(file);
      files.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    }
    const sources = files.map(
      (file): SourceFile => ({
        file,
        text: changed.get(file) ?? texts.get(file) ?? '',
        ...(file === environment.projectFile ? { project: true } : {}),
      }),
    );
    return { path: layer.path, sources };
  });
}
