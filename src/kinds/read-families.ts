/**
 * Reading families' live objects, with the one rule for a family the server lacks or hides (issue
 * 40): a family the configuration does not declare, whose listing the server answers 404 (it does
 * not have it: a server without the vendor's network-rule settings) or 403 (it will not show this
 * token: a read-only operator), is skipped with one note, so that export, `pull --adopt` and a live
 * `compare` read the rest. The error stands for a family the configuration declares (it cannot be
 * planned without its live objects), for any other status or a network error, and for a 404 of one
 * object while hydrating (the listing was read: the family exists).
 *
 * The user directory (users.ts) is not read through this: it is no family of the configuration,
 * and a 403 there must stay an error, since members written by username cannot be resolved without
 * it (taken as ids, they would be sent to the server as ids). Its 404 is its own note.
 */
import { type ApiClient, ApiError } from '../api/index.js';
import type { DesiredLookup, Kind, RemoteRecord } from './kind.js';

/**
 * Each registered family's listing, what its `fetchAll` reads first (the API modules keep their
 * paths to themselves; test/e2e/absent-families.test.ts pins each). A 404 or 403 of any other request
 * of a `fetchAll` is no absence; a family not listed here (a test's own) is never absent.
 */
const LISTINGS: Readonly<Record<string, string>> = {
  group: '/api/v1/groups',
  application_rule: '/api/v1/application_rules',
  notification: '/api/v1/settings/notifications',
  schedule: '/api/v1/reports/schedules',
  network_rule_settings: '/api/v1/settings/rules',
};

const ABSENT: Readonly<Record<number, string>> = {
  404: 'the server does not have it',
  403: 'this token may not read it',
};

export interface ReadFamiliesOptions {
  /** GET-one calls in flight at once while hydrating. */
  concurrency: number;
  /** The configuration's objects of a family by key (refresh; see `FetchOptions.desired`). */
  desired?: (kind: Kind) => DesiredLookup | undefined;
  /** Whether the configuration declares the family: its listing's 404 or 403 is then an error. */
  declared: (kind: Kind) => boolean;
  /** A note for the user (one line, on stderr): said once per skipped family, in `kinds`' order. */
  warn?: ((line: string) => void) | undefined;
}

/** How a note names a family: the settings by their noun, a list by its section's words. */
const familyWords = (kind: Kind): string => (kind.singleton ? kind.noun : kind.section.replaceAll('_', ' '));

/** The note that skips `kind`, when `error` is its listing's 404 or 403; undefined otherwise. */
function absenceNote(kind: Kind, error: unknown): string | undefined {
  if (!(error instanceof ApiError) || error.method !== 'GET' || error.path !== LISTINGS[kind.name]) {
    return undefined;
  }
  const why = ABSENT[error.status];
  if (why === undefined) return undefined;
  return `skipped ${familyWords(kind)}: ${error.method} ${error.path} answered ${error.status} (${why}); the configuration does not declare them`;
}

/**
 * Every kind's live objects, read concurrently, in `kinds`' order: undefined for a family skipped
 * as absent (see above), which is then neither written, adopted nor compared.
 */
export async function readFamilies(
  api: ApiClient,
  kinds: readonly Kind[],
  options: ReadFamiliesOptions,
): Promise<(RemoteRecord[] | undefined)[]> {
  const notes: (string | undefined)[] = kinds.map(() => undefined);
  const read = await Promise.all(
    kinds.map(async (kind, i) => {
      const desired = options.desired?.(kind);
      try {
        return await kind.fetchAll(api, {
          concurrency: options.concurrency,
          ...(desired === undefined ? {} : { desired }),
        });
      } catch (error) {
        const note = options.declared(kind) ? undefined : absenceNote(kind, error);
        if (note === undefined) throw error;
        notes[i] = note;
        return undefined;
      }
    }),
  );
  // Said only once everything was read (a run that fails says its error alone), in a stable order.
  for (const note of notes) if (note !== undefined) options.warn?.(note);
  return read;
}
