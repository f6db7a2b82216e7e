/**
 * What runs over several environments share (plan, drift, compare, export and apply with `--env all`
 * or `--env` repeated): how many run at once, each one's outcome kept apart from the others', and
 * the exit code of them all, the worst of theirs.
 */

/** How many environments are planned (or read, or applied) at once, unless `--concurrency N` says. */
export const ENVIRONMENT_CONCURRENCY = 2;

/** `--concurrency N` when given, else the default. */
export const concurrencyOf = (given: number | undefined): number => given ?? ENVIRONMENT_CONCURRENCY;

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

/**
 * Hands the outputs of environments that finish in any order to `write` in their declared order:
 * each one as soon as it and every earlier one are done. Only outputs finished ahead of an earlier
 * one are held (rendered text, never a plan or live state): one slow environment holds those that
 * finish after it, none of the others.
 */
export class OrderedOutput<T> {
  private next = 0;
  private readonly waiting = new Map<number, T>();

  constructor(private readonly write: (value: T, index: number) => void) {}

  /** The output of the environment at `index` (each index once). */
  put(index: number, value: T): void {
    this.waiting.set(index, value);
    while (this.waiting.has(this.next)) {
      const ready = this.waiting.get(this.next) as T;
      this.waiting.delete(this.next);
      this.write(ready, this.next);
      this.next += 1;
    }
  }

  /** How many outputs are held, finished before an earlier one. */
  get held(): number {
    return this.waiting.size;
  }
}
