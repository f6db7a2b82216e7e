/**
 * Where configuration may be read from: every file and directory is resolved with `realpath` before
 * any byte of it is read, and refused when it leaves its boundary (the definitions are in load.ts's
 * module comment). A pull request controls the files of the checkout, not the command line: a link
 * in it must not make wafctl read, and quote in an error, `.git/config` or `/etc/passwd`.
 *
 * The work is bounded: one `realpath` (which the kernel bounds on link chains, ELOOP) and one
 * `lstat` per path checked, no recursion. Messages name the path as the user sees it, never the
 * link's target text.
 */
import { realpathSync } from 'node:fs';
import { lstat, realpath, stat } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { ConfigError, type ConfigProblem } from './problems.js';

/** A directory configuration must stay inside. */
export interface Boundary {
  /** Its absolute path as found (links not resolved). */
  lexical: string;
  /** `realpath(lexical)`. */
  real: string;
  /** How messages name it: `the configuration root (config)`. */
  name: string;
}

/** `path` relative to `dir`, or undefined when it is outside `dir` (both absolute, no file access). */
export function inside(dir: string, path: string): string | undefined {
  const rel = relative(dir, path);
  if (rel === '') return rel;
  if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return undefined;
  return rel;
}

/** Whether `path` lies lexically inside `dir` (both absolute): no file system access. */
export function lexicallyInside(dir: string, path: string): boolean {
  return inside(dir, path) !== undefined;
}

function refusal(display: string, message: string): ConfigProblem {
  return { file: display, line: 0, col: 0, path: '', message: `refused: ${message}` };
}

/** `it is a symbolic link`, or `its path goes through one` when a directory on the way is the link. */
async function howLinked(absolute: string): Promise<string> {
  const info = await lstat(absolute).catch(() => undefined);
  return info?.isSymbolicLink() === true ? 'it is a symbolic link' : 'its path goes through a symbolic link';
}

/**
 * The configuration root's boundary, or the one problem refusing it: a root lexically inside the
 * working directory must stay inside it once resolved. Throws what `realpath` throws (ENOENT: the
 * root does not exist).
 */
export async function rootBoundary(
  root: string,
  cwd: string,
): Promise<{ boundary: Boundary } | { problem: ConfigProblem }> {
  const lexical = resolve(cwd, root);
  const real = await realpath(lexical);
  if (lexicallyInside(cwd, lexical) && inside(await realpath(cwd), real) === undefined) {
    const how = await howLinked(lexical);
    return {
      problem: refusal(
        root,
        `the configuration root leaves the working directory: ${how} to a directory outside it; wafctl reads configuration only inside the working directory`,
      ),
    };
  }
  return { boundary: { lexical, real, name: `the configuration root (${root})` } };
}

/**
 * The boundary of a PATH argument that lies outside the configuration root: the PATH itself when it
 * is a directory, its directory when it is a file (the PATH is trusted as typed). Throws what
 * `realpath` throws.
 */
export async function pathBoundary(path: string, cwd: string, isDirectory: boolean): Promise<Boundary> {
  const given = resolve(cwd, path);
  const lexical = isDirectory ? given : dirname(given);
  const name = isDirectory
    ? `the directory given (${path})`
    : `the directory of the file given (${dirname(path)})`;
  return { lexical, real: await realpath(lexical), name };
}

/**
 * THE check, made before anything is read: the real path of `absolute` (a file or a directory,
 * shown as `display`), or the one problem refusing it. Refused when its real path is outside the
 * boundary, or when it was reached through a symbolic link (its real path, relative to the
 * boundary, differs from its path as found) and that relative path has a component starting with
 * `.` or equal to `node_modules`, which the directory walk skips. Throws what `realpath` throws
 * (ENOENT for a link whose target does not exist: the caller's "no such file").
 */
export async function containedPath(
  display: string,
  absolute: string,
  boundary: Boundary,
  kind: 'file' | 'directory',
): Promise<{ real: string } | { problem: ConfigProblem }> {
  // Synchronous: one realpath(3) in this thread, not a round trip through libuv's pool (~10x dearer per file).
  const real = realpathSync.native(absolute);
  const rel = inside(boundary.real, real);
  if (rel === undefined) {
    const how = await howLinked(absolute);
    return {
      problem: refusal(
        display,
        `${how} to a ${kind} outside ${boundary.name}; wafctl reads configuration only inside it`,
      ),
    };
  }
  if (rel === inside(boundary.lexical, absolute)) return { real };
  const parts = rel.split(sep);
  const at = parts.findIndex((part) => part.startsWith('.') || part === 'node_modules');
  if (at === -1) return { real };
  const part = parts[at] ?? '';
  const last = at === parts.length - 1;
  const where =
    part === 'node_modules'
      ? last
        ? 'node_modules'
        : `a ${kind} in node_modules`
      : last
        ? `a hidden ${kind} (${part})`
        : `a ${kind} in a hidden directory (${part})`;
  const how = await howLinked(absolute);
  return {
    problem: refusal(
      display,
      `${how} to ${where}; wafctl reads no configuration from hidden directories or node_modules`,
    ),
  };
}

/**
 * The real path of the project file `file` (wafctl.yaml, as problems name it) at `root`, checked as
 * the loader checks it: the root, then the file. Undefined when either does not exist or the file
 * is not a regular file (the loader says why, as for any configuration file). Throws a ConfigError
 * holding the one problem refusing either.
 */
export async function containedProjectFile(
  root: string,
  file: string,
  cwd: string,
): Promise<string | undefined> {
  try {
    const checked = await rootBoundary(root, cwd);
    if ('problem' in checked) throw new ConfigError([checked.problem]);
    const absolute = resolve(cwd, file);
    if (!(await stat(absolute)).isFile()) return undefined;
    const contained = await containedPath(file, absolute, checked.boundary, 'file');
    if ('problem' in contained) throw new ConfigError([contained.problem]);
    return contained.real;
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    return undefined;
  }
}
