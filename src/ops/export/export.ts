/**
 * `wafctl export`: the live state -> configuration files. Built on the kinds' `fetchAll` and their
 * normalised attributes, the very records `plan` compares against, so an export can only plan to
 * "No changes." Every text produced is loaded back with the configuration loader before anyone sees
 * it: a file wafctl itself could not load would be a bug, and is reported as one.
 */
import { join } from 'node:path';
import type { ApiClient } from '../../api/index.js';
import { MAX_FILE_BYTES } from '../../config/parse-yaml.js';
import { formatProblem } from '../../config/problems.js';
import { validateSources } from '../../config/validate-sources.js';
import { usageError } from '../../core/errors.js';
import { containsSecret, REDACTED } from '../../core/secrets.js';
import type { Kind } from '../../kinds/index.js';
import type { RemoteRecord } from '../../kinds/kind.js';
import { readFamilies } from '../../kinds/read-families.js';
import { NO_USER_LISTING_NOTE, readUserDirectory, withUsernames } from '../../kinds/users.js';
import { type CatalogSettings, catalogSettingsOf, RULES_SECTION } from './catalog-extensions.js';
import { type ExportSection, renderExportFile } from './document.js';
import { type LeftOut, selectExportable } from './select.js';

export interface LiveExport {
  /** In registry order; a family skipped as absent (kinds/read-families.ts) has none. */
  sections: ExportSection[];
  leftOut: LeftOut[];
  /**
   * The names the exported rules use beyond the catalog (catalog-extensions.ts), written with the
   * application rules; absent or empty when they use none.
   */
  settings?: CatalogSettings;
}

export interface ExportFile {
  /** A file name in `--dir` mode, `-` for stdout. */
  name: string;
  text: string;
}

/**
 * The live state of `kinds`, as export writes it. A family the server lacks or hides (its listing
 * answers 404 or 403) is skipped with a note, unless `asked` says the user named it (`--kind`): then,
 * as with `get`, its error stands. A skipped family gets no section, so neither its objects nor a
 * `manage` scope that would prune them.
 */
export async function readLiveExport(
  api: ApiClient,
  kinds: readonly Kind[],
  options: { concurrency: number; warn?: (line: string) => void; asked?: (kind: Kind) => boolean },
): Promise<LiveExport> {
  const read = await readFamilies(api, kinds, {
    concurrency: options.concurrency,
    declared: options.asked ?? (() => false),
    warn: options.warn,
  });
  const present = kinds.filter((_kind, i) => read[i] !== undefined);
  const remote = await recordsWithUsernames(
    api,
    present,
    read.filter((records) => records !== undefined),
    options.warn,
  );
  const sections: ExportSection[] = [];
  const leftOut: LeftOut[] = [];
  present.forEach((kind, i) => {
    const selected = selectExportable(kind, remote[i] ?? []);
    sections.push({
      ...(kind.singleton ? { singleton: true } : {}),
      section: kind.section,
      objects: selected.objects,
      leftOut: selected.leftOut.length,
      readOnly: selected.readOnly,
      comments: selected.comments,
      ...(selected.expectation === undefined ? {} : { expectation: selected.expectation }),
    });
    for (const entry of selected.leftOut) leftOut.push(entry);
  });
  const rules = sections.find((section) => section.section === RULES_SECTION)?.objects ?? [];
  return { sections, leftOut, settings: catalogSettingsOf(rules) };
}

/**
 * The records with the users of their kinds' `userFields` written by username (ids where a username
 * would not name that user alone), through the user directory, read only when some record has
 * members. Without a directory (a 404) members stay ids, and `warn` says so once.
 */
async function recordsWithUsernames(
  api: ApiClient,
  kinds: readonly Kind[],
  remote: readonly RemoteRecord[][],
  warn: ((line: string) => void) | undefined,
): Promise<RemoteRecord[][]> {
  const hasMembers = (kind: Kind, record: RemoteRecord) =>
    (kind.userFields ?? []).some((field) => {
      const value = record.attributes[field];
      return Array.isArray(value) && value.length > 0;
    });
  if (!kinds.some((kind, i) => (remote[i] ?? []).some((record) => hasMembers(kind, record)))) {
    return [...remote];
  }
  const directory = await readUserDirectory(api);
  if (directory === undefined) {
    warn?.(NO_USER_LISTING_NOTE);
    return [...remote];
  }
  return kinds.map((kind, i) =>
    (remote[i] ?? []).map((record) =>
      hasMembers(kind, record)
        ? { ...record, attributes: withUsernames(kind, record.attributes, directory) }
        : record,
    ),
  );
}

/** `groups.yaml`, `application-rules.yaml`, ...: one file per kind in `--dir` mode. */
export function fileNameOf(section: ExportSection['section']): string {
  return `${section.replaceAll('_', '-')}.yaml`;
}

export function exportToDirectory(live: LiveExport, schemaReference: string): ExportFile[] {
  return live.sections.map((section) => ({
    name: fileNameOf(section.section),
    text: renderExportFile([section], schemaReference, {
      marker: true,
      // With the rules that use the names: an export of other kinds needs none.
      settings: section.section === RULES_SECTION ? live.settings : undefined,
    }),
  }));
}

export function exportToStream(live: LiveExport, schemaReference: string): ExportFile {
  return { name: '-', text: renderExportFile(live.sections, schemaReference, { settings: live.settings }) };
}

/**
 * Loads the texts as `validate` would (no environment: every `${` was escaped) and throws on any
 * problem. Files over the loader's size limit cannot be loaded at all: they are returned, not
 * checked, so the caller can say so (the export still holds the user's data).
 */
export function assertLoadable(files: readonly ExportFile[]): ExportFile[] {
  const oversized = files.filter((file) => Buffer.byteLength(file.text, 'utf8') > MAX_FILE_BYTES);
  const checked = files.filter((file) => !oversized.includes(file));
  const result = validateSources(
    checked.map((file) => ({ file: file.name, text: file.text })),
    { env: {} },
  );
  if (!result.ok) {
    const problems = result.problems.map(formatProblem).join('\n');
    throw new Error(`the exported configuration does not load:\n${problems}`);
  }
  return oversized;
}

/**
 * The export is configuration: printed (`dir` undefined) with the token replaced by [REDACTED], it
 * would silently plan to a change, and written into `dir` it would put the token in git. Either is
 * refused, naming the line, unless redaction was asked for: `redact` names how (`--redact-secrets`).
 */
export function assertNoToken(files: readonly ExportFile[], dir: string | undefined, redact: string): void {
  for (const { name, text } of files) {
    if (!containsSecret(text)) continue;
    const line = text.split('\n').findIndex(containsSecret) + 1;
    const action = dir === undefined ? 'print the export' : `write ${join(dir, name)}`;
    throw usageError(
      `refusing to ${action}: the live state holds the API token${line > 0 ? ` (line ${line})` : ''}, which an export must neither show as ${REDACTED} nor write out. Pass ${redact} to export it redacted on purpose (it will then not plan to no changes).`,
    );
  }
}
