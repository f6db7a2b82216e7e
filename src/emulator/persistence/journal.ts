/**
 * The journal beside the state file (`state.json.journal`): NDJSON, one line per acknowledged
 * write, holding the write's effect rather than the request, so replay needs no validation logic:
 *
 *   {"seq":42,"changes":{"application_rules":{"upsert":[{...rule...}],"delete":["7"]}},"next_ids":{...}}
 *
 * `seq` counts writes (+1 per line, carried on across compactions); `changes` lists only the
 * collections the write touched (state-file names), each with the final records of the keys it set
 * (in their listing order) and the keys it deleted (replayed first); `next_ids` are the id counters
 * after the write (what `changes` and `next_ids` hold is the format's: format.ts). The state file
 * says which seq it includes (`journal_seq`), so lines at or below it are skipped: a crash between
 * writing a compacted state file and trimming the journal is safe.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { WafctlError } from '../../core/errors.js';
import type { StateFormat } from './format.js';

/** One journal line: its seq, and the effect of the write (the format's `changes` and `next_ids`). */
export interface JournalRecord<C extends object = object, N extends object = object> {
  seq: number;
  changes: C;
  next_ids: N;
}
/** A record and the line it was read from (errors at replay name it). */
export type JournalEntry<C extends object = object, N extends object = object> = JournalRecord<C, N> & {
  line: number;
};

function recordSchema<C extends object, N extends object>(
  format: StateFormat<object, C, N>,
): z.ZodType<JournalRecord<C, N>> {
  return z.strictObject({ seq: z.int().min(1), changes: format.changes, next_ids: format.nextIds });
}

export function journalPathOf(statePath: string): string {
  return `${statePath}.journal`;
}

/** One journal line, newline included. */
export function encodeRecord(seq: number, changes: object, nextIds: object): Buffer {
  return Buffer.from(`${JSON.stringify({ seq, changes, next_ids: nextIds })}\n`, 'utf8');
}

export interface JournalContents<C extends object = object, N extends object = object> {
  /** Records after the state file's `journal_seq`, to replay in order. */
  records: JournalEntry<C, N>[];
  /** The last seq the journal holds (or the state file's, when the journal holds nothing newer). */
  lastSeq: number;
  /** Bytes up to the end of the last good line: where appending resumes. */
  goodBytes: number;
  /** A torn last record (a crash mid-append, never acknowledged): its line number; it is dropped. */
  tornLine: number | undefined;
}

const MAX_REPORTED_ISSUES = 3;

function corrupt(path: string, line: number, reason: string): WafctlError {
  return new WafctlError(
    'EMULATOR_STATE',
    `emulator state journal ${path} line ${line} is corrupt: ${reason} ` +
      '(only a damaged last line is skipped, as a crash during a write leaves it; restore or remove that line)',
    { userFault: true },
  );
}

function parseLine<C extends object, N extends object>(
  text: string,
  schema: z.ZodType<JournalRecord<C, N>>,
  explain: (error: z.ZodError) => string[],
): { ok: true; record: JournalRecord<C, N> } | { ok: false; reason: string } {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: `not valid JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
  const result = schema.safeParse(data);
  if (result.success) return { ok: true, record: result.data };
  const lines = explain(result.error);
  const more = lines.length > MAX_REPORTED_ISSUES ? ` (and ${lines.length - MAX_REPORTED_ISSUES} more)` : '';
  return {
    ok: false,
    reason: `not a journal record: ${lines.slice(0, MAX_REPORTED_ISSUES).join('; ')}${more}`,
  };
}

/**
 * Reads and checks the whole journal (undefined when there is none). A last line that is cut short
 * or does not parse is a torn append and is reported, not replayed; a bad line with anything after
 * it, or a seq out of sequence, is corruption: an error naming the file and the line.
 */
export async function readJournal<C extends object, N extends object>(
  path: string,
  stateSeq: number,
  format: StateFormat<object, C, N>,
): Promise<JournalContents<C, N> | undefined> {
  let data: Buffer;
  try {
    data = await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    const reason = error instanceof Error ? error.message : String(error);
    throw new WafctlError('EMULATOR_STATE', `emulator state journal ${path} cannot be read: ${reason}`, {
      cause: error,
      userFault: true,
    });
  }
  const schema = recordSchema(format);
  const contents: JournalContents<C, N> = {
    records: [],
    lastSeq: stateSeq,
    goodBytes: 0,
    tornLine: undefined,
  };
  let previousSeq: number | undefined;
  let start = 0;
  for (let line = 1; start < data.length; line++) {
    const newline = data.indexOf(0x0a, start);
    const end = newline < 0 ? data.length : newline;
    const parsed =
      newline < 0 ? undefined : parseLine(data.toString('utf8', start, end), schema, format.explain);
    if (parsed === undefined || !parsed.ok) {
      // Torn only if nothing follows it: a crash can damage the end of the file, not its middle.
      if (end + 1 >= data.length) {
        contents.tornLine = line;
        return contents;
      }
      throw corrupt(path, line, parsed?.reason ?? 'cut short');
    }
    const { record } = parsed;
    if (previousSeq !== undefined && record.seq !== previousSeq + 1) {
      throw corrupt(path, line, `seq ${record.seq} follows seq ${previousSeq}`);
    }
    if (record.seq > stateSeq) {
      if (record.seq !== contents.lastSeq + 1) {
        throw corrupt(path, line, `seq ${record.seq} does not continue the state file (seq ${stateSeq})`);
      }
      contents.records.push({ ...record, line });
      contents.lastSeq = record.seq;
    }
    previousSeq = record.seq;
    start = end + 1;
    contents.goodBytes = start;
  }
  return contents;
}
