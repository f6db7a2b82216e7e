/**
 * The last check of `wafctl pull` before anything is written: the edited configuration must load as
 * the command loaded it (with `--env`, as the environment loads its paths).
 */
import { formatProblem } from '../../config/problems.js';
import type { ReadOptions } from '../../config/read-sources.js';
import { type SourceFile, validateLayers, validateSources } from '../../config/validate-sources.js';
import { WafctlError } from '../../core/errors.js';
import type { PullEnvironment } from './environment.js';
import type { FileChange } from './model.js';

/**
 * The edited configuration must load, or nothing is written: a live value the configuration format
 * cannot hold would otherwise leave the user with files that no command can read.
 */
export function assertLoads(
  texts: ReadonlyMap<string, string>,
  files: readonly FileChange[],
  read: Pick<ReadOptions, 'env' | 'allowList'>,
  environment: PullEnvironment | undefined,
): void {
  if (files.length === 0) return;
  const changed = new Map(files.map((f) => [f.file, f.after]));
  const sources = [...texts].map(([file, text]) => ({ file, text: changed.get(file) ?? text }));
  for (const f of files) if (!texts.has(f.file)) sources.push({ file: f.file, text: f.after });
  const result =
    environment === undefined
      ? validateSources(sources, read)
      : validateLayers(layersOf(environment, texts, changed), read);
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
