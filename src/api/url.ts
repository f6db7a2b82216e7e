/**
 * Building the path and query of a request. Kept apart from the HTTP layer so that the two rules that
 * protect the server from us (a name never escapes its path segment; list filters use one encoding)
 * live in one small place.
 */
import { WafctlError } from '../errors.js';

/**
 * One path segment, percent-encoded. `.` and `..` are refused: the WHATWG URL parser used by fetch
 * treats them as dot segments even when written `%2E` / `%2E%2E`, so `/notifications/..` would
 * silently become `/settings/`. No encoding can address such a name, hence an error, not a guess.
 */
export function pathSegment(value: string, what: string): string {
  if (value === '' || /^\.{1,2}$/.test(value)) {
    throw new WafctlError(
      'USAGE',
      `${what} ${JSON.stringify(value)} cannot be used in a URL path (empty, "." and ".." are not addressable)`,
      { userFault: true },
    );
  }
  return encodeURIComponent(value);
}

export type QueryValue = string | number | boolean | readonly string[];
export type QueryParams = Readonly<Record<string, QueryValue | undefined>>;

/**
 * `a=1&list[]=x&list[]=y`. Array values are sent as repeated bracketed keys with the brackets left
 * literal (ofetch's `query` would send `list%5B%5D`, which a strict server may not treat as a list).
 * Keys and values are otherwise encoded with encodeURIComponent; insertion order is kept.
 */
export function encodeQuery(params: QueryParams): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined) continue;
    const name = encodeURIComponent(key);
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      parts.push(`${name}=${encodeURIComponent(String(value))}`);
    } else {
      for (const item of value) parts.push(`${name}[]=${encodeURIComponent(item)}`);
    }
  }
  return parts.join('&');
}
