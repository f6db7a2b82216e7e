/**
 * Everything a command may take from the process, handed to it instead of read from `process`: only
 * `main.ts` builds one from the real process (`processIo`), and tests build one around strings
 * (test/helpers/cli.ts), so a command runs in the test's own process as it does in a terminal.
 */
import type { Clock } from '../api/retry.js';
import type { WaitTimer } from '../ops/apply/wait.js';
import { SIGNAL_EXIT_CODES } from '../ops/defaults.js';

/** A stream a command writes to, and whether a person watches it (colour, live progress). */
export type OutputStream = NodeJS.WritableStream & {
  readonly isTTY?: boolean | undefined;
  /** The terminal's width, when it is one (help text wraps to it). */
  readonly columns?: number | undefined;
};

export type InterruptSignal = keyof typeof SIGNAL_EXIT_CODES;

export interface Io {
  readonly stdout: OutputStream;
  readonly stderr: OutputStream;
  /** The confirmation prompt reads it; `isTTY` says whether a person can answer. */
  readonly stdin: NodeJS.ReadableStream & { readonly isTTY?: boolean | undefined };
  /** The variables wafctl reads (WAF_*, WAFCTL_*, NO_COLOR, and `${VAR}` in configuration). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** What relative paths (arguments, `--out`, `--token-file`, ...) are relative to. */
  readonly cwd: string;
  /**
   * Timers of the API client (retries, deadlines) and of `apply --wait` (its sleeps, and `timer`, the
   * deadline of its reads in flight); the system clock when absent.
   */
  readonly clock?: (Partial<Clock> & { timer?: WaitTimer | undefined }) | undefined;
  /**
   * Calls `handler` on SIGINT and SIGTERM until the returned function is called. Within a run
   * (`runWafctl`), only the handler added last gets a signal (cli/interrupt.ts `layeredSignals`).
   */
  onSignal(handler: (signal: InterruptSignal) => void): () => void;
  /** Ends the process at once with `code` (a second interrupt: nothing may run after it). */
  exit(code: number): never;
  /**
   * Aborted at the run's first SIGINT or SIGTERM, whichever handler handles it (`layeredSignals`
   * sets it), with an `Interrupted` reason: long CPU work (loading configuration) checks it between
   * its pieces and stops. Absent outside a run.
   */
  readonly interrupted?: AbortSignal | undefined;
}

/**
 * Why `Io.interrupted` was aborted. Work that stops for it throws it; the run then ends with the
 * signal's exit code and prints nothing more: the signal's handler has said what happened.
 */
export class Interrupted extends Error {
  readonly exitCode: number;
  constructor(readonly signal: InterruptSignal) {
    super(`interrupted (${signal})`);
    this.name = 'Interrupted';
    this.exitCode = SIGNAL_EXIT_CODES[signal];
  }
}
