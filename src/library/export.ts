/**
 * `exportState`: the live state as configuration that plans to no changes, the files
 * `wafctl export --dir DIR` writes (ops/export/), each loaded back before it is given. Written into
 * DIR only when asked, with the same checks as the CLI's (ops/export/write-directory.ts). With
 * `environment`, the firewall that environment of wafctl.yaml in `cwd` declares, as `export --env`.
 */
import { redact } from '../core/secrets.js';
import { HYDRATION_CONCURRENCY } from '../ops/defaults.js';
import { assertLoadable, assertNoToken, exportToDirectory, readLiveExport } from '../ops/export/export.js';
import { namesAKind, resolveKinds } from '../ops/export/kind-names.js';
import { schemaReference } from '../ops/export/schema-reference.js';
import { writeExportDirectory } from '../ops/export/write-directory.js';
import { apiClientOf } from './context.js';
import { selectEnvironment } from './environment.js';
import type { ExportedState, ExportOptions } from './types.js';

/** The export of the firewall of `options.connection` or `options.environment`, as `wafctl export --dir` writes it. */
export async function exportFiles(options: ExportOptions): Promise<ExportedState> {
  // A bad kind is reported before any request.
  const kinds = resolveKinds(options.kind);
  const named = namesAKind(options.kind);
  const selected = await selectEnvironment(options, ['.'], 'export');
  const api = await apiClientOf(options, selected?.connection);
  const live = await readLiveExport(api, kinds, {
    concurrency: HYDRATION_CONCURRENCY,
    ...(options.onNote && { warn: options.onNote }),
    asked: () => named,
  });
  const dir = options.dir ?? '.';
  const files = exportToDirectory(live, schemaReference(dir, { cwd: options.cwd })).map((file) =>
    options.redactSecrets ? { ...file, text: redact(file.text) } : file,
  );
  assertNoToken(files, dir, 'redactSecrets');
  const oversized = assertLoadable(files).map((file) => file.name);
  if (options.write) {
    await writeExportDirectory(dir, files, { force: options.force === true, cwd: options.cwd });
  }
  return { files, leftOut: live.leftOut.map((entry) => ({ ...entry })), oversized };
}
