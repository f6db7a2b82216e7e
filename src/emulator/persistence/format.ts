/**
 * What persistence is told of the state it keeps. It knows no collection by name: the emulator's
 * collection table (../table.ts) derives this from its entries, so a new collection changes nothing
 * in this folder. Persistence owns the envelopes (the snapshot's `journal_seq`, a journal line's
 * `seq`); the table owns what they carry (the collections, `changes`, `next_ids`).
 */
import type { z } from 'zod';

/** A problem at a path of a state or of a journal record. */
export interface StateIssue {
  path: (string | number)[];
  message: string;
}

export interface StateFormat<
  S extends object = object,
  C extends object = object,
  N extends object = object,
> {
  /** The whole state as the snapshot holds it, without `journal_seq` (added here): a strict object. */
  readonly state: z.ZodObject<z.ZodRawShape, z.core.$strict>;
  /** What a parsed state must satisfy beyond its schema (the store's invariants), each at its path. */
  stateIssues(state: S): StateIssue[];
  /** A journal line's `changes` (only the collections the write touched). */
  readonly changes: z.ZodType<C>;
  /** The id counters, in the snapshot's state and in each journal line. */
  readonly nextIds: z.ZodType<N>;
  /** One line per problem of a value read back, `path: what is wrong` (the emulator's wording). */
  explain(error: z.ZodError): string[];
}

/** What one write did, as the journal keeps it (its effect, not the request), and how to take it back. */
export interface WriteEffect<C extends object = object, N extends object = object> {
  changes: C;
  next_ids: N;
  undo(): void;
}
