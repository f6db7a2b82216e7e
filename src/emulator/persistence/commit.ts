/**
 * Runs each route handler as one write of the store and decides when its answer may be sent.
 * Handlers are synchronous, so writes are applied one at a time; with `--state`, each write's
 * effect is journaled and the request is answered only once it is durable (state-file.ts).
 *
 * Nothing unacknowledged is ever visible: while any write is applied but not yet durable, a read
 * waits for it (its flush might fail and undo it), and writes arriving behind a waiting read wait
 * for that read, so a steady stream of writes cannot starve reads. A write that changed nothing (a
 * 400, say) may still have been decided on pending writes, so its answer waits for them too and
 * fails with them.
 */
import type { WriteEffect } from './format.js';
import type { StateFile } from './state-file.js';

/** The store, as the committer sees it: one write at a time, each with its effect. */
interface WritableStore {
  /** Starts recording what the handler changes. */
  beginWrite(): void;
  /** Stops recording; undefined when nothing changed. */
  endWrite(): WriteEffect | undefined;
}

export class Committer {
  /** Writes applied and not yet durable (or undone). */
  private pending = 0;
  /** Settles with the newest pending write. */
  private newest: Promise<void> = Promise.resolve();
  private readersWaiting = 0;
  private idleWaiters: (() => void)[] = [];
  private heldWriters: (() => void)[] = [];

  constructor(
    private readonly store: WritableStore,
    private readonly file: StateFile | undefined,
  ) {}

  /** Runs `handler` (which may mutate the store) and resolves with its result once it may be answered. */
  async run<T>(isWrite: boolean, handler: () => T): Promise<T> {
    let waitedAsReader = false;
    if (isWrite) {
      if (this.readersWaiting > 0) await new Promise<void>((resolve) => this.heldWriters.push(resolve));
    } else if (this.pending > 0) {
      waitedAsReader = true;
      this.readersWaiting++;
      await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    }
    this.store.beginWrite();
    let outcome: { result: T } | { error: unknown };
    try {
      outcome = { result: handler() };
    } catch (error) {
      outcome = { error };
    }
    const effect = this.store.endWrite();
    if (waitedAsReader) this.leaveRead();
    if ('error' in outcome) {
      // A handler that throws half-way must not leave half a change behind.
      effect?.undo();
      throw outcome.error;
    }
    if (this.file === undefined) return outcome.result;
    if (effect === undefined) {
      if (isWrite && this.pending > 0) await this.newest;
      return outcome.result;
    }
    const durable = this.file.append(effect);
    this.track(durable);
    await durable;
    return outcome.result;
  }

  private track(durable: Promise<void>): void {
    this.pending++;
    this.newest = durable;
    const settled = () => {
      this.pending--;
      if (this.pending > 0) return;
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const wake of waiters) wake();
    };
    durable.then(settled, settled);
  }

  private leaveRead(): void {
    this.readersWaiting--;
    if (this.readersWaiting > 0) return;
    const writers = this.heldWriters;
    this.heldWriters = [];
    for (const wake of writers) wake();
  }
}
