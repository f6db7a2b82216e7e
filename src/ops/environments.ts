/**
 * What runs over several environments share (plan, drift, compare, export and apply with `--env all`
 * or `--env` repeated): how many run at once, each one's outcome kept apart from the others', and
 * the exit code of them all, the worst of theirs.
 */

/** How many environments are planned (or read, or applied) at once. */
export const ENVIRONMENT_CONCURRENCY = 2;

/** Worst first: an error, then a `--fail-on` class, then changes or drift (any other code: an error). */
const SEVERITY = [1, 3, 2, 0];
const rank = (code: number): number => Math.max(0, SEVERITY.indexOf(code));

/** The worse of two exit codes: 1 (an error) over 3 (a `--fail-on` class) over 2 (changes) over 0. */
export const worse = (a: number, b: number): number => (rank(a) <= rank(b) ? a : b);

/** What one environment's work gave, or the error it threw. */
export type Settled<T> = { name: string } & (
  | { value: T; error?: undefined }
  | { value?: undefined; error: unknown }
);

/** Runs one environment's work, keeping its error instead of throwing it: the others go on. */
export async function settle<T>(name: string, work: () => Promise<T>): Promise<Settled<T>> {
  try {
    return { name, value: await work() };
  } catch (error) {
    return { name, error };
  }
}
