/**
 * The only writers to stdout/stderr. Every line goes through `redact`, so a registered secret cannot
 * reach the terminal even if some message accidentally carries it, then through
 * `neutralizeWorkflowCommands`, so a name or value from a pull request cannot become a GitHub Actions
 * workflow command in a CI log.
 */
import { writeFileSync } from 'node:fs';
import { lstat, realpath, stat, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { usageError, WafctlError } from '../core/errors.js';
import { containsSecret, redact } from '../core/secrets.js';
import { neutralizeWorkflowCommands } from '../core/text.js';
import type { FileAttributes } from '../files/durable-files.js';
import type { Io } from './io.js';

const line = (text: string): string =>
  neutralizeWorkflowCommands(redact(text.endsWith('\n') ? text : `${text}\n`));

/** A line (or lines) on stdout, through the redaction and CI-log guards. */
export function writeOut(io: Io, text: string): void {
  io.stdout.write(line(text));
}

/** A line (or lines) on stderr, through the redaction and CI-log guards. */
export function writeErr(io: Io, text: string): void {
  io.stderr.write(line(text));
}

/** Colour only when stdout is a TTY, and never when NO_COLOR is set (any value) or --no-color was given. */
export function colorEnabled(io: Io, flag: boolean | undefined): boolean {
  if (flag === false) return false;
  if (io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== '') return false;
  return io.stdout.isTTY === true;
}

const secretRefusal = (path: string) =>
  `refusing to write ${path}: it would contain the API token (a configuration value or a live object holds it).`;

/**
 * The file an atomic write replaces: a symbolic link is followed to its target (the link stays,
 * the target gets the text), whose mode and owner the new text keeps. Nothing there: `path`.
 */
async function replacementTarget(
  path: string,
  /** `path` as the user wrote it, for messages. */
  shown: string,
): Promise<{ target: string; keep?: FileAttributes }> {
  let target: string;
  try {
    target = await realpath(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    const link = await lstat(path).catch(() => undefined);
    if (link?.isSymbolicLink()) {
      throw usageError(`refusing to write ${shown}: it is a symbolic link to a file that does not exist`);
    }
    return { target: path };
  }
  const info = await stat(target);
  if (!info.isFile()) {
    const what = target === path ? 'it' : `its target ${target}`;
    throw usageError(`refusing to write ${shown}: ${what} is not a regular file`);
  }
  return { target, keep: { mode: info.mode & 0o7777, uid: info.uid, gid: info.gid } };
}

/**
 * Writes a file wafctl produces (a saved plan, a report, a pulled configuration file).
 * Data is never redacted — a saved plan that says "[REDACTED]" would apply it — so a file that would
 * hold the API token (a configuration value or a live object carrying it) is refused instead.
 *
 * `atomic` (for files the user keeps, such as configuration): the text goes to a fresh temporary
 * file beside the target, fsynced, then renamed over it (`replaceDurably`, as the emulator's state
 * file), so a crash, a full disk or a second process never leaves half a file. A symbolic link is
 * written through to its target, and the target keeps its mode (and owner where the process may
 * set it): the user's layout and permissions are theirs. Not the default: `--out /dev/stdout` and
 * FIFOs cannot be renamed over.
 */
export async function writeTextFile(
  io: Io,
  path: string,
  text: string,
  options: { atomic?: boolean } = {},
): Promise<void> {
  if (containsSecret(text)) throw usageError(secretRefusal(path));
  try {
    const where = resolve(io.cwd, path);
    if (!options.atomic) await writeFile(where, text);
    else {
      const { target, keep } = await replacementTarget(where, path);
      // Loaded here: every command writes through this module, few replace a file.
      const { replaceDurably, temporaryPathFor } = await import('../files/durable-files.js');
      await replaceDurably(target, temporaryPathFor(target), Buffer.from(text, 'utf8'), undefined, {
        keep,
        exclusive: true,
      });
    }
  } catch (error) {
    if (error instanceof WafctlError) throw error;
    throw usageError(
      `cannot write ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
      error,
    );
  }
}

/**
 * `writeTextFile` at once, not atomic: for a signal's handler, which exits right after. A failure is
 * returned as one line to print, not thrown: the handler still has to stop the process.
 */
export function writeTextFileNow(io: Io, path: string, text: string): string | undefined {
  if (containsSecret(text)) return secretRefusal(path);
  try {
    writeFileSync(resolve(io.cwd, path), text);
    return undefined;
  } catch (error) {
    return `cannot write ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`;
  }
}
