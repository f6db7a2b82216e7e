/**
 * `wafctl pull --env NAME`: where an environment's objects are declared. An environment reads its
 * paths in order, a later path overlaying the earlier ones (config/overlay.ts), so one object may be
 * declared several times: in the base, then in the environment's own overlay, which sets some of
 * its top-level fields. Pull writes each changed value into the declaration that set it
 * (decide.ts), so it needs every declaration of an object in path order (`declarationChains`), the
 * environment's last path (where removals of shared objects and adopted objects go:
 * `lastPathTarget`), and which other environments read a file (`sharedWith`).
 */
import { stat } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import type { Environment, VariableRules } from '../../config/env.js';
import { expandPaths } from '../../config/load.js';
import { naturalKey, type SourceLocation } from '../../config/natural-keys.js';
import { mergedFields, REMOVE } from '../../config/overlay.js';
import { parseYamlFile } from '../../config/parse-yaml.js';
import { type EnvironmentSpec, environmentPath, PROJECT_FILE, type Project } from '../../config/project.js';
import { formatPath } from '../../config/yaml-path.js';
import type { Kind } from '../../kinds/index.js';
import { fileNameOf } from '../export/export.js';
import { type AdoptTarget, type Declaration, declaredKey } from './decide.js';

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
  /** By `declaredKey(kind, key)`: the object's declarations in path order (a `remove: true` ends a chain). */
  chains: Map<string, LayeredDeclaration[]>;
  /** By kind: how many entries (removals included) each document of each file of the last path holds. */
  lastPath: Map<string, Map<string, Map<number, number>>>;
  /** The index of the last path, the environment's own. */
  lastLayer: number;
}

const isMapping = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Every declaration of every object of `kinds` (lists, not singletons: a singleton is declared in one
 * path only), read as the loader reads the files (substitution included), following the overlay
 * rules: a later path's object with the same natural key adds a declaration, `remove: true` ends
 * the chain.
 */
export async function declarationChains(
  environment: PullEnvironment,
  kinds: readonly Kind[],
  read: (file: string) => Promise<string | undefined>,
  env: Environment,
  variables: VariableRules,
): Promise<EnvironmentDeclarations> {
  const chains = new Map<string, LayeredDeclaration[]>();
  const lastPath = new Map<string, Map<string, Map<number, number>>>();
  const lists = kinds.filter((kind) => !kind.singleton);
  const last = environment.layers.length - 1;
  for (const [layer, { files }] of environment.layers.entries()) {
    for (const file of files) {
      const parsed = parseYamlFile(file, (await read(file)) ?? '', env, variables);
      for (const document of parsed.documents) {
        const data = document.data;
        if (!isMapping(data)) continue;
        for (const kind of lists) {
          const items = Object.hasOwn(data, kind.section) ? data[kind.section] : undefined;
          if (!Array.isArray(items)) continue;
          if (layer === last) {
            const byFile = lastPath.get(kind.name) ?? new Map<string, Map<number, number>>();
            const byDocument = byFile.get(file) ?? new Map<number, number>();
            byDocument.set(document.index, (byDocument.get(document.index) ?? 0) + items.length);
            byFile.set(file, byDocument);
            lastPath.set(kind.name, byFile);
          }
          items.forEach((item: unknown, index) => {
            if (!isMapping(item)) return;
            const key = naturalKey(kind, item);
            if (key === undefined) return;
            const id = declaredKey(kind.name, key);
            if (Object.hasOwn(item, REMOVE)) {
              chains.delete(id);
              return;
            }
            const nodePath = [kind.section, index];
            const { line, col } = document.locate(nodePath);
            const location: SourceLocation = {
              file,
              line,
              col,
              path: formatPath(nodePath),
              document: document.index,
              nodePath,
            };
            const chain = chains.get(id) ?? [];
            chain.push({ location, raw: item, layer });
            chains.set(id, chain);
          });
        }
      }
    }
  }
  return { chains, lastPath, lastLayer: last };
}

/** The declarations merged as the overlay merges them: a later one's top-level fields win. */
export function mergedRaw(chain: readonly Declaration[]): Record<string, unknown> {
  return mergedFields(chain.map(({ raw }) => raw));
}

/**
 * Where new entries of `kind` go in the environment's last path (its own overlay): the file there
 * that holds most of the kind (the first on a tie), else `<kind>.yaml` in it (the path itself when
 * it is a file). `lastDocument` is a file's last document, undefined when the file does not exist.
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
