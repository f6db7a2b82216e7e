/**
 * The only writers to stdout/stderr. Every line goes through `redact`, so a registered secret cannot
 * reach the terminal even if some message accidentally carries it.
 */
import { redact } from '../secrets.js';

export function writeOut(text: string): void {
  process.stdout.write(redact(text.endsWith('\n') ? text : `${text}\n`));
}

export function writeErr(text: string): void {
  process.stderr.write(redact(text.endsWith('\n') ? text : `${text}\n`));
}

/** Colour only on a TTY, and never when NO_COLOR is set (any value) or --no-color was given. */
export function colorEnabled(stream: NodeJS.WriteStream, flag: boolean | undefined): boolean {
  if (flag === false) return false;
  if (process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== '') return false;
  return stream.isTTY === true;
}
