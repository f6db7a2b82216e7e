/**
 * `wafctl pull --env NAME`: where an environment's objects are declared. An environment reads its
 * paths in order, a later path overlaying the earlier ones (config/overlay.ts), so one object may be
 * declared several times: in the base, then in the environment's own overlay, which sets some of
 * its top-level fields. Pull writes each changed value into the declaration that set it, or into
 * the environment's own path when that declaration is shared (decide.ts), so it needs every
 * declaration of an object in path order (`declarationChains`), the environment's last path (where
 * new overlay entries, removals of shared objects and adopted objects go: `lastPathTarget`), and
 * which other environments read a file (`sharedWith`); `withDeclarations` gives each declared object
 * what follows from them.
 */
import { stat } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import type { Environment, VariableRules } from '../../config/env.js';
import { expandPaths } from '../../config/load.js';
import { naturalKey, type SourceLocation } from '../../config/natural-keys.js';
import { mergedFields, REMOVE } from '../../config/overlay.js';
import { type ParsedDocument, parseYamlFile } from '../../config/parse-yaml.js';
import { type EnvironmentSpec, environmentPath, PROJECT_FILE, type Project } from '../../config/project.js';
import { formatPath } from '../../config/yaml-path.js';
import type { Kind } from '../../kinds/index.js';
import { fileNameOf } from '../export/export.js';
import { type AdoptTarget, type Declaration, type DeclaredObject, declaredKey } from './decide.js';
import type { NodePath } from './model.js';

/** One path of the environment, in order: the files the load read from it. */
export interface PullLayer {
  /** As the loader shows it (relative to the current directory). */
  path: string;
  files: readonly string[];
}

export interface PullEnvironment {
  name: string;
  layers: readonly PullLayer[];
  /** The root's wafctl.yaml as the loader names it: read without its `environments` key. */
  projectFile: string;
  /** The project's other environments and their paths (as the loader shows them). */
  others: readonly { name: string; paths: readonly string[] }[];
}

/**
 * The environment's paths and their files, as `loadEnvironment` reads them: a file that two paths
 * both hold is read once, in the first.
 */
export async function pullEnvironment(
  project: Project,
  environment: EnvironmentSpec,
  cwd: string,
): Promise<PullEnvironment> {
  const seen = new Set<string>();
  const layers: PullLayer[] = [];
  for (const path of environment.paths) {
    const display = environmentPath(project, path);
    const { files } = await expandPaths([display], cwd);
    const fresh = files.filter((file) => !seen.has(file.absolute));
    for (const file of fresh) seen.add(file.absolute);
    layers.push({ path: display, files: fresh.map((file) => file.display) });
  }
  return {
    name: environment.name,
    layers,
    projectFile: join(project.root, PROJECT_FILE),
    others: project.environments
      .filter((other) => other.name !== environment.name)
      .map((other) => ({
        name: other.name,
        paths: other.paths.map((path) => environmentPath(project, path)),
      })),
  };
}

/** A declaration of an object in one of the environment's paths. */
export interface LayeredDeclaration extends Declaration {
  /** Which path (index into `layers`). */
  layer: number;
}

export interface EnvironmentDeclarations {
  /**
   * By `declaredKey(kind, key)`: the object's declarations in path order (a `remove: true` ends a
   * chain); a singleton's by `declaredKey(kind, section)`.
   */
  chains: Map<string, LayeredDeclaration[]>;
  /** By list kind: how many entries (removals included) each document of each file of the last path holds. */
  lastPath: Map<string, Map<string, Map<number, number>>>;
  /** The index of the last path, the environment's own. */
  lastLayer: number;
}

const isMapping = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Every declaration of every object of `kinds`, read as the loader reads the files (substitution
 * included), following the overlay rules: a later path's object with the same natural key (a
 * singleton: the same section) adds a declaration, `remove: true` ends the chain.
 */
export async function declarationChains(
  environment: PullEnvironment,
  kinds: readonly Kind[],
  read: (file: string) => Promise<string | undefined>,
  env: Environment,
  variables: VariableRules,
): Promise<EnvironmentDeclarations> {
  const found: EnvironmentDeclarations = {
    chains: new Map(),
    lastPath: new Map(),
    lastLayer: environment.layers.length - 1,
  };
  for (const [layer, { files }] of environment.layers.entries()) {
    for (const file of files) {
      const parsed = parseYamlFile(file, (await read(file)) ?? '', env, variables);
      for (const document of parsed.documents) {
        if (!isMapping(document.data)) continue;
        const at = { file, document, data: document.data, layer };
        for (const kind of kinds) {
          if (kind.singleton) declareSingleton(found, kind, at);
          else declareList(found, kind, at);
        }
      }
    }
  }
  return found;
}

/** One document of one path, as `declarationChains` reads it. */
interface DocumentAt {
  file: string;
  document: ParsedDocument;
  data: Record<string, unknown>;
  layer: number;
}

function push(
  found: EnvironmentDeclarations,
  id: string,
  at: DocumentAt,
  nodePath: NodePath,
  raw: Record<string, unknown>,
) {
  const { line, col } = at.document.locate(nodePath);
  const location: SourceLocation = {
    file: at.file,
    line,
    col,
    path: formatPath(nodePath),
    document: at.document.index,
    nodePath,
  };
  const chain = found.chains.get(id) ?? [];
  chain.push({ location, raw, layer: at.layer });
  found.chains.set(id, chain);
}

/** A singleton's section (one object, keyed by the section): a declaration of its own. */
function declareSingleton(found: EnvironmentDeclarations, kind: Kind, at: DocumentAt): void {
  const section = Object.hasOwn(at.data, kind.section) ? at.data[kind.section] : undefined;
  if (isMapping(section)) push(found, declaredKey(kind.name, kind.section), at, [kind.section], section);
}

/** A list section's objects, counted when in the last path (where new entries go: `lastPathTarget`). */
function declareList(found: EnvironmentDeclarations, kind: Kind, at: DocumentAt): void {
  const items = Object.hasOwn(at.data, kind.section) ? at.data[kind.section] : undefined;
  if (!Array.isArray(items)) return;
  if (at.layer === found.lastLayer) {
    const byFile = found.lastPath.get(kind.name) ?? new Map<string, Map<number, number>>();
    const byDocument = byFile.get(at.file) ?? new Map<number, number>();
    byDocument.set(at.document.index, (byDocument.get(at.document.index) ?? 0) + items.length);
    byFile.set(at.file, byDocument);
    found.lastPath.set(kind.name, byFile);
  }
  items.forEach((item: unknown, index) => {
    if (!isMapping(item)) return;
    const key = naturalKey(kind, item);
    if (key === undefined) return;
    const id = declaredKey(kind.name, key);
    if (Object.hasOwn(item, REMOVE)) found.chains.delete(id);
    else push(found, id, at, [kind.section, index], item);
  });
}

/** The declarations merged as the overlay merges them: a later one's top-level fields win. */
function mergedRaw(chain: readonly Declaration[]): Record<string, unknown> {
  return mergedFields(chain.map(({ raw }) => raw));
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
export async function withDeclarations(
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
 * Where new entries of `kind` go in the environment's last path (its own overlay): the file there
 * that holds most of the kind (the first on a tie), else `<kind>.yaml` in it (the path itself when
 * it is a file; a singleton's section always goes there, as no file of that path declares it).
 * `lastDocument` is a file's last document, undefined when the file does not exist.
 */
export async function lastPathTarget(
  kind: Kind,
  environment: PullEnvironment,
  declarations: EnvironmentDeclarations,
  cwd: string,
  lastDocument: (file: string) => Promise<number | undefined>,
): Promise<AdoptTarget> {
  const layer = environment.layers.at(-1);
  const counts = declarations.lastPath.get(kind.name) ?? new Map<string, Map<number, number>>();
  const total = (file: string) => [...(counts.get(file)?.values() ?? [])].reduce((a, b) => a + b, 0);
  const best = (layer?.files ?? []).filter((file) => total(file) > 0).sort((a, b) => total(b) - total(a))[0];
  if (best !== undefined) {
    const documents = [...(counts.get(best) ?? new Map<number, number>())].sort((a, b) => b[1] - a[1]);
    return { file: best, document: documents[0]?.[0] ?? 0, path: [kind.section] };
  }
  const path = layer?.path ?? '.';
  const isDirectory = await stat(resolve(cwd, path)).then(
    (info) => info.isDirectory(),
    () => false,
  );
  const file = isDirectory ? join(path, fileNameOf(kind.section)) : path;
  const document = await lastDocument(file);
  return { file, document: document ?? 0, path: [kind.section] };
}

/** The other environments whose paths include `file` (a change to it applies to them too). */
export function sharedWith(environment: PullEnvironment, file: string, cwd: string): string[] {
  const absolute = resolve(cwd, file);
  const within = (path: string) => {
    const at = resolve(cwd, path);
    return absolute === at || absolute.startsWith(at.endsWith(sep) ? at : at + sep);
  };
  return environment.others.filter((other) => other.paths.some(within)).map((other) => other.name);
}
