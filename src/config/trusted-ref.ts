/**
 * `--trusted-ref REF`: the files of a git commit, to read what a pull request must not change from
 * (the connections of wafctl.yaml, the `variables` allow-list, the policy settings, `manage`).
 *
 * The files the command would read (its PATHs, or the configuration root with environments) are
 * written, as they are at REF, into a fresh temporary directory that mirrors the repository, and read
 * from there by the same loader as the work tree's, so both sides are read by one set of rules
 * (overlays, links that leave the root refused, ...). Only git plumbing is used, through a temporary
 * index file: the repository's own index, work tree and refs are never touched.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join, resolve, sep } from 'node:path';
import { WafctlError } from '../core/errors.js';
import { printable } from '../core/text.js';
import { inside } from './containment.js';
import type { Environment } from './env.js';

/** The variable `--trusted-ref` defaults to. */
export const TRUSTED_REF_VARIABLE = 'WAFCTL_TRUSTED_REF';

export interface TrustedTree {
  /** As given: `origin/main`. */
  ref: string;
  /** The commit it names (40 hex digits). */
  commit: string;
  /** What the command's working directory is inside the checkout: load with it and `pathFor`'s paths. */
  cwd: string;
  /** A PATH of the command (relative to its working directory, or absolute) inside the checkout. */
  pathFor(path: string): string;
  /** A path the loader shows for a file of the checkout, as the same file of the work tree is shown. */
  shownAs(path: string): string;
  dispose(): Promise<void>;
}

function trustError(message: string): WafctlError {
  return new WafctlError('USAGE', message, { userFault: true });
}

/** A ref as git takes it on a command line, and nothing that git could read as an option. */
const REF = /^[A-Za-z0-9_][A-Za-z0-9_./@{}^~+-]{0,254}$/;

/** Bounds the file list a commit may hand over (a monorepo's list is still far below it). */
const MAX_LIST_BYTES = 256 * 1024 * 1024;

/** Runs git; its first line of stderr is the message of a failure, never more. */
function git(
  args: readonly string[],
  options: { cwd: string; env: Environment; input?: string },
): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const child = execFile(
      'git',
      args,
      {
        cwd: options.cwd,
        env: { ...options.env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' },
        maxBuffer: MAX_LIST_BYTES,
        encoding: 'utf8',
      },
      (error, stdout, stderr) => {
        if (error === null) return resolvePromise(stdout);
        const code = (error as NodeJS.ErrnoException).code;
        const said = stderr.split('\n').find((line) => line.trim() !== '') ?? error.message;
        reject(code === 'ENOENT' ? new Error('git is not installed (not on PATH)') : new Error(said));
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

/**
 * Writes `pathspecs` (repository paths, '' for all) of the commit REF names into a temporary
 * directory. `cwd` is the command's working directory, `root` the configuration root: the repository
 * is the one that holds the root.
 */
export async function checkoutTrustedRef(
  ref: string,
  options: { cwd: string; root: string; paths: readonly string[]; env: Environment },
): Promise<TrustedTree> {
  if (!REF.test(ref) || ref.includes('..')) {
    throw trustError(
      `--trusted-ref ${printable(JSON.stringify(ref))} is not a git ref (a branch, tag or commit)`,
    );
  }
  const { env } = options;
  const cwd = await realpath(options.cwd);
  const rootDir = resolve(cwd, options.root);
  const top = await git(['rev-parse', '--show-toplevel'], { cwd: rootDir, env })
    .then((out) => realpath(out.trim()))
    .catch((error: Error) => {
      throw trustError(
        `--trusted-ref reads the configuration from git, and ${options.root} is not in a git repository (${error.message})`,
      );
    });
  const commit = await git(['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`], {
    cwd: top,
    env,
  })
    .then((out) => out.trim())
    .catch(() => {
      throw trustError(
        `--trusted-ref ${ref} names no commit in this repository: fetch it first (e.g. git fetch origin ${ref.replace(/^origin\//, '')})`,
      );
    });
  const inRepository = (path: string): string => {
    const within = inside(top, resolve(cwd, path));
    if (within === undefined) {
      throw trustError(
        `--trusted-ref reads the repository at ${top}, which does not hold ${path}: give PATHs inside it`,
      );
    }
    return within;
  };
  const pathspecs = options.paths.map(inRepository);
  const dir = await mkdtemp(join(tmpdir(), 'wafctl-trusted-'));
  try {
    const treeTop = join(dir, 'tree');
    await writeFiles(commit, pathspecs, { top, dir, treeTop, env });
    // The root is there even when REF has none of its files: it then holds no policy.
    await mkdir(join(treeTop, inRepository(options.root)), { recursive: true });
    const cwdInside = inside(top, cwd);
    const mirrored = cwdInside === undefined ? undefined : join(treeTop, cwdInside);
    if (mirrored !== undefined) await mkdir(mirrored, { recursive: true });
    return {
      ref,
      commit,
      cwd: mirrored ?? treeTop,
      pathFor: (path) =>
        mirrored !== undefined && !isAbsolute(path) ? path : join(treeTop, inRepository(path)),
      shownAs: (path) => {
        const inTree = inside(treeTop, resolve(mirrored ?? treeTop, path));
        if (inTree === undefined) return path;
        return isAbsolute(path) ? join(top, inTree) : path;
      },
      dispose: () => rm(dir, { recursive: true, force: true }),
    };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

/** `git read-tree` into a temporary index, then the files under `pathspecs` checked out of it. */
async function writeFiles(
  commit: string,
  pathspecs: readonly string[],
  where: { top: string; dir: string; treeTop: string; env: Environment },
): Promise<void> {
  const env = { ...where.env, GIT_INDEX_FILE: join(where.dir, 'index') };
  const run = (args: string[], input?: string) =>
    git(args, { cwd: where.top, env, ...(input === undefined ? {} : { input }) });
  await run(['read-tree', commit]);
  // `:(literal)`: a PATH is a path, never a glob of git's.
  const specs = pathspecs.map((path) => `:(literal)${path === '' ? '.' : path}`);
  const files = await run(['ls-files', '-z', '--', ...specs]);
  if (files === '') return;
  await run(['checkout-index', '-z', '--stdin', `--prefix=${where.treeTop}${sep}`], files);
}
