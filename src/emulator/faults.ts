/**
 * Fault injection for exercising a client's retry and recovery paths. A seeded PRNG makes a run
 * reproducible: the same seed and the same sequence of requests (methods included) give the same
 * faults.
 */
import { randomInt } from 'node:crypto';

/**
 * Before any work (nothing changes):
 * - `unavailable`: 503;
 * - `rate_limited`: 429 with `Retry-After: 1`.
 *
 * After the request is fully handled (and persisted), whatever its real answer was:
 * - `error_after`: answered 500;
 * - `reset_after`: the connection is reset, no answer;
 * - `html_after` (writes only): 200, `text/html; charset=utf-8`, a gateway's HTML page;
 * - `truncated_after` (writes only): 200, `application/json`, the first half of the real JSON body
 *   (with a `content-length` matching it: a complete HTTP response whose body is not JSON);
 * - `status_error_after` (writes only): 200, `{"status":"error","message":"Internal error"}`.
 *
 * The last three model a confused proxy answering a write that was carried out: the client cannot
 * read the outcome and must re-read before retrying. A read's answer is never garbled that way.
 */
export const FAULT_KINDS = [
  'unavailable',
  'rate_limited',
  'error_after',
  'reset_after',
  'html_after',
  'truncated_after',
  'status_error_after',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** Kinds that only ever apply to write requests (POST, PUT, DELETE). */
export const WRITE_ONLY_FAULT_KINDS: ReadonlySet<FaultKind> = new Set<FaultKind>([
  'html_after',
  'truncated_after',
  'status_error_after',
]);

/** POST, PUT and DELETE change things; every other method is a read for fault purposes. */
export function isWriteMethod(method: string): boolean {
  return method === 'POST' || method === 'PUT' || method === 'DELETE';
}

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
  private readonly forReads: readonly FaultKind[];
  private readonly forWrites: readonly FaultKind[];

  constructor(
    private readonly rate: number,
    seed: number = randomInt(2 ** 31),
    kinds: readonly FaultKind[] = FAULT_KINDS,
  ) {
    this.random = mulberry32(seed);
    this.forWrites = [...kinds];
    this.forReads = this.forWrites.filter((kind) => !WRITE_ONLY_FAULT_KINDS.has(kind));
  }

  /**
   * Called once per API request, in arrival order. With probability `rate` it returns one of the
   * configured kinds that apply to the request (uniformly); a read never gets a write-only kind.
   * When no configured kind applies, the answer is undefined and no random number is drawn.
   */
  next(isWrite: boolean): FaultKind | undefined {
    const kinds = isWrite ? this.forWrites : this.forReads;
    if (this.rate <= 0 || kinds.length === 0) return undefined;
    if (this.random() >= this.rate) return undefined;
    return kinds[Math.floor(this.random() * kinds.length)];
  }
}
