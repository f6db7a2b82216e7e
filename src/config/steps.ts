/**
 * Work done in steps: a generator that yields before each piece of its work (a file read or
 * validated: the yielded string says which) and returns its result. `runSteps` runs it at once, a
 * plain function call; `runStepsPausing` awaits a pause between the pieces. Node runs a signal's
 * handler only when no JavaScript is running, so validating many large files in one synchronous
 * call would answer SIGINT/SIGTERM only once done: the loader (load.ts) pauses between files, lets
 * the event loop in, and stops there if the run was interrupted.
 */
export type Steps<T> = Generator<string, T, undefined>;

/**
 * A pause inside one piece of work (a large file being read): the event loop runs there as between
 * pieces, and a debug log names nothing.
 */
export const PAUSE = '';

/** Runs the steps at once and returns their result. */
export function runSteps<T>(steps: Steps<T>): T {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/** Runs the steps, awaiting `pause(step)` before each; a pause that throws stops them. */
export async function runStepsPausing<T>(
  steps: Steps<T>,
  pause: (step: string) => Promise<void>,
): Promise<T> {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
    await pause(next.value);
  }
}
