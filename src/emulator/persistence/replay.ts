/**
 * Replays the journal over the state the snapshot built, in order. Applying a record, and checking
 * it against the state it applies to, is the caller's (the store and its invariants: ../invariants.ts):
 * the first problem, such as a second group of a name or an id its counter would hand out again,
 * stops the start naming the journal and the line.
 */
import { WafctlError } from '../../core/errors.js';
import type { StateIssue } from './format.js';
import type { JournalEntry, JournalRecord } from './journal.js';

/** Applies one record and says what is wrong with it, or undefined. */
type ApplyRecord<C extends object, N extends object> = (
  record: JournalRecord<C, N>,
) => StateIssue | undefined;

export function replayJournal<C extends object, N extends object>(
  entries: readonly JournalEntry<C, N>[],
  journalPath: string,
  apply: ApplyRecord<C, N>,
): void {
  for (const entry of entries) {
    const issue = apply(entry);
    if (issue !== undefined) throw cannotReplay(journalPath, entry.line, issue);
  }
}

function cannotReplay(path: string, line: number, issue: StateIssue): WafctlError {
  return new WafctlError(
    'EMULATOR_STATE',
    `emulator state journal ${path} line ${line} cannot be replayed: ${issue.path.join('.')}: ${issue.message} ` +
      '(the journal does not fit the state file: restore both from the same backup)',
    { userFault: true },
  );
}
