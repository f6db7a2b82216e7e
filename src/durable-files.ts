/**
 * File operations made durable (fsync) before they count: the emulator's state file and journal,
 * and the configuration files `pull` rewrites (cli/output.ts). Each is preceded by an optional
 * fault hook: a full disk or a failing device cannot be produced in CI without root, so tests make
 * an operation throw ENOSPC/EIO there instead (test-only).
 */
import { type FileHandle, open, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';

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

/**
 * Replaces `path` with `data`: written to `temp` beside it, fsynced, renamed over it, directory
 * fsynced. A crash leaves the old file or the new one, never half of one; a failure removes `temp`.
 */
export async function replaceDurably(
  path: string,
  temp: string,
  data: Buffer,
  fault: FileFaultHook = noFaults,
): Promise<void> {
  try {
    const handle = await open(temp, 'w');
    try {
      await fault('write', temp);
      await writeAll(handle, data);
      await fault('sync', temp);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fault('rename', path);
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await syncDirectory(path, fault);
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
