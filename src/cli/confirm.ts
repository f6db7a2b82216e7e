/** The apply prompt, Terraform's wording: only `yes` approves; Ctrl-C at the prompt cancels. */
import { createInterface } from 'node:readline/promises';

export type Answer = 'approved' | 'declined' | 'interrupted';

/** Asks once whether to apply: `approved` only for `yes`; `interrupted` by Ctrl-C or the signal. */
export async function confirm(
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
  /** Whether input is a terminal (readline then turns Ctrl-C into an abort of the question). */
  terminal?: boolean,
  /** Aborted by a signal (SIGINT or SIGTERM sent to the process): the question is cancelled. */
  signal?: AbortSignal,
): Promise<Answer> {
  const rl = createInterface({ input, output, ...(terminal === undefined ? {} : { terminal }) });
  try {
    const answer = await rl.question(
      "\nDo you want to perform these actions?\n  Only 'yes' will be accepted to approve.\n\n  Enter a value: ",
      signal === undefined ? {} : { signal },
    );
    return answer.trim() === 'yes' ? 'approved' : 'declined';
  } catch (error) {
    // Ctrl-C at the prompt, or the signal: readline rejects the question with an AbortError.
    if (error instanceof Error && error.name === 'AbortError') return 'interrupted';
    throw error;
  } finally {
    rl.close();
  }
}
