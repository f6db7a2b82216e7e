/**
 * Building the URL of a request: the base URL it is appended to, its path and its query. Kept apart
 * from the HTTP layer so that the rules that protect the server from us (a base URL paths can be
 * appended to; a name never escapes its path segment; list filters use one encoding) live in one
 * small place.
 */
import { WafctlError } from '../core/errors.js';
import { redact } from '../core/secrets.js';

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

/** The path every endpoint starts with; the base URL is what comes before it. */
const API_PREFIX = /\/api\/v1\/*$/i;

/**
 * The base URL, checked: http(s), no `user:password@` (the token authenticates), no query or
 * fragment (paths are appended to it), and not already ending in `/api/v1`.
 */
export function checkBaseUrl(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new WafctlError('CONNECTION', `invalid API URL ${JSON.stringify(redact(baseUrl))}`, {
      userFault: true,
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new WafctlError('CONNECTION', `API URL must start with http:// or https://, got ${url.protocol}`, {
      userFault: true,
    });
  }
  // fetch refuses such a URL, with an error that quotes it, password included.
  if (url.username !== '' || url.password !== '') {
    throw new WafctlError(
      'CONNECTION',
      `the API URL must not contain user:password@ (the token authenticates), got ${url.protocol}//...@${url.host}`,
      { userFault: true },
    );
  }
  const shown = `${url.origin}${url.pathname}`;
  // Paths are appended to the base URL as text: after a query or a fragment they would land in it
  // (`/?x=1/api/v1/groups`). A bare `?` or `#` counts too (the URL parser drops it, the join would not).
  if (/[?#]/.test(baseUrl)) {
    throw new WafctlError(
      'CONNECTION',
      `the API URL must not have a query (?...) or a fragment (#...), since paths are appended to it: use ${redact(shown)}`,
      { userFault: true },
    );
  }
  if (API_PREFIX.test(url.pathname)) {
    const root = `${url.origin}${url.pathname.replace(API_PREFIX, '')}`;
    throw new WafctlError(
      'CONNECTION',
      `the API URL should not end in /api/v1 (wafctl appends /api/v1/... itself): use ${redact(root)}`,
      { userFault: true },
    );
  }
  return baseUrl;
}
