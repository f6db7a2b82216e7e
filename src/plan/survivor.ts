/** Which of several in-scope remote objects sharing one natural key survives (the others are deleted). */

/** What ranks a remote object (the planner's RemoteObject): its id, and when the server created it. */
interface Ranked {
  id: string;
  createdAt?: number | undefined;
}

/**
 * The objects sharing one key, the survivor first: one equal to the configuration if any, else the
 * oldest — by the creation time the API reports, then by id (numerically when both are numbers),
 * then by listing order. Deterministic, so every plan of the same state heals it the same way.
 */
export function survivorFirst<T extends Ranked>(remotes: readonly T[], isEqual: (remote: T) => boolean): T[] {
  const equal = new Set(remotes.filter(isEqual));
  return [...remotes].sort(
    (a, b) => Number(equal.has(b)) - Number(equal.has(a)) || compareCreation(a, b) || compareIds(a.id, b.id),
  );
}

function compareCreation(a: Ranked, b: Ranked): number {
  if (a.createdAt === undefined || b.createdAt === undefined) {
    return Number(a.createdAt === undefined) - Number(b.createdAt === undefined);
  }
  return a.createdAt - b.createdAt;
}

function compareIds(a: string, b: string): number {
  const numeric = /^\d+$/;
  if (numeric.test(a) && numeric.test(b) && a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}
