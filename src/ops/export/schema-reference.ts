/**
 * What the `# yaml-language-server: $schema=...` line of an exported file points at. The schema ships
 * in the package (`schemas/wafctl.schema.json`). When the file's directory and the schema belong to
 * the same project (nearest ancestor with a package.json or .git: the wafctl repository, or a project
 * with wafctl in node_modules) the path is relative, so the files stay valid for everyone who clones
 * the project; otherwise (a global install) it is absolute, the only path that resolves at all.
 */
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The same relative location from src/ops/export/ and dist/ops/export/. */
export const SCHEMA_FILE = fileURLToPath(new URL('../../../schemas/wafctl.schema.json', import.meta.url));

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

/** The schema reference for a file written into `dir` (resolved against the current directory). */
export function schemaReference(dir: string, schemaFile: string = SCHEMA_FILE): string {
  const absoluteDir = resolve(dir);
  const root = projectRoot(absoluteDir);
  const path =
    root !== undefined && isInside(schemaFile, root) ? relative(absoluteDir, schemaFile) : schemaFile;
  return path.split(sep).join('/');
}
