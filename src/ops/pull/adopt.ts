/**
 * `wafctl pull --adopt`: the live objects in a family's scope that no file declares, written as
 * export writes them, and where each family's go (`adoptTargetOf` without an environment; with one,
 * its last path: environment.ts).
 */
import { stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Environment } from '../../config/env.js';
import { parseYamlFile } from '../../config/parse-yaml.js';
import { type LoadedConfig, sourcesOf } from '../../config/validate-sources.js';
import type { Attributes, KindName } from '../../core/model.js';
import { inScope } from '../../core/scope.js';
import type { Kind } from '../../kinds/index.js';
import { type UserDirectory, withUsernames } from '../../kinds/users.js';
import type { KindPlanInput } from '../../plan/planner.js';
import { fileNameOf } from '../export/export.js';
import { type LeftOut, selectExportable } from '../export/select.js';
import type { AdoptCandidate, AdoptTarget } from './decide.js';

/** What `--adopt` adds to the files. */
export interface Adoption {
  candidates: AdoptCandidate[];
  /** The undeclared objects export leaves out (and so does pull). */
  leftOut: LeftOut[];
  /** Where each family with candidates has them written. */
  targets: Map<KindName, AdoptTarget>;
}

/**
 * The in-scope live objects of `kinds` (`inputs`: their refresh, in the same order) that no file
 * declares, as export would write them (members by username with the user `directory`), and where
 * each family's go (`targetOf`, asked once per family with candidates, in order). A singleton section
 * (settings) has no scope to adopt into: it is left out, as it is not managed.
 */
export async function adoptionOf(
  kinds: readonly Kind[],
  inputs: readonly KindPlanInput[],
  directory: UserDirectory | undefined,
  targetOf: (kind: Kind) => Promise<AdoptTarget>,
): Promise<Adoption> {
  const adoption: Adoption = { candidates: [], leftOut: [], targets: new Map() };
  for (const [i, kind] of kinds.entries()) {
    const input = inputs[i];
    if (input === undefined || kind.singleton) continue;
    const keys = new Set(input.desired.map((d) => d.key));
    const undeclared = input.remote.filter((r) => !keys.has(r.key) && inScope(r.attributes, input.scope));
    if (undeclared.length === 0) continue;
    const selected = selectExportable(kind, undeclared);
    for (const entry of selected.leftOut) adoption.leftOut.push(entry);
    for (const object of selected.objects) {
      const named = directory === undefined ? object : withUsernames(kind, object, directory);
      adoption.candidates.push({ kind: kind.name, key: kind.keyOf(object as Attributes), object: named });
    }
    if (selected.objects.length > 0) adoption.targets.set(kind.name, await targetOf(kind));
  }
  return adoption;
}

/** The file that holds most of `kind` (the first such file on a tie), or `<kind>.yaml` in the first PATH. */
export async function adoptTargetOf(
  kind: Kind,
  config: LoadedConfig,
  from: { paths: readonly string[]; cwd: string; env: Environment },
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
  const first = from.paths[0] ?? '.';
  const isDirectory = await stat(resolve(from.cwd, first)).then(
    (info) => info.isDirectory(),
    () => false,
  );
  const dir = isDirectory ? first : dirname(first);
  const file = join(dir, fileNameOf(kind.section));
  const existing = await read(file);
  if (existing === undefined) return { file, document: 0, path: [kind.section] };
  // An existing file that declares none of the kind: the key goes into its last document.
  const documents = parseYamlFile(file, existing, from.env).documents;
  return { file, document: documents.at(-1)?.index ?? 0, path: [kind.section] };
}
