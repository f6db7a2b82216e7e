/**
 * What the `# yaml-language-server: $schema=...` line of an exported (or pulled) file points at. The
 * schema ships in the package (`schemas/wafctl.schema.json`). When the file's directory and the
 * schema belong to the same project (nearest ancestor with a package.json or .git: the wafctl
 * repository, or a project with wafctl in node_modules) the path is relative, so the files stay
 * valid for everyone who clones the project. Otherwise (a global install, a directory outside any
 * project) it is the schema of this very version as published (`publishedSchemaUrl`): the files are
 * meant for git, and an absolute local path (a temporary directory, a CI runner's checkout) would
 * resolve nowhere else.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The same relative location from src/ops/export/ and dist/ops/export/. */
export const SCHEMA_FILE = fileURLToPath(new URL('../../../schemas/wafctl.schema.json', import.meta.url));

/** package.json next to schemas/, read once (as `cli/version.ts` reads it: one source for the version). */
let packageInfo: { name: string; version: string } | undefined;
function ownPackage(): { name: string; version: string } {
  packageInfo ??= JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
    name: string;
    version: string;
  };
  return packageInfo;
}

/** `https://unpkg.com/wafctl@0.1.0/schemas/wafctl.schema.json`: the schema of this version, published. */
export function publishedSchemaUrl(version: string = ownPackage().version): string {
  return `https://unpkg.com/${ownPackage().name}@${version}/schemas/wafctl.schema.json`;
}

function projectRoot(dir: string): string | undefined {
  for (let current = dir; ; current = dirname(current)) {
    if (existsSync(join(current, 'package.json')) || existsSync(join(current, '.git'))) return current;
    if (dirname(current) === current) return undefined;
  }
}

function isInside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

/**
 * The schema reference for a file written into `dir` (relative to `cwd`, the command's current
 * directory): a relative path, or the published URL; never an absolute local path.
 */
export function schemaReference(
  dir: string,
  options: { cwd?: string; schemaFile?: string; version?: string } = {},
): string {
  const absoluteDir = options.cwd === undefined ? resolve(dir) : resolve(options.cwd, dir);
  const schemaFile = options.schemaFile ?? SCHEMA_FILE;
  const root = projectRoot(absoluteDir);
  if (root === undefined || !isInside(schemaFile, root)) return publishedSchemaUrl(options.version);
  return relative(absoluteDir, schemaFile).split(sep).join('/');
}
