/**
 * The state file (snapshot): the whole store as one JSON document (`format_version: 1`), replaced
 * atomically (temp file in the same directory, fsync, rename) so a crash leaves either the old or
 * the new state, never half of one. Since the journal (journal.ts), it also records `journal_seq`:
 * the last journaled write it includes. Files written before the journal lack it (0) and load as ever.
 * What the state holds, and what it must satisfy, is the format's (format.ts).
 */
import { constants } from 'node:fs';
import { access, readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import { WafctlError } from '../../core/errors.js';
import type { StateFormat } from './format.js';

/** The snapshot: the format's state, the journal seq it includes, and the state's invariants. */
function snapshotSchema<S extends object>(format: StateFormat<S>) {
  return format.state.extend({ journal_seq: z.int().min(0).optional() }).superRefine((state, ctx) => {
    // The invariants read the collections and the counters; journal_seq is no concern of theirs.
    for (const { path, message } of format.stateIssues(state as S)) {
      ctx.addIssue({ code: 'custom', path, message });
    }
  });
}

export interface SavedState<S extends object = object> {
  state: S;
  /** The last journal seq the file includes (0 for a file written before the journal). */
  journalSeq: number;
  bytes: number;
}

/** The snapshot's bytes: the store, plus the journal seq it includes. */
export function encodeState(state: object, journalSeq: number): Buffer {
  return Buffer.from(JSON.stringify({ ...state, journal_seq: journalSeq }), 'utf8');
}

/** Where snapshots are written before being renamed into place (one writer: the lock holder). */
export function tempPathOf(path: string): string {
  return join(dirname(path), `.${basename(path)}.tmp`);
}

const MAX_REPORTED_ISSUES = 3;

export function stateError(path: string, what: string, cause?: unknown): WafctlError {
  return new WafctlError('EMULATOR_STATE', `emulator state file ${path} ${what}`, { cause, userFault: true });
}

/** The saved state, or undefined when the file does not exist yet. Never modifies the file. */
export async function loadState<S extends object>(
  path: string,
  format: StateFormat<S>,
): Promise<SavedState<S> | undefined> {
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
  const result = snapshotSchema(format).safeParse(data);
  if (!result.success) {
    const lines = format.explain(result.error);
    const more =
      lines.length > MAX_REPORTED_ISSUES ? ` (and ${lines.length - MAX_REPORTED_ISSUES} more)` : '';
    throw stateError(
      path,
      `is not a valid emulator state: ${lines.slice(0, MAX_REPORTED_ISSUES).join('; ')}${more}`,
    );
  }
  const { journal_seq: journalSeq = 0, ...state } = result.data as { journal_seq?: number };
  return { state: state as S, journalSeq, bytes: Buffer.byteLength(content) };
}

/** Fails at start, not at the first change, when the file could never be created. */
export async function checkWritableDirectory(path: string): Promise<void> {
  try {
    await access(dirname(path), constants.W_OK);
  } catch (error) {
    throw stateError(path, `cannot be created: its directory is missing or not writable`, error);
  }
}
