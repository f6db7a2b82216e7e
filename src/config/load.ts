/**
 * The I/O half of loading: expand PATH arguments into YAML files, read them, and hand the texts to
 * `validateSources`. Directories are walked recursively for `*.yaml`/`*.yml`, skipping hidden
 * entries and node_modules, not following directory symlinks; all files are then sorted by path so
 * the result never depends on the order of the arguments or of the file system.
 *
 * Configuration is read only inside its boundary, checked with `realpath` (containment.ts,
 * `containedPath`) before any byte of a file is read; the pull request controls the files, not the
 * command line:
 *
 * - The configuration root R is `projectRoot(paths, cwd)` for `loadDesiredState`, `project.root`
 *   for `loadEnvironment`; its project file (wafctl.yaml) is read at R, by `readProject` too.
 * - The root itself: when R is lexically inside the working directory `cwd` (`.`, or a path whose
 *   relative path from `cwd` does not start with `..`), `realpath(R)` must be inside
 *   `realpath(cwd)`; otherwise the load is refused with one problem (R is, or goes through, a link
 *   that leaves the working directory), and nothing is read.
 * - A PATH argument is trusted as typed, what is found through it is not. The boundary of a PATH P
 *   is `realpath(R)` when P lies lexically inside R; otherwise P itself when it is a directory, or
 *   P's directory when it is a file (so `wafctl validate /abs/a.yaml /abs/b.yaml` from elsewhere
 *   works). Environment paths (`environments.*.paths`) always have the root's boundary.
 * - A file (found by the walk, given as a PATH, or the project file) is refused when its realpath
 *   is outside its boundary, or when it was reached through a symbolic link (its realpath, relative
 *   to the boundary, differs from its path as found, relative to the boundary as found) and that
 *   relative realpath has a component starting with `.` (`.git`) or equal to `node_modules`: the
 *   walk skips those, and a link must not reach them either. A directory given as PATH (or an
 *   environment path) is checked the same way before it is walked.
 * - A refusal is one problem naming the file as the user sees it (`config/x.yaml: refused: it is a
 *   symbolic link to a file outside the configuration root (config); ...`): the file is not read,
 *   and neither its content nor the link's target is printed. A link whose target does not exist
 *   is "no such file or directory", as before. Devices, FIFOs and sockets are refused as not
 *   regular files before containment is checked (a `stat`, which reads nothing); the size limit is
 *   checked after it, so the size of a file outside is never printed either.
 */
import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { constants, readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { type Boundary, containedPath, lexicallyInside, pathBoundary, rootBoundary } from './containment.js';
import { type Environment, withEnvironmentVars } from './env.js';
import { MAX_FILE_BYTES, tooLargeProblem } from './parse-yaml.js';
import { ConfigError, type ConfigProblem } from './problems.js';
import { type EnvironmentSpec, environmentPath, PROJECT_FILE, type Project, projectRoot } from './project.js';
import { PAUSE, runStepsPausing, type Steps } from './steps.js';
import { decodeUtf8 } from './text-checks.js';
import {
  type LoadedConfig,
  type SourceFile,
  type ValidateOptions,
  type ValidationResult,
  validatingLayers,
  validatingSources,
} from './validate-sources.js';

const YAML_FILE = /\.ya?ml$/i;

export interface LoadOptions extends Pick<ValidateOptions, 'credentials' | 'allowList' | 'policyOnly'> {
  /** Where `${VAR}` references are read (the command's environment, never implicitly the process's). */
  env: Environment;
  /** Directory relative PATHs are resolved against; problems still show the PATH as given. */
  cwd: string;
  /**
   * A PATH (or environment path) that does not exist, or holds no YAML file, holds nothing: the
   * trusted ref's policy, where a path the pull request adds does not exist yet.
   */
  skipMissing?: boolean | undefined;
  /**
   * The run's interrupt (SIGINT/SIGTERM): checked before each file is read, and between files while
   * they are validated; once aborted, the load throws its reason. See `betweenFiles`.
   */
  signal?: AbortSignal | undefined;
  /** Debug lines: one before each file's step of the validation (`validating FILE`; WAFCTL_DEBUG=1). */
  log?: ((line: string) => void) | undefined;
}

/**
 * Between two steps of a validation, which is synchronous (validate-sources.ts, in steps): the
 * event loop runs, so a SIGINT/SIGTERM received meanwhile reaches its handler (one that stops the
 * run at once does so here), then the load stops if the run was interrupted. Steps come between
 * files and inside a file read by yaml (every few thousand tokens, between documents and between a
 * document's checks: parse-yaml.ts), so a signal is answered within one step's work.
 */
async function betweenFiles(options: LoadOptions, step: string): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
  options.signal?.throwIfAborted();
  if (step !== PAUSE) options.log?.(step);
}

/** What of the load options validation takes. */
function validateOptions(options: LoadOptions, env: Environment = options.env): ValidateOptions {
  const { credentials, allowList, policyOnly } = options;
  return { env, credentials, allowList, policyOnly };
}

function errorCode(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

function fileProblem(file: string, message: string): ConfigProblem {
  return { file, line: 0, col: 0, path: '', message };
}

function readFailure(error: unknown): string {
  const code = errorCode(error);
  if (code === 'ENOENT') return 'no such file or directory';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  return `cannot read: ${error instanceof Error ? error.message : String(error)}`;
}

/** Relative paths (from `dir`) of the YAML files below it, not following directory symlinks. */
async function walk(dir: string, prefix: string): Promise<string[]> {
  const entries = await readdir(join(dir, prefix), { withFileTypes: true });
  const found: string[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const relative = prefix === '' ? entry.name : join(prefix, entry.name);
    if (entry.isDirectory()) for (const file of await walk(dir, relative)) found.push(file);
    else if ((entry.isFile() || entry.isSymbolicLink()) && YAML_FILE.test(entry.name)) found.push(relative);
  }
  return found;
}

interface ExpandedFile {
  display: string;
  absolute: string;
  /** What the file must stay inside (see the module comment); checked when it is read. */
  boundary: Boundary;
}

/** The configuration root's boundary, or the one problem that refuses the whole load. */
async function checkedRoot(
  root: string,
  cwd: string,
): Promise<{ boundary: Boundary } | { problem: ConfigProblem }> {
  try {
    return await rootBoundary(root, cwd);
  } catch (error) {
    return { problem: fileProblem(root, readFailure(error)) };
  }
}

/**
 * PATH arguments -> files (display path, absolute path, boundary), plus a problem per unusable
 * PATH. `root` is the configuration root (default: `projectRoot(paths, cwd)`).
 */
export async function expandPaths(
  paths: readonly string[],
  cwd: string,
  root?: string,
  skipMissing = false,
): Promise<{ files: ExpandedFile[]; problems: ConfigProblem[] }> {
  const checked = await checkedRoot(root ?? (await projectRoot(paths, cwd)), cwd);
  if ('problem' in checked) return { files: [], problems: [checked.problem] };
  return expandWithin(paths, cwd, checked.boundary, { rootOnly: false, skipMissing });
}

/**
 * `expandPaths` under a checked root; `rootOnly`: every PATH has the root's boundary (environments);
 * `skipMissing`: see `LoadOptions`.
 */
async function expandWithin(
  paths: readonly string[],
  cwd: string,
  root: Boundary,
  { rootOnly, skipMissing }: { rootOnly: boolean; skipMissing: boolean },
): Promise<{ files: ExpandedFile[]; problems: ConfigProblem[] }> {
  const byAbsolute = new Map<string, ExpandedFile>();
  const problems: ConfigProblem[] = [];
  for (const path of paths) {
    const absolute = resolve(cwd, path);
    let info: Awaited<ReturnType<typeof stat>>;
    let boundary: Boundary;
    try {
      info = await stat(absolute);
      boundary =
        rootOnly || lexicallyInside(root.lexical, absolute)
          ? root
          : await pathBoundary(path, cwd, info.isDirectory());
    } catch (error) {
      if (!(skipMissing && errorCode(error) === 'ENOENT'))
        problems.push(fileProblem(path, readFailure(error)));
      continue;
    }
    if (!info.isDirectory()) {
      if (!byAbsolute.has(absolute)) byAbsolute.set(absolute, { display: path, absolute, boundary });
      continue;
    }
    try {
      const contained = await containedPath(path, absolute, boundary, 'directory');
      if ('problem' in contained) {
        problems.push(contained.problem);
        continue;
      }
    } catch (error) {
      problems.push(fileProblem(path, readFailure(error)));
      continue;
    }
    const found = await walk(absolute, '');
    if (found.length === 0 && !skipMissing) {
      problems.push(fileProblem(path, 'no *.yaml or *.yml files in this directory'));
    }
    for (const relative of found) {
      const file = { display: join(path, relative), absolute: join(absolute, relative), boundary };
      if (!byAbsolute.has(file.absolute)) byAbsolute.set(file.absolute, file);
    }
  }
  const files = [...byAbsolute.values()].sort((a, b) =>
    a.display < b.display ? -1 : a.display > b.display ? 1 : 0,
  );
  return { files, problems };
}

const NOT_REGULAR =
  'not a regular file: wafctl reads configuration only from regular files (not devices, FIFOs, sockets)';

/**
 * A configuration file's text, or the one problem that stops it being read. Only regular files are
 * read (a symlink to one inside the file's boundary is fine): a link to /dev/zero would never end,
 * one to a FIFO would hang, and one to /proc/self/environ would put the CI's secrets in an error
 * message. Before any byte is read, the file's real path is checked against its boundary
 * (`containedPath`, see the module comment), and the real path is what is opened. /proc files say
 * they are regular and 0 bytes long, so reading stops one byte past the size the file claims, and a
 * file that holds more than it claims is refused too. At most MAX_FILE_BYTES are ever read.
 */
async function readConfigFile(file: ExpandedFile): Promise<{ text: string } | { problem: ConfigProblem }> {
  const refused = (message: string) => ({ problem: fileProblem(file.display, message) });
  // Synchronous calls: the same checks in the same order, without six round trips through libuv's
  // thread pool per file (most of the cost of reading a small file).
  const info = statSync(file.absolute);
  if (!info.isFile()) return refused(NOT_REGULAR);
  const contained = await containedPath(file.display, file.absolute, file.boundary, 'file');
  if ('problem' in contained) return contained;
  if (info.size > MAX_FILE_BYTES) return { problem: tooLargeProblem(file.display, info.size) };
  // O_NONBLOCK: opening a FIFO that replaced the file since `stat` must not wait for a writer.
  // O_NOFOLLOW: the real path was checked; a link put in its place since is not followed.
  const fd = openSync(contained.real, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  try {
    const opened = fstatSync(fd);
    if (!opened.isFile()) return refused(NOT_REGULAR);
    const claimed = Math.min(opened.size, MAX_FILE_BYTES);
    const buffer = new Uint8Array(claimed + 1);
    let length = 0;
    while (length < buffer.length) {
      const bytesRead = readSync(fd, buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > claimed) {
      if (opened.size > MAX_FILE_BYTES) return { problem: tooLargeProblem(file.display, opened.size) };
      return refused(
        `holds more than the ${opened.size} bytes its size says (a /proc file, or one being written): refusing to read it`,
      );
    }
    const decoded = decodeUtf8(buffer.subarray(0, length));
    if ('text' in decoded) return { text: decoded.text };
    const { line, col, message } = decoded;
    return { problem: { file: file.display, line, col, path: '', message } };
  } finally {
    closeSync(fd);
  }
}

/** The files' texts (a problem for each one that cannot be read); `project` marks the root's wafctl.yaml. */
async function readSources(
  files: readonly ExpandedFile[],
  project: string,
  problems: ConfigProblem[],
  signal: AbortSignal | undefined,
): Promise<SourceFile[]> {
  const sources: SourceFile[] = [];
  for (const file of files) {
    signal?.throwIfAborted();
    try {
      const read = await readConfigFile(file);
      if ('problem' in read) problems.push(read.problem);
      else {
        const isProject = file.absolute === project;
        sources.push({ file: file.display, text: read.text, ...(isProject ? { project: true } : {}) });
      }
    } catch (error) {
      problems.push(fileProblem(file.display, readFailure(error)));
    }
  }
  return sources;
}

/**
 * The loaded configuration of a validation run in steps, pausing between files (`betweenFiles`), or
 * a ConfigError carrying every problem found: `problems` (reading the files), then the validation's.
 * `files`: the files read, as the load names them.
 */
async function validated(
  steps: Steps<ValidationResult>,
  problems: readonly ConfigProblem[],
  files: string[],
  options: LoadOptions,
): Promise<LoadedConfig> {
  const result = await runStepsPausing(steps, (step) => betweenFiles(options, step));
  if (!result.ok || problems.length > 0) {
    throw new ConfigError(
      [...problems, ...(result.ok ? [] : result.problems)],
      result.ok ? [] : result.skipped,
    );
  }
  return { ...result.config, files };
}

/**
 * Loads and validates the desired state from PATHs (files or directories; default `.`). Throws a
 * ConfigError carrying every problem found. The `environments` key of the root's project file
 * (project.ts) is not configuration and is ignored; the rest of that file is read as usual.
 */
export async function loadDesiredState(
  paths: readonly string[],
  options: LoadOptions,
): Promise<LoadedConfig> {
  const { cwd } = options;
  const given = paths.length === 0 ? ['.'] : paths;
  const root = await projectRoot(given, cwd);
  const { files, problems } = await expandPaths(given, cwd, root, options.skipMissing);
  const project = resolve(cwd, root, PROJECT_FILE);
  const sources = await readSources(files, project, problems, options.signal);
  const steps = validatingSources(sources, validateOptions(options));
  return validated(
    steps,
    problems,
    files.map((file) => file.display),
    options,
  );
}

/**
 * Loads and validates one environment of the project: its paths in order, a later path overlaying
 * the earlier ones (overlay.ts), `${var.NAME}` reading its `vars`. A file that two paths both hold
 * is read once, in the first. The project file, when a path holds it, is read as configuration
 * without its `environments` key, as in any load. Throws a ConfigError carrying every problem found.
 */
export async function loadEnvironment(
  project: Project,
  environment: EnvironmentSpec,
  options: LoadOptions,
): Promise<LoadedConfig> {
  const { cwd } = options;
  const checked = await checkedRoot(project.root, cwd);
  if ('problem' in checked) throw new ConfigError([checked.problem]);
  const problems: ConfigProblem[] = [];
  const projectFile = resolve(cwd, project.root, PROJECT_FILE);
  const seen = new Set<string>();
  const layers: { path: string; sources: SourceFile[] }[] = [];
  const allFiles: string[] = [];
  for (const path of environment.paths) {
    const display = environmentPath(project, path);
    const expanded = await expandWithin([display], cwd, checked.boundary, {
      rootOnly: true,
      skipMissing: options.skipMissing === true,
    });
    for (const problem of expanded.problems) problems.push(problem);
    const files = expanded.files.filter((file) => !seen.has(file.absolute));
    for (const file of files) {
      seen.add(file.absolute);
      allFiles.push(file.display);
    }
    layers.push({ path: display, sources: await readSources(files, projectFile, problems, options.signal) });
  }
  const env = withEnvironmentVars(options.env, { name: environment.name, vars: environment.vars });
  return validated(validatingLayers(layers, validateOptions(options, env)), problems, allFiles, options);
}
