import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every level, so equal records always serialise identically. */
export function canonicalJson(value: unknown): string {
  // Nothing to sort in a string (most set elements: expressions, targets, users): no replacer calls.
  if (typeof value === 'string') return JSON.stringify(value);
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );
}

/** A short digest of a remote record as the planner saw it (saved plans compare it before applying). */
export function fingerprint(id: string, attributes: unknown): string {
  return createHash('sha256')
    .update(id)
    .update('\0')
    .update(canonicalJson(attributes))
    .digest('hex')
    .slice(0, 32);
}
