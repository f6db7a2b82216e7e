/**
 * `--state FILE`: the snapshot (snapshot.ts) plus the journal (journal.ts), owned through a lock
 * (lock.ts). Acknowledged means durable: a write's journal line is appended and fdatasync'ed before
 * its answer is sent. Group commit: lines queued while a flush runs share the next one (no timer),
 * so N concurrent writes cost about two fsyncs, and each is answered after the flush covering it.
 *
 * A failed flush (ENOSPC, EIO, ...) truncates the journal back to its last good size, then undoes in
 * memory, newest first, the failed batch and every write applied after it (they may rest on it):
 * all are answered 500, none stays visible. The store is always durable state + queued writes, so
 * the moment a batch is taken is a consistent point: the first batch ever writes the snapshot
 * itself, and a compaction captures the snapshot there, writes it in the background after the batch
 * is durable, then swaps the journal for the lines appended since (the tail).
 */

import { WafctlError } from '../../core/errors.js';
import { AppendFile, type FileFaultHook, removeDurably, replaceDurably } from '../../files/durable-files.js';
import type { WriteEffect } from './format.js';
import { encodeRecord, journalPathOf } from './journal.js';
import type { StateLock } from './lock.js';
import { encodeState, tempPathOf } from './snapshot.js';

export interface StateFileOptions {
  /** Compact once the journal is at least this large and at least as large as the snapshot. */
  compactBytes: number;
  fault: FileFaultHook;
  notice: (message: string) => void;
}

/** A write that could not be made durable (and was rolled back): answered 500. */
export class StateWriteError extends WafctlError {}

interface Entry {
  seq: number;
  line: Buffer;
  undo: () => void;
  resolve: () => void;
  reject: (error: Error) => void;
}

interface Compaction {
  data: Buffer;
  /** Journal lines made durable after the captured batch: the next journal's content. */
  tail: Buffer[];
  written: boolean;
}

/** What is on disk, as the writer tracks it. */
export interface Disk {
  journal: AppendFile | undefined;
  journalExists: boolean;
  journalBytes: number;
  lastSeq: number;
  snapshotExists: boolean;
  snapshotBytes: number;
}

export class StateFile {
  private readonly journalPath: string;
  private waiting: Entry[] = [];
  private busy = false;
  /** The flush loop's run (settled when idle), and the background snapshot write of a compaction. */
  private idle: Promise<void> = Promise.resolve();
  private background: Promise<void> = Promise.resolve();
  /** The journal may hold bytes past journalBytes (a failed append that could not be cut back). */
  private dirty = false;
  private compaction: Compaction | undefined;
  private compactAt: number;
  private closing = false;
  private closed: Promise<void> | undefined;

  constructor(
    private readonly path: string,
    private readonly lock: StateLock,
    private readonly disk: Disk,
    private readonly snapshot: () => object,
    private readonly options: StateFileOptions,
  ) {
    this.journalPath = journalPathOf(path);
    this.compactAt = Math.max(options.compactBytes, disk.snapshotBytes);
  }

  /**
   * Queues the write's journal line, called right after the write was applied. Resolves once it is
   * durable; rejects (after the write and every later pending one were undone) when it cannot be.
   */
  append(effect: WriteEffect): Promise<void> {
    if (this.closing) {
      effect.undo();
      return Promise.reject(new StateWriteError('EMULATOR_STATE', 'the emulator is shutting down'));
    }
    this.disk.lastSeq += 1;
    const line = encodeRecord(this.disk.lastSeq, effect.changes, effect.next_ids);
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ seq: this.disk.lastSeq, line, undo: effect.undo, resolve, reject });
      this.kick();
    });
  }

  /** Waits for queued writes, folds the journal into the snapshot, and gives the lock back. Once. */
  close(): Promise<void> {
    this.closed ??= this.closeOnce();
    return this.closed;
  }

  private async closeOnce(): Promise<void> {
    this.closing = true;
    await this.idle;
    await this.background;
    await this.idle; // the journal swap a finished compaction started
    const disk = this.disk;
    if (disk.snapshotExists && disk.journalExists) {
      try {
        await replaceDurably(
          this.path,
          tempPathOf(this.path),
          this.capture(disk.lastSeq),
          this.options.fault,
        );
        await disk.journal?.close();
        disk.journal = undefined;
        await removeDurably(this.journalPath, this.options.fault);
      } catch (error) {
        // A line of a rolled-back write may still be in it: the next start must not replay that.
        if (this.dirty) await disk.journal?.truncate(disk.journalBytes).catch(() => undefined);
        this.options.notice(
          `kept the journal ${this.journalPath} (it is replayed at the next start): folding it into ${this.path} failed: ${reasonOf(error)}`,
        );
      }
    }
    await disk.journal?.close();
    await this.lock.release();
  }

  private capture(seq: number): Buffer {
    return encodeState(this.snapshot(), seq);
  }

  private kick(): void {
    if (this.busy) return;
    this.busy = true;
    this.idle = this.flushLoop();
  }

  /** The only writer of the journal: batches, then a due journal swap, until nothing is left. */
  private async flushLoop(): Promise<void> {
    while (this.waiting.length > 0 || this.compaction?.written) {
      if (this.compaction?.written) await this.swapJournal(this.compaction);
      else await this.flush(this.waiting.splice(0));
    }
    this.busy = false;
  }

  private async flush(batch: Entry[]): Promise<void> {
    const disk = this.disk;
    const lastSeq = batch.at(-1)?.seq ?? disk.lastSeq;
    const data = Buffer.concat(batch.map((entry) => entry.line));
    const first = !disk.snapshotExists;
    let captured: Compaction | undefined;
    try {
      // Here, before any await, the store is exactly durable state + this batch.
      if (!first && this.compaction === undefined && disk.journalBytes >= this.compactAt) {
        captured = { data: this.capture(lastSeq), tail: [], written: false };
      }
      if (first) {
        const state = this.capture(lastSeq);
        await replaceDurably(this.path, tempPathOf(this.path), state, this.options.fault);
        disk.snapshotExists = true;
        disk.snapshotBytes = state.length;
        this.compactAt = Math.max(this.options.compactBytes, state.length);
      } else {
        await this.appendToJournal(data);
      }
    } catch (error) {
      await this.rollBack(batch, error);
      return;
    }
    this.compaction?.tail.push(data);
    if (captured !== undefined) this.startCompaction(captured);
    for (const entry of batch) entry.resolve();
  }

  private async appendToJournal(data: Buffer): Promise<void> {
    const disk = this.disk;
    disk.journal ??= await AppendFile.open(this.journalPath, this.options.fault);
    disk.journalExists = true;
    if (this.dirty) {
      await disk.journal.truncate(disk.journalBytes);
      this.dirty = false;
    }
    await disk.journal.append(data);
    await disk.journal.sync();
    disk.journalBytes += data.length;
  }

  private async rollBack(batch: Entry[], cause: unknown): Promise<void> {
    const journal = this.disk.journal;
    if (journal !== undefined && this.disk.snapshotExists) {
      // Part of the batch may be in the file (or in the page cache, unflushed): cut it off, so the
      // next append does not follow a half record (which replay would call corruption).
      await journal.truncate(this.disk.journalBytes).catch(() => {
        this.dirty = true;
      });
    }
    // Everything applied since the batch was taken rests on it: undo all of it, newest first.
    const failed = [...batch, ...this.waiting.splice(0)];
    for (let i = failed.length - 1; i >= 0; i--) failed[i]?.undo();
    this.disk.lastSeq = (batch[0]?.seq ?? this.disk.lastSeq + 1) - 1;
    const error = new StateWriteError(
      'EMULATOR_STATE',
      `emulator state file ${this.path} cannot be written: ${reasonOf(cause)}`,
      { cause },
    );
    for (const entry of failed) entry.reject(error);
  }

  /** Writes the captured snapshot in the background; the journal swap then waits for the loop. */
  private startCompaction(compaction: Compaction): void {
    this.compaction = compaction;
    this.background = replaceDurably(
      this.path,
      tempPathOf(this.path),
      compaction.data,
      this.options.fault,
    ).then(
      () => {
        compaction.written = true;
        this.disk.snapshotBytes = compaction.data.length;
        this.kick();
      },
      (error: unknown) => this.compactionFailed(error),
    );
  }

  /**
   * The snapshot now holds every line up to the captured seq: the journal is replaced by the tail
   * (a crash in between is safe, replay skips lines the snapshot includes). A rewrite from memory
   * also clears a dirty journal.
   */
  private async swapJournal(compaction: Compaction): Promise<void> {
    const disk = this.disk;
    const tail = Buffer.concat(compaction.tail);
    try {
      await replaceDurably(this.journalPath, `${this.journalPath}.tmp`, tail, this.options.fault);
      await disk.journal?.close();
      disk.journal = undefined;
      disk.journalBytes = tail.length;
      this.dirty = false;
      disk.journal = await AppendFile.open(this.journalPath, this.options.fault);
      this.compaction = undefined;
      this.compactAt = Math.max(this.options.compactBytes, disk.snapshotBytes);
    } catch (error) {
      this.compactionFailed(error);
    }
  }

  private compactionFailed(error: unknown): void {
    this.compaction = undefined;
    // Try again only after as much journal again: a full disk must not cost a snapshot per write.
    this.compactAt = this.disk.journalBytes + Math.max(this.options.compactBytes, this.disk.snapshotBytes);
    this.options.notice(`could not compact ${this.journalPath} into ${this.path}: ${reasonOf(error)}`);
  }
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
