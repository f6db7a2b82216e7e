/**
 * The only writers to stdout/stderr. Every line goes through `redact`, so a registered secret cannot
 * reach the terminal even if some message accidentally carries it.
 */
import { writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { replaceDurably } from '../durable-files.js';
import { usageError } from '../errors.js';
import { containsSecret, redact } from '../secrets.js';

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

/**
 * Writes a file wafctl produces (a saved plan, a report, an export, a pulled configuration file).
 * Data is never redacted — a saved plan that says "[REDACTED]" would apply it — so a file that would
 * hold the API token (a configuration value or a live object carrying it) is refused instead.
 *
 * `atomic` (for files the user keeps, such as configuration): the text goes to a temporary file
 * beside the target, fsynced, then renamed over it (`replaceDurably`, as the emulator's state file),
 * so a crash, a full disk or a second process never leaves half a file. Not the default: `--out
 * /dev/stdout` and FIFOs cannot be renamed over.
 */
export async function writeTextFile(
  path: string,
  text: string,
  options: { atomic?: boolean } = {},
): Promise<void> {
  if (containsSecret(text)) {
    throw usageError(
      `refusing to write ${path}: it would contain the API token (a configuration value or a live object holds it).`,
    );
  }
  try {
    if (!options.atomic) await writeFile(path, text);
    else {
      const temporary = join(dirname(path), `.${basename(path)}.wafctl-${process.pid}.tmp`);
      await replaceDurably(path, temporary, Buffer.from(text, 'utf8'));
    }
  } catch (error) {
    throw usageError(
      `cannot write ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
      error,
    );
  }
}
