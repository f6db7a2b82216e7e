/**
 * Opening `--state FILE`: take the lock, load the snapshot and the journal (dropping a torn last
 * line), and hand back what to replay; the caller builds the store, then starts the writer on it.
 */
import { access } from 'node:fs/promises';
import { AppendFile } from '../../files/durable-files.js';
import type { StateFormat } from './format.js';
import { type JournalEntry, journalPathOf, readJournal } from './journal.js';
import { acquireLock } from './lock.js';
import { checkWritableDirectory, loadState, stateError } from './snapshot.js';
import { type Disk, StateFile, type StateFileOptions } from './state-file.js';

export interface OpenedState<S extends object, C extends object, N extends object> {
  saved: S | undefined;
  /** Journal records to replay over `saved`, in order (replay.ts). */
  records: JournalEntry<C, N>[];
  journalPath: string;
  start(snapshot: () => S): StateFile;
  /** Releases the lock when start-up fails after opening. */
  abandon(): Promise<void>;
}

/** Locks the file, loads snapshot and journal, ready to replay. Errors leave the files untouched. */
export async function openStateFile<S extends object, C extends object, N extends object>(
  path: string,
  format: StateFormat<S, C, N>,
  options: StateFileOptions,
): Promise<OpenedState<S, C, N>> {
  await checkWritableDirectory(path);
  const lock = await acquireLock(path, { notice: options.notice, fault: options.fault });
  let journal: AppendFile | undefined;
  try {
    const saved = await loadState(path, format);
    const journalPath = journalPathOf(path);
    if (saved === undefined && (await exists(journalPath))) {
      throw stateError(
        path,
        `does not exist but its journal ${journalPath} does: restore the state file, or delete the journal to start afresh`,
      );
    }
    const contents = await readJournal(journalPath, saved?.journalSeq ?? 0, format);
    if (contents !== undefined) {
      journal = await AppendFile.open(journalPath, options.fault);
      if (contents.tornLine !== undefined) {
        await journal.truncate(contents.goodBytes);
        options.notice(
          `dropped the torn last line (${contents.tornLine}) of ${journalPath}: a write cut short by a crash, never acknowledged`,
        );
      }
    }
    const disk: Disk = {
      journal,
      journalExists: contents !== undefined,
      journalBytes: contents?.goodBytes ?? 0,
      lastSeq: contents?.lastSeq ?? saved?.journalSeq ?? 0,
      snapshotExists: saved !== undefined,
      snapshotBytes: saved?.bytes ?? 0,
    };
    return {
      saved: saved?.state,
      records: contents?.records ?? [],
      journalPath,
      start: (snapshot) => new StateFile(path, lock, disk, snapshot, options),
      abandon: async () => {
        await journal?.close();
        await lock.release();
      },
    };
  } catch (error) {
    await journal?.close().catch(() => undefined);
    await lock.release();
    throw error;
  }
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}
