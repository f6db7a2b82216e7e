/**
 * `export --dir DIR`: the files go into DIR and nowhere else, replace only what export wrote, and
 * are written all together or not at all.
 *
 * - DIR is created level by level (`makeDirectory`) and resolved (realpath); each file's parent is
 *   DIR itself.
 * - Every target is checked before anything is written: a symbolic link is refused (writing through
 *   it would change a file outside DIR), as is a directory or any other non-regular file; a regular
 *   file without the export marker (document.ts) is someone's work and is refused unless `force`.
 * - Every file is written to a fresh temporary file in DIR and fsynced; only then are they renamed
 *   over the targets, one after the other. A rename that fails midway (a rare, local failure: the
 *   data is already on disk) is reported with the files already replaced.
 */
import { lstat, open, realpath, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { usageError } from '../../core/errors.js';
import { containsSecret } from '../../core/secrets.js';
import {
  type FileAttributes,
  type FileFaultHook,
  makeDirectory,
  syncDirectory,
  temporaryPathFor,
  writeNewFileDurably,
} from '../../files/durable-files.js';
import { EXPORT_MARKER, hasExportMarker } from './document.js';
import type { ExportFile } from './export.js';

interface Target {
  /** As the user will read it: `DIR/name` with DIR as given. */
  shown: string;
  path: string;
  text: string;
  /** The mode and owner of the export file it replaces. */
  keep?: FileAttributes;
}

const errno = (error: unknown): string => (error as NodeJS.ErrnoException).code ?? String(error);

/** The head of a file: the marker sits in its leading comment lines. */
async function headOf(path: string): Promise<string> {
  const handle = await open(path, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(4096), 0, 4096, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}

async function checkTarget(dir: string, root: string, file: ExportFile, force: boolean): Promise<Target> {
  const shown = join(dir, file.name);
  const path = join(root, file.name);
  // File names are export's own (`groups.yaml`, ...): this only guards that they stay plain names.
  if (basename(file.name) !== file.name || dirname(path) !== root) {
    throw new Error(`export file name ${JSON.stringify(file.name)} is not a plain file name`);
  }
  // assertNoToken (export.ts) refused this already, naming the line; a file must never hold it.
  if (containsSecret(file.text)) {
    throw usageError(`refusing to write ${shown}: it would contain the API token`);
  }
  const info = await lstat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw usageError(`cannot write ${shown}: ${errno(error)}`, error);
  });
  if (info === undefined) return { shown, path, text: file.text };
  const refuse = (what: string) => usageError(`refusing to write ${shown}: ${what}; nothing was written`);
  if (info.isSymbolicLink()) {
    throw refuse('it is a symbolic link, and export writes nothing outside DIR nor through links');
  }
  if (info.isDirectory()) throw refuse('it is a directory');
  if (!info.isFile()) throw refuse('it is not a regular file');
  if (!force) {
    const head = await headOf(path).catch((error: unknown) => {
      throw usageError(`cannot read ${shown}: ${errno(error)}; nothing was written`, error);
    });
    if (!hasExportMarker(head)) {
      const marker = EXPORT_MARKER.slice(0, EXPORT_MARKER.indexOf(':'));
      throw refuse(
        `export did not write it (it has no "${marker}" line), so it may hold your edits; move it away, or pass --force to replace it`,
      );
    }
  }
  return { shown, path, text: file.text, keep: { mode: info.mode & 0o7777, uid: info.uid, gid: info.gid } };
}

/**
 * Writes `files` into `dir` (created if missing), all or none; see the module comment. `fault` is
 * test-only (durable-files.ts): a full disk or a failed rename cannot be produced otherwise.
 */
export async function writeExportDirectory(
  dir: string,
  files: readonly ExportFile[],
  /** `cwd`: what a relative `dir` is relative to (messages show `dir` as given). */
  options: { force: boolean; cwd?: string; fault?: FileFaultHook },
): Promise<void> {
  const fault = options.fault ?? (() => undefined);
  const where = options.cwd === undefined ? dir : resolve(options.cwd, dir);
  let root: string;
  try {
    await makeDirectory(where);
    root = await realpath(where);
  } catch (error) {
    throw usageError(`cannot create ${dir}: ${errno(error)}`, error);
  }
  const targets: Target[] = [];
  for (const file of files) targets.push(await checkTarget(dir, root, file, options.force));

  const temps: string[] = [];
  const removeTemps = (from: number) =>
    Promise.all(temps.slice(from).map((temp) => unlink(temp).catch(() => undefined)));
  for (const target of targets) {
    const temp = temporaryPathFor(target.path);
    try {
      await writeNewFileDurably(temp, Buffer.from(target.text, 'utf8'), target.keep, fault);
    } catch (error) {
      await removeTemps(0);
      throw usageError(`cannot write ${target.shown}: ${errno(error)}; nothing was written`, error);
    }
    temps.push(temp);
  }
  for (const [i, target] of targets.entries()) {
    try {
      await fault('rename', target.path);
      await rename(temps[i] as string, target.path);
    } catch (error) {
      await removeTemps(i);
      const written = targets.slice(0, i).map((t) => t.shown);
      const rest = targets.slice(i).map((t) => t.shown);
      throw usageError(
        `cannot write ${target.shown}: ${errno(error)}; ${written.length > 0 ? `written: ${written.join(', ')}` : 'nothing was written'}; not written: ${rest.join(', ')}`,
        error,
      );
    }
  }
  const first = targets[0];
  if (first === undefined) return;
  try {
    await syncDirectory(first.path);
  } catch (error) {
    throw usageError(`cannot sync ${dir} (every file was written): ${errno(error)}`, error);
  }
}
