/**
 * The rows of `wafctl get KIND`: documented filters only, every page read transparently, and with
 * `--limit N` the listing is abandoned after N rows (the paginator stops asking for pages).
 * Full records (for JSON and YAML) need what the listing leaves out: groups are listed without
 * permissions and members, and some servers list application rules with a single action.
 */
import type { RawFilters } from '../../api/filters.js';
import type { ApiClient, ListKind } from '../../api/index.js';
import { usageError } from '../../core/errors.js';
import { mapLimited } from '../../kinds/normalize.js';
import { getKindNamed } from './kinds.js';

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

/** The records of the listing, as the API sent them (the kind's `get` types them). */
export async function listRecords(api: ApiClient, kind: ListKind, options: ListOptions): Promise<object[]> {
  const { list, complete } = getKindNamed(kind).spec;
  const rows: object[] = [];
  if (options.limit !== 0) {
    for await (const row of list(api, options.filters)) {
      rows.push(row);
      if (options.limit !== undefined && rows.length >= options.limit) break;
    }
  }
  if (!options.full || complete === undefined) return rows;
  return mapLimited(rows, options.concurrency, (row) => complete(api, row));
}
