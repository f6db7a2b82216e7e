/**
 * The state file: the whole store as one JSON document, replaced atomically (temp file in the same
 * directory, then rename) so a crash leaves either the old or the new state, never half of one.
 */
import { constants } from 'node:fs';
import { access, open, readFile, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { WafctlError } from '../errors.js';
import { type StoreState, stateSchema } from './records.js';
import { issueLines } from './validation.js';

const MAX_REPORTED_ISSUES = 3;

function stateError(path: string, what: string, cause?: unknown): WafctlError {
  return new WafctlError('EMULATOR_STATE', `emulator state file ${path} ${what}`, { cause, userFault: true });
}

/** The saved state, or undefined when the file does not exist yet. Never modifies the file. */
export async function loadState(path: string): Promise<StoreState | undefined> {
  let content: string;
  try {
    content = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      await checkWritableDirectory(path);
      return undefined;
    }
    const reason = error instanceof Error ? error.message : String(error);
    throw stateError(path, `cannot be read: ${reason}`, error);
  }
  if (content.trim() === '') throw stateError(path, 'is empty (expected the JSON written by the emulator)');
  let data: unknown;
  try {
    data = JSON.parse(content);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw stateError(path, `is not valid JSON: ${reason}`, error);
  }
  const result = stateSchema.safeParse(data);
  if (!result.success) {
    const lines = issueLines(result.error);
    const more =
      lines.length > MAX_REPORTED_ISSUES ? ` (and ${lines.length - MAX_REPORTED_ISSUES} more)` : '';
    throw stateError(
      path,
      `is not a valid emulator state: ${lines.slice(0, MAX_REPORTED_ISSUES).join('; ')}${more}`,
    );
  }
  return result.data;
}

/** Fails at start, not at the first change, when the file could never be created. */
async function checkWritableDirectory(path: string): Promise<void> {
  try {
    await access(dirname(path), constants.W_OK);
  } catch (error) {
    throw stateError(path, `cannot be created: its directory is missing or not writable`, error);
  }
}

/**
 * Serialises writes and coalesces bursts: mutations that arrive while a write is running share the
 * next write, so N concurrent requests cost at most two writes, and a bulk request costs one.
 */
export class StateWriter {
  private current: Promise<void> = Promise.resolve();
  private queued: Promise<void> | undefined;
  private tempCounter = 0;

  constructor(
    private readonly path: string,
    private readonly snapshot: () => StoreState,
  ) {}

  /** Resolves once a write that includes every mutation made before this call is on disk. */
  persist(): Promise<void> {
    if (this.queued !== undefined) return this.queued;
    const next = this.current
      .catch(() => undefined)
      .then(() => {
        this.queued = undefined;
        return this.writeNow();
      });
    this.queued = next;
    this.current = next;
    return next;
  }

  /** Waits for any write in progress (used on close). */
  async idle(): Promise<void> {
    await this.current.catch(() => undefined);
  }

  private async writeNow(): Promise<void> {
    // Serialise synchronously, before the first await: the snapshot is the store as of this tick.
    const text = JSON.stringify(this.snapshot());
    this.tempCounter += 1;
    const temp = join(dirname(this.path), `.${basename(this.path)}.${process.pid}.${this.tempCounter}.tmp`);
    try {
      const handle = await open(temp, 'w');
      try {
        await handle.writeFile(text, 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, this.path);
    } catch (error) {
      await unlink(temp).catch(() => undefined);
      const reason = error instanceof Error ? error.message : String(error);
      throw stateError(this.path, `cannot be written: ${reason}`, error);
    }
  }
}
