/**
 * Shards of a fleet (`--shard K/N`, `WAFCTL_SHARD=K/N`): the K-th of N disjoint parts of the selected
 * environments, for a CI matrix job or a Kubernetes Indexed Job each running one part. An
 * environment's shard depends on its name and N alone (SHA-256 of the UTF-8 name, its first 4 bytes
 * as a big-endian uint32, mod N, + 1), never on its position: the parts cover every environment, and
 * adding or removing one moves only that one. The same on every machine and Node version. Pure.
 */
import { createHash } from 'node:crypto';

/** The K-th (1-based) of N parts. */
export interface Shard {
  k: number;
  n: number;
}

/** More parts than any matrix or Indexed Job would run: a typo (`1/100000`) is refused. */
export const MAX_SHARDS = 10_000;

/** The shard (1..n) that environment `name` belongs to, of `n`. */
export function shardOf(name: string, n: number): number {
  const digest = createHash('sha256').update(name, 'utf8').digest();
  return (digest.readUInt32BE(0) % n) + 1;
}

/** The names of shard `shard.k` of `shard.n`, in the order given. */
export function inShard(names: readonly string[], shard: Shard): string[] {
  return names.filter((name) => shardOf(name, shard.n) === shard.k);
}

const SHARD_FORM = /^([0-9]+)\/([0-9]+)$/;

/**
 * The shard `value` says (`K/N`: integers, 1 ≤ K ≤ N ≤ MAX_SHARDS), or why it is refused, naming
 * `source` (`--shard`, `WAFCTL_SHARD`) and the expected form.
 */
export function readShard(source: string, value: string): Shard | { problem: string } {
  const match = SHARD_FORM.exec(value.trim());
  const k = Number(match?.[1]);
  const n = Number(match?.[2]);
  if (match === null || k < 1 || n < 1 || k > n || n > MAX_SHARDS) {
    return {
      problem: `${source} must be K/N, the K-th of N parts, with integers 1 ≤ K ≤ N ≤ ${MAX_SHARDS} (e.g. 1/4), not ${JSON.stringify(value)}`,
    };
  }
  return { k, n };
}

/** `K/N`, as the flag takes it. */
export const shardText = (shard: Shard): string => `${shard.k}/${shard.n}`;
