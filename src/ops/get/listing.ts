/**
 * The rows of `wafctl get KIND`: documented filters only, every page read transparently, and with
 * `--limit N` the listing is abandoned after N rows (the paginator stops asking for pages).
 * Full records (for JSON and YAML) need what the listing leaves out: groups are listed without
 * permissions and members, and some servers list application rules with a single action.
 */
import type { RawFilters } from '../../api/filters.js';
import type { ApiClient, ListKind, RecordsByKind } from '../../api/index.js';
import { usageError } from '../../core/errors.js';
import { mapLimited } from '../../kinds/normalize.js';

/**
 * `--filter NAME=VALUE` arguments -> NAME -> every VALUE given for it, in order: a name given twice
 * keeps both (parseFilterStrings adds them to a list filter, and refuses them for any other).
 */
export function parseFilterArgs(args: readonly string[]): Record<string, string[]> {
  const filters: Record<string, string[]> = {};
  for (const arg of args) {
    const at = arg.indexOf('=');
    if (at <= 0) throw usageError(`--filter expects NAME=VALUE, got "${arg}"`);
    const name = arg.slice(0, at).trim();
    const value = arg.slice(at + 1);
    if (Object.hasOwn(filters, name)) filters[name]?.push(value);
    else filters[name] = [value];
  }
  return filters;
}

const COMPLETE: { [K in ListKind]: (api: ApiClient, row: RecordsByKind[K]) => Promise<RecordsByKind[K]> } = {
  groups: (api, row) => api.groups.get(row.id),
  rules: async (_api, row) => row,
  'application-rules': async (api, row) => (row.complete ? row : api.applicationRules.get(row.id)),
  notifications: async (_api, row) => row,
  schedules: async (_api, row) => row,
};

export interface ListOptions {
  /** NAME -> VALUE, as given to `--filter` (names are validated against the kind's documented filters). */
  filters: RawFilters;
  /** Stop after this many rows. */
  limit?: number;
  /** Re-read rows the listing returns incomplete (GET-one), for output that shows whole records. */
  full: boolean;
  /** GET-one calls in flight at once when completing rows. */
  concurrency: number;
}

export async function listRecords<K extends ListKind>(
  api: ApiClient,
  kind: K,
  options: ListOptions,
): Promise<RecordsByKind[K][]> {
  const rows: RecordsByKind[K][] = [];
  if (options.limit !== 0) {
    for await (const row of api.iterateWithFilters(kind, options.filters)) {
      rows.push(row);
      if (options.limit !== undefined && rows.length >= options.limit) break;
    }
  }
  if (!options.full) return rows;
  return mapLimited(rows, options.concurrency, (row) => COMPLETE[kind](api, row));
}
