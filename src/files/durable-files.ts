/**
 * File operations made durable (fsync) before they count: the emulator's state file and journal,
 * the configuration files `pull` rewrites (cli/output.ts) and the files `export --dir` writes. Each
 * is preceded by an optional fault hook: a full disk or a failing device cannot be produced in CI
 * without root, so tests make an operation throw ENOSPC/EIO there instead (test-only).
 */
import { randomBytes } from 'node:crypto';
import { type FileHandle, mkdir, open, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';

export type FileOperation = 'write' | 'sync' | 'rename' | 'truncate' | 'unlink';

/**
 * Test-only: called (and awaited) before each state-file operation with the path it touches;
 * throwing (e.g. an Error with `code: 'ENOSPC'`) makes that operation fail as the disk would, and
 * returning a promise holds the operation until it settles (a slow disk).
 */
export type FileFaultHook = (operation: FileOperation, path: string) => void | Promise<void>;

const noFaults: FileFaultHook = () => undefined;

/** Makes a directory entry (a created, renamed or deleted file) durable; best effort where unsupported. */
export async function syncDirectory(path: string, fault: FileFaultHook = noFaults): Promise<void> {
  await fault('sync', dirname(path));
  let handle: FileHandle | undefined;
  try {
    handle = await open(dirname(path), 'r');
    await handle.sync();
  } catch (error) {
    // Some platforms (Windows) and file systems cannot open or fsync a directory; the rename is
    // still atomic there, only its durability across a power loss is the platform's.
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL' && code !== 'ENOTSUP') throw error;
  } finally {
    await handle?.close();
  }
}

async function writeAll(handle: FileHandle, data: Buffer): Promise<void> {
  let offset = 0;
  while (offset < data.length) {
    const { bytesWritten } = await handle.write(data, offset, data.length - offset);
    offset += bytesWritten;
  }
}

/** A fresh name beside `path` for its replacement (random: nobody can plant a link there in advance). */
export function temporaryPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.wafctl-${randomBytes(6).toString('hex')}.tmp`);
}

/** What a replacement keeps of the file it replaces: its permission bits and, where allowed, owner. */
export interface FileAttributes {
  mode: number;
  uid: number;
  gid: number;
}

/**
 * Writes `data` to `temp` and fsyncs it. With `keep`, the file is created private (0600, nothing
 * readable before its mode is set), given `keep`'s owner where the process may (root, or the same
 * user; otherwise it stays the process's) and then `keep`'s mode.
 */
async function writeSynced(
  temp: string,
  data: Buffer,
  flags: 'w' | 'wx',
  keep: FileAttributes | undefined,
  fault: FileFaultHook,
): Promise<void> {
  const handle = await open(temp, flags, keep === undefined ? 0o666 : 0o600);
  try {
    await fault('write', temp);
    await writeAll(handle, data);
    if (keep !== undefined) {
      const own = await handle.stat();
      if (own.uid !== keep.uid || own.gid !== keep.gid) {
        await handle.chown(keep.uid, keep.gid).catch((error: NodeJS.ErrnoException) => {
          if (error.code !== 'EPERM' && error.code !== 'EINVAL') throw error;
        });
      }
      await handle.chmod(keep.mode);
    }
    await fault('sync', temp);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Creates `temp`, which must not exist (never through a symbolic link or over another file), with
 * `data`, fsynced: the first half of a replacement whose rename the caller makes (export renames
 * several files only once all are written). A failure removes what it created.
 */
export async function writeNewFileDurably(
  temp: string,
  data: Buffer,
  keep?: FileAttributes,
  fault: FileFaultHook = noFaults,
): Promise<void> {
  try {
    await writeSynced(temp, data, 'wx', keep, fault);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') await unlink(temp).catch(() => undefined);
    throw error;
  }
}

/**
 * Replaces `path` with `data`: written to `temp` beside it, fsynced, renamed over it, directory
 * fsynced. A crash leaves the old file or the new one, never half of one; a failure removes `temp`.
 * `exclusive`: `temp` must not exist yet (a fresh name), so it is never opened through a link.
 */
export async function replaceDurably(
  path: string,
  temp: string,
  data: Buffer,
  fault: FileFaultHook = noFaults,
  options: { keep?: FileAttributes; exclusive?: boolean } = {},
): Promise<void> {
  try {
    await writeSynced(temp, data, options.exclusive ? 'wx' : 'w', options.keep, fault);
    await fault('rename', path);
    await rename(temp, path);
  } catch (error) {
    // An existing `temp` that `exclusive` refused to open is not ours to remove.
    const ours = !options.exclusive || (error as NodeJS.ErrnoException).code !== 'EEXIST';
    if (ours) await unlink(temp).catch(() => undefined);
    throw error;
  }
  await syncDirectory(path, fault);
}

/**
 * Creates directory `path` and its missing parents, one level at a time from the nearest existing
 * ancestor (a path has finitely many), each made durable in its parent. Not `mkdir({recursive:
 * true})`: on Node 20 that loops forever where a level cannot be created (`/proc/x`). Throws the
 * first failing call's error (its `code`: ENOENT, EACCES, ENOTDIR, ...); `path` existing as a
 * directory is fine, as anything else is ENOTDIR.
 */
export async function makeDirectory(path: string, fault: FileFaultHook = noFaults): Promise<void> {
  const missing: string[] = [];
  for (let level = resolve(path); ; level = dirname(level)) {
    const info = await stat(level).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    if (info !== undefined) {
      if (info.isDirectory()) break;
      throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${level}'`), { code: 'ENOTDIR' });
    }
    missing.unshift(level);
    if (dirname(level) === level) break;
  }
  for (const level of missing) {
    await mkdir(level).catch(async (error: NodeJS.ErrnoException) => {
      // Made by someone else meanwhile: as good as made here.
      if (error.code !== 'EEXIST' || !(await stat(level)).isDirectory()) throw error;
    });
    await syncDirectory(level, fault);
  }
}

/** Removes a file and makes that durable; a missing file is fine. */
export async function removeDurably(path: string, fault: FileFaultHook = noFaults): Promise<void> {
  await fault('unlink', path);
  try {
    await unlink(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  await syncDirectory(path, fault);
}

/**
 * An append-only file: `append` writes at the end, `sync` makes everything appended durable, and
 * `truncate` cuts back to a known-good size (after a failed append, so that a half-written or
 * unflushed record never stays in front of the next one).
 */
export class AppendFile {
  private constructor(
    readonly path: string,
    private readonly handle: FileHandle,
    private readonly fault: FileFaultHook,
  ) {}

  /** Opens (creating it if needed, durably) for appending. */
  static async open(path: string, fault: FileFaultHook = noFaults): Promise<AppendFile> {
    const handle = await open(path, 'a');
    try {
      await syncDirectory(path, fault);
    } catch (error) {
      await handle.close();
      throw error;
    }
    return new AppendFile(path, handle, fault);
  }

  async append(data: Buffer): Promise<void> {
    await this.fault('write', this.path);
    await writeAll(this.handle, data);
  }

  /** fdatasync: the data and the file size, which is all an append changes. */
  async sync(): Promise<void> {
    await this.fault('sync', this.path);
    await this.handle.datasync();
  }

  async truncate(size: number): Promise<void> {
    await this.fault('truncate', this.path);
    await this.handle.truncate(size);
    await this.handle.datasync();
  }

  async close(): Promise<void> {
    await this.handle.close();
  }
}
