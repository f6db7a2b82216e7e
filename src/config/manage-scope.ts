/**
 * The `manage:` scope of each family once merged across files, and the declared objects it leaves
 * out: such an object would never be created or updated (the planner refuses it), so it is said at
 * validation.
 */
import { type ManageScope, scopeMismatch } from '../core/scope.js';
import type { Kind, Section } from '../kinds/index.js';
import { hasPath } from './mapping.js';
import { isSuperseded } from './overlay.js';
import type { ConfigProblem } from './problems.js';
import { type Family, manageAll, type ScopeInput } from './schema.js';
import type { CheckedDocument } from './validate-document.js';
import { formatPath } from './yaml-path.js';

/** The match fields a file left out are dropped, so every listed field really has globs. */
function scopeFrom(parsed: ScopeInput | undefined): ManageScope {
  if (parsed === undefined) return manageAll();
  const match = Object.entries(parsed.match).filter(
    (entry): entry is [string, string[]] => entry[1] !== undefined,
  );
  return { prune: parsed.prune, match: Object.fromEntries(match) };
}

/** Each family's scope from the merged `manage:` (a family it leaves out: `manageAll`). */
export function finalManage(family: Family, merged: unknown): Record<Section, ManageScope> {
  const parsed = family.manage.parse(merged);
  return family.bySection((kind) => scopeFrom(parsed[kind.section]));
}

/** ` (set at FILE:LINE:COL)`: where `manage.<section>.match.<field>` is written (maybe another file). */
function matchSetAt(valid: readonly CheckedDocument[], section: string, field: string): string {
  const path = ['manage', section, 'match', field];
  const document = valid.find((entry) => hasPath(entry.document.data, path))?.document;
  if (document === undefined) return '';
  const { line, col } = document.locate(path);
  return ` (set at ${document.file}:${line}:${col})`;
}

/**
 * The problem of a declared object (`section[index]`) that `scope` leaves out: at the field that
 * fails (at the object when the field was left to its default), naming the glob list and where
 * `manage` sets it; undefined when the object is in scope.
 */
function outsideScope(
  valid: readonly CheckedDocument[],
  { document }: CheckedDocument,
  kind: Kind,
  index: number,
  object: Record<string, unknown>,
  scope: ManageScope,
): ConfigProblem | undefined {
  const mismatch = scopeMismatch(object, scope);
  if (mismatch === undefined) return undefined;
  const section = kind.section;
  const { field, value, globs } = mismatch;
  const declared = document.has([section, index, field]);
  const path = declared ? [section, index, field] : [section, index];
  const { line, col } = document.locate(path);
  const shown =
    value === undefined
      ? `${field} (not set)`
      : `${field} ${JSON.stringify(value)}${declared ? '' : ' (the default)'}`;
  const listed = `manage.${section}.match.${field} [${globs.map((glob) => JSON.stringify(glob)).join(', ')}]`;
  return {
    file: document.file,
    line,
    col,
    path: formatPath(path),
    message: `${shown} is outside the manage scope: it matches none of ${listed}${matchSetAt(valid, section, field)}, so wafctl would never create or update this ${kind.noun}`,
  };
}

/** Every declared object outside its family's `manage.<section>.match` (see the module comment). */
export function scopeProblems(
  valid: readonly CheckedDocument[],
  manage: Record<string, ManageScope>,
  kinds: readonly Kind[],
): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const entry of valid) {
    for (const kind of kinds) {
      const section = kind.section;
      const scope = manage[section];
      if (scope === undefined || Object.keys(scope.match).length === 0) continue;
      const objects = entry.output[section];
      if (!Array.isArray(objects)) continue;
      objects.forEach((object: Record<string, unknown> | undefined, index) => {
        if (object === undefined) return; // it failed the schema: its own problems are said
        if (isSuperseded(entry.document, section, index)) return; // a later path overrides or removes it
        const problem = outsideScope(valid, entry, kind, index, object, scope);
        if (problem !== undefined) problems.push(problem);
      });
    }
  }
  return problems;
}
