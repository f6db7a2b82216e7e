/**
 * The single top-level error handler: one clear line on stderr, an exit code from the error's code,
 * and a stack trace only when WAFCTL_DEBUG=1.
 */
import { CommanderError } from 'commander';
import { exitCodeFor, WafctlError } from '../core/errors.js';
import { printable } from '../core/text.js';
import { Interrupted, type Io } from './io.js';
import { writeErr } from './output.js';

/**
 * The last line of defence for error text, which may quote names, keys and API answers: every
 * unprintable character is escaped, except the `\n` that separates the lines of a multi-line error
 * (a ConfigError lists one problem per line). Messages that quote data should still escape it
 * themselves, where it is put in (a `\n` inside a quoted name can only be told apart there).
 */
const printableLines = (text: string): string => text.split('\n').map(printable).join('\n');

/** Whether WAFCTL_DEBUG=1 asks for debug lines and stack traces. */
export function debugEnabled(io: Io): boolean {
  return io.env.WAFCTL_DEBUG === '1';
}

/**
 * What to check when the server refuses the credential: where it came from (the variable or file the
 * connection read it from, ApiError.credential), else every place a token may come from.
 */
function refusedHint(error: WafctlError): string | undefined {
  // Not `instanceof ApiError`: that would load the client (and zod) at start-up.
  const status = Reflect.get(error, 'status');
  if (error.code !== 'API_ERROR' || (status !== 401 && status !== 403)) return undefined;
  const credential = Reflect.get(error, 'credential');
  const check =
    typeof credential === 'string'
      ? credential
      : 'WAF_TOKEN or --token-file (or the groups of WAF_SIGNIN_USERNAME when signing in)';
  const refused =
    status === 401
      ? 'the server did not accept the token'
      : 'the server refused the token, or it lacks the privilege for this request';
  return `Hint: ${refused}; check ${check}.`;
}

/** The exit code a run that `error` stopped ends with (what `reportError` returns). */
export function exitCodeOf(error: unknown): number {
  if (error instanceof CommanderError || error instanceof Interrupted) return error.exitCode;
  return exitCodeFor(error);
}

/**
 * Prints the error and returns the exit code the process should end with. `prefix` goes after
 * `Error: ` (`production: `, when several environments ran).
 */
export function reportError(io: Io, error: unknown, prefix = ''): number {
  if (error instanceof CommanderError) {
    // Commander has already printed its usage message (or the help/version text).
    return error.exitCode;
  }
  // Work stopped for a signal, whose handler has already said so (cli/interrupt.ts).
  if (error instanceof Interrupted) return error.exitCode;
  if (error instanceof WafctlError) {
    writeErr(io, `Error: ${prefix}${printableLines(error.message)}`);
    const hint = refusedHint(error);
    if (hint !== undefined) writeErr(io, hint);
  } else {
    const message = error instanceof Error ? error.message : String(error);
    writeErr(io, `Error: ${prefix}internal error: ${printableLines(message)}`);
    if (!debugEnabled(io))
      writeErr(io, 'This is a bug in wafctl; run again with WAFCTL_DEBUG=1 for details.');
  }
  if (debugEnabled(io) && error instanceof Error && error.stack) writeErr(io, printableLines(error.stack));
  return exitCodeOf(error);
}
