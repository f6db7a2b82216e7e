/**
 * A store collection: a Map (iteration = insertion = id order, as the listings rely on) that can say
 * what one write changed and undo it. Route handlers keep mutating it like any Map; while a write
 * is open, the first change to each key records the key's previous value and position. That record
 * is the write's effect (journaled by the state file) and its undo (when the journal cannot be
 * written, the write is rolled back so that nothing unacknowledged stays visible).
 */

interface Prior<V> {
  existed: boolean;
  value: V | undefined;
  position: number | undefined;
  /** Deleted during the write (even if set again): replay must delete it before upserting. */
  deleted: boolean;
}

/** What one write did to one collection, in a form replay can apply again. */
export interface CollectionChange<V> {
  /** Present keys' final values, in iteration order (so replay appends new keys in the same order). */
  upsert: V[];
  /** Keys that existed before the write and were deleted during it (applied before `upsert`). */
  delete: string[];
}

export interface CollectionWrite<V> {
  change: CollectionChange<V> | undefined;
  undo(): void;
}

export class Collection<V> extends Map<string, V> {
  /**
   * Insertion rank of every key. Undo may have to put a deleted record back; a Map can only append,
   * so the collection is rebuilt in rank order, and a restored record keeps its place in listings.
   */
  private readonly positions = new Map<string, number>();
  private nextPosition = 0;
  private touched: Map<string, Prior<V>> | undefined;

  override set(key: string, value: V): this {
    this.remember(key);
    if (!this.positions.has(key)) this.positions.set(key, this.nextPosition++);
    return super.set(key, value);
  }

  override delete(key: string): boolean {
    if (!super.has(key)) return false;
    this.remember(key);
    const prior = this.touched?.get(key);
    if (prior !== undefined) prior.deleted = true;
    this.positions.delete(key);
    return super.delete(key);
  }

  override clear(): void {
    if (this.touched !== undefined) {
      for (const key of [...super.keys()]) this.delete(key);
      return;
    }
    this.positions.clear();
    super.clear();
  }

  /** Starts recording changes (the store opens one write at a time; handlers are synchronous). */
  beginWrite(): void {
    if (this.touched !== undefined) throw new Error('a write is already open on this collection');
    this.touched = new Map();
  }

  /** Stops recording; returns the write's effect (undefined when nothing changed) and its undo. */
  endWrite(): CollectionWrite<V> {
    const touched = this.touched ?? new Map<string, Prior<V>>();
    this.touched = undefined;
    if (touched.size === 0) return { change: undefined, undo: () => undefined };
    const present: [number, V][] = [];
    const deleted: string[] = [];
    for (const [key, prior] of touched) {
      if (prior.existed && prior.deleted) deleted.push(key);
      const value = super.get(key);
      if (super.has(key)) present.push([this.positions.get(key) ?? 0, value as V]);
    }
    present.sort((a, b) => a[0] - b[0]);
    const change = { upsert: present.map(([, value]) => value), delete: deleted };
    return { change, undo: () => this.undo(touched) };
  }

  /**
   * Restores every touched key. Goes through this instance's own set/delete/clear (not `super`)
   * so that anything watching the instance's writers (the listing's key index) sees the undo.
   */
  private undo(touched: Map<string, Prior<V>>): void {
    if (this.touched !== undefined) throw new Error('cannot undo while a write is open');
    let reinserted = false;
    for (const [key, prior] of touched) {
      if (!prior.existed) this.delete(key);
      else if (super.has(key) && !prior.deleted) this.set(key, prior.value as V);
      else reinserted = true;
    }
    if (!reinserted) return;
    // A Map only appends: rebuild in rank order so restored records are listed where they were.
    const entries: [string, V, number][] = [];
    for (const [key, value] of super.entries()) {
      if (!touched.get(key)?.existed) entries.push([key, value, this.positions.get(key) ?? 0]);
    }
    for (const [key, prior] of touched) {
      if (prior.existed) entries.push([key, prior.value as V, prior.position ?? 0]);
    }
    entries.sort((a, b) => a[2] - b[2]);
    this.clear();
    for (const [key, value, position] of entries) {
      this.positions.set(key, position);
      this.set(key, value);
    }
  }

  private remember(key: string): void {
    if (this.touched === undefined || this.touched.has(key)) return;
    const existed = super.has(key);
    this.touched.set(key, {
      existed,
      value: existed ? super.get(key) : undefined,
      position: this.positions.get(key),
      deleted: false,
    });
  }
}
