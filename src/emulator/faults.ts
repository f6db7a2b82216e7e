/**
 * Fault injection for exercising a client's retry and recovery paths. A seeded PRNG makes a run
 * reproducible: the same seed and the same sequence of requests give the same faults.
 */
import { randomInt } from 'node:crypto';

/**
 * - `unavailable`: 503 before any work;
 * - `rate_limited`: 429 with `Retry-After: 1` before any work;
 * - `error_after`: the request is fully handled (and persisted), then answered 500;
 * - `reset_after`: the request is fully handled (and persisted), then the connection is reset.
 */
export const FAULT_KINDS = ['unavailable', 'rate_limited', 'error_after', 'reset_after'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** mulberry32: tiny, fast, good enough for picking faults; not for anything secret. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export class FaultInjector {
  private readonly random: () => number;

  constructor(
    private readonly rate: number,
    seed: number = randomInt(2 ** 31),
    private readonly kinds: readonly FaultKind[] = FAULT_KINDS,
  ) {
    this.random = mulberry32(seed);
  }

  /** Called once per API request, in arrival order. */
  next(): FaultKind | undefined {
    if (this.rate <= 0 || this.kinds.length === 0) return undefined;
    if (this.random() >= this.rate) return undefined;
    return this.kinds[Math.floor(this.random() * this.kinds.length)];
  }
}
