/**
 * A request as it will be sent, built once for all its attempts, and the last line of defence for
 * secrets: every request passes here (http.ts `send`), so one whose path, query or body holds a
 * registered secret (secrets.ts `containsSecret`, in any form `redact` knows) is refused before it
 * exists, with an error that names its method and path, never the value. The apply gate refuses such
 * a plan up front; this catches whatever else would carry one (a filter, a re-read, a future call).
 */
import { containsSecret } from '../core/secrets.js';
import { type RequestTarget, SecretInRequestError } from './errors.js';
import { encodeQuery, type QueryParams } from './url.js';

export interface RequestSpec extends RequestTarget {
  query?: QueryParams;
  /** Serialised as JSON whatever the content type (application rules send JSON as multipart/mixed). */
  body?: unknown;
  /** Sent when given, with or without a body (group DELETE documents it as required). */
  contentType?: 'application/json' | 'multipart/mixed';
  /**
   * Top-level body fields meant to carry a secret (the sign-in's `password`). Any other part of the
   * request that holds a registered secret is refused (SecretInRequestError).
   */
  secretFields?: readonly string[];
  /**
   * Stops the request, its retries and their waits included: it then fails at once with an
   * ApiNetworkError that is `cancelled` (a reader that stopped waiting: `apply --wait`'s deadline).
   */
  signal?: AbortSignal | undefined;
}

/** What a read may be given: a signal that stops it (see `RequestSpec.signal`). */
export interface ReadOptions {
  signal?: AbortSignal | undefined;
}

/** A request as sent, built once for all its attempts: method and path, path with query, body. */
export interface Prepared {
  spec: RequestSpec;
  target: RequestTarget;
  /** Path and query, relative (ofetch prepends the base URL). */
  request: string;
  body: string | undefined;
}

/** Without the top-level `fields` (the ones meant to carry a secret). */
function withoutFields(body: unknown, fields: readonly string[]): unknown {
  if (fields.length === 0 || typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  return Object.fromEntries(Object.entries(body).filter(([key]) => !fields.includes(key)));
}

/** The request, or a SecretInRequestError when it would carry a secret where none belongs. */
export function prepare(spec: RequestSpec): Prepared {
  const target: RequestTarget = { method: spec.method, path: spec.path };
  const query = spec.query === undefined ? '' : encodeQuery(spec.query);
  const request = query === '' ? spec.path : `${spec.path}?${query}`;
  if (containsSecret(request)) throw new SecretInRequestError(target, 'path or query');
  const body = spec.body === undefined ? undefined : JSON.stringify(spec.body);
  const secretFields = spec.secretFields ?? [];
  const checked = secretFields.length === 0 ? body : JSON.stringify(withoutFields(spec.body, secretFields));
  if (checked !== undefined && containsSecret(checked)) throw new SecretInRequestError(target, 'body');
  return { spec, target, request, body };
}
