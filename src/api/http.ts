/**
 * The one place that talks HTTP: an ofetch instance (base URL, bearer token, debug hooks), one
 * attempt mapped to our errors, and retries around idempotent methods. Everything above this file
 * sees either the parsed JSON body of a 2xx answer or a WafctlError.
 *
 * Each attempt has a whole-response deadline: an AbortSignal, passed to fetch, armed from before the
 * request until its body has been read whole (redirects followed included), then cleared. ofetch's
 * own `timeout` is not used: it clears its timer as soon as the headers arrive, so a server that
 * trickles its body would keep us waiting for ever. A body that fails mid-way (a reset, the deadline)
 * rejects outside ofetch's error handling, as the bare error: `fetchOnce` maps both kinds.
 *
 * Redirects are never left to fetch (`redirect: 'follow'` would send a 307/308's body to wherever
 * the Location points, another host included). fetch is called with `redirect: 'manual'`, which in
 * Node returns the real 3xx with its Location (not the browser's opaque response), and `attemptOnce`
 * decides: another origin is never followed, a write is never followed, a GET follows at most
 * MAX_REDIRECTS same-origin hops.
 */
import { type FetchContext, FetchError, type FetchResponse, ofetch } from 'ofetch';
import { WafctlError } from '../errors.js';
import { redact } from '../secrets.js';
import {
  ApiError,
  ApiNetworkError,
  deadlineProblem,
  hostOf,
  InvalidResponseError,
  MAX_REDIRECTS,
  networkProblem,
  RedirectError,
  type RequestTarget,
} from './errors.js';
import { type Clock, MAX_TIMEOUT_SECONDS, parseRetryAfter, type RetryPolicy, withRetries } from './retry.js';
import { encodeQuery, type QueryParams } from './url.js';

export interface HttpOptions {
  baseUrl: string;
  /** The bearer token; absent only for the sign-in request, which is how a token is obtained. */
  token?: string | undefined;
  /** Whole-response deadline of one attempt (connect, headers, body), in seconds; at most MAX_TIMEOUT_SECONDS. */
  timeoutSeconds: number;
  retry: RetryPolicy;
  clock: Clock;
  /** Receives one line per request and per response; headers are never logged. */
  log?: ((line: string) => void) | undefined;
}

export interface RequestSpec extends RequestTarget {
  query?: QueryParams;
  /** Serialised as JSON whatever the content type (application rules send JSON as multipart/mixed). */
  body?: unknown;
  /** Sent when given, with or without a body (group DELETE documents it as required). */
  contentType?: 'application/json' | 'multipart/mixed';
}

export interface Http {
  /** Resolves with the parsed JSON body of a 2xx answer. */
  send(spec: RequestSpec): Promise<unknown>;
}

/** Failures where the request may never have reached the server, or the connection broke mid-way. */
const RETRYABLE_NETWORK_CODES = new Set([
  'ECONNRESET',
  'EPIPE',
  'ECONNABORTED',
  'ETIMEDOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

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
  return baseUrl;
}

function debugHooks(log: (line: string) => void, clock: Clock) {
  const started = new WeakMap<object, { at: number; label: string }>();
  const finish = (context: FetchContext, outcome: string) => {
    const start = started.get(context);
    if (start === undefined) return;
    log(redact(`<-- ${outcome} ${start.label} (${clock.now() - start.at} ms)`));
  };
  return {
    onRequest(context: FetchContext) {
      // Before ofetch applies baseURL, `request` is the path with its query: no host, no headers. A
      // followed redirect is requested by absolute URL: its path and query are shown, not its host.
      const label = `${context.options.method ?? 'GET'} ${withoutOrigin(String(context.request))}`;
      started.set(context, { at: clock.now(), label });
      log(redact(`--> ${label}`));
    },
    onResponse(context: FetchContext) {
      finish(context, String(context.response?.status ?? '???'));
    },
    onRequestError(context: FetchContext) {
      finish(context, `ERR ${failureLabel(context.error)}`);
    },
  };
}

/** `/path?query` of an absolute URL; anything else as it is. */
function withoutOrigin(request: string): string {
  if (!/^[a-z][a-z0-9+.-]*:/i.test(request)) return request;
  try {
    const url = new URL(request);
    return `${url.pathname}${url.search}`;
  } catch {
    return request;
  }
}

function innermostCause(error: unknown): unknown {
  let current = error;
  for (let depth = 0; depth < 8; depth++) {
    const next = typeof current === 'object' && current !== null ? Reflect.get(current, 'cause') : undefined;
    if (next === undefined || next === null) return current;
    current = next;
  }
  return current;
}

/** The reason a deadline aborts its signal with (what fetch, or the body being read, rejects with). */
class DeadlineExceeded extends Error {
  override name = 'TimeoutError';
}

interface Deadline {
  signal: AbortSignal;
  /** Stops the timer; called once the attempt is over, whatever its outcome. */
  clear(): void;
}

/**
 * A signal aborted after `seconds`. The timer is unref'd (it never keeps the process alive on its
 * own) and cleared by the caller as soon as the response has been read whole.
 */
function startDeadline(seconds: number): Deadline {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DeadlineExceeded('deadline exceeded')), seconds * 1000);
  timer.unref();
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}

function describeNetworkFailure(error: unknown): { code?: string; detail: string; timedOut: boolean } {
  const root = innermostCause(error);
  if (root instanceof DeadlineExceeded) return { detail: 'timed out', timedOut: true };
  const code = typeof root === 'object' && root !== null ? Reflect.get(root, 'code') : undefined;
  const message = typeof root === 'object' && root !== null ? Reflect.get(root, 'message') : undefined;
  const detail = typeof message === 'string' ? message : '';
  return typeof code === 'string' ? { code, detail, timedOut: false } : { detail, timedOut: false };
}

/** What the debug log says of a failure: `ECONNRESET (socket hang up)`, `timed out`. */
function failureLabel(error: unknown): string {
  const { code, detail } = describeNetworkFailure(error);
  if (code === undefined) return detail === '' ? 'no response' : detail;
  return detail !== '' && !detail.includes(code) ? `${code} (${detail})` : code;
}

/**
 * A request that got no whole answer: a FetchError (no response: ofetch wraps fetch's error), or the
 * bare error of a body that failed mid-way. `deadline` tells a missed deadline from anything else,
 * whatever shape the abort took on its way here.
 */
function toNetworkError(
  target: RequestTarget,
  error: unknown,
  host: string,
  deadline: Deadline,
  timeoutSeconds: number,
): ApiNetworkError {
  const root = innermostCause(error instanceof FetchError ? error.cause : error);
  // The FetchError itself is not kept as cause: it holds the request options, headers included.
  const cause = root instanceof Error ? root : undefined;
  if (deadline.signal.aborted) {
    // Not retried (see retry.ts): the deadline is how long the user agreed to wait.
    return new ApiNetworkError(target, deadlineProblem(host, timeoutSeconds), {
      retryable: false,
      timedOut: true,
      cause,
    });
  }
  const failure = describeNetworkFailure(root);
  const retryable = failure.code !== undefined && RETRYABLE_NETWORK_CODES.has(failure.code);
  return new ApiNetworkError(target, networkProblem(host, failure), { retryable, cause });
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function toApiError(target: RequestTarget, status: number, text: string, retryAfterMs?: number): ApiError {
  const parsed = parseJson(text);
  const body = parsed.ok && typeof parsed.value === 'object' && parsed.value !== null ? parsed.value : {};
  const message = Reflect.get(body, 'message');
  const errors = Reflect.get(body, 'errors');
  return new ApiError({
    ...target,
    status,
    ...(typeof message === 'string' && message !== '' ? { serverMessage: message } : {}),
    ...(Array.isArray(errors) ? { details: errors.filter((e): e is string => typeof e === 'string') } : {}),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  });
}

/** Answers that point elsewhere, when they carry a Location (a 300 or 304 is an ordinary error). */
const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/**
 * Where a redirect may be followed: an absolute URL, or a RedirectError. `from` is the URL that was
 * requested, `hops` the redirects already followed for this attempt.
 */
function redirectTarget(
  target: RequestTarget,
  status: number,
  location: string,
  from: string,
  hops: number,
): string {
  let to: URL;
  try {
    to = new URL(location, from);
  } catch {
    throw new RedirectError(target, { problem: 'invalid-location', status, from, to: location });
  }
  const info = { status, from, to: to.href };
  // Compared on origin (scheme, host, port) whatever the method: a GET carries the token too.
  if (to.origin !== new URL(from).origin)
    throw new RedirectError(target, { problem: 'other-origin', ...info });
  if (target.method !== 'GET') throw new RedirectError(target, { problem: 'write', ...info });
  if (hops >= MAX_REDIRECTS) throw new RedirectError(target, { problem: 'too-many', ...info });
  // fetch refuses a URL with credentials; the bearer token is what authenticates.
  to.username = '';
  to.password = '';
  return to.href;
}

export function createHttp(options: HttpOptions): Http {
  const { clock, timeoutSeconds } = options;
  if (!(Number.isFinite(timeoutSeconds) && timeoutSeconds > 0 && timeoutSeconds <= MAX_TIMEOUT_SECONDS)) {
    throw new WafctlError(
      'USAGE',
      `the timeout must be a positive number of seconds, at most ${MAX_TIMEOUT_SECONDS}, got ${timeoutSeconds}`,
      { userFault: true },
    );
  }
  const baseUrl = checkBaseUrl(options.baseUrl);
  // As ofetch joins them (ufo's withBase leaves an absolute URL alone): for a response without `url`.
  const absoluteUrl = (request: string) =>
    /^https?:\/\//i.test(request) ? request : `${baseUrl.replace(/\/+$/, '')}${request}`;
  const fetcher = ofetch.create({
    baseURL: baseUrl,
    headers: {
      ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
      accept: 'application/json',
    },
    // No `timeout`: it would stop at the headers. The deadline is the signal given to each request.
    retry: false, // see retry.ts for why retries are not ofetch's
    responseType: 'text', // parsed here, so that a non-JSON body is reported, not guessed at
    ignoreResponseError: true, // statuses are mapped here, to ApiError
    ...(options.log === undefined ? {} : debugHooks(options.log, clock)),
  });

  /** One request, its body read whole (ofetch reads it before resolving), within `deadline`. */
  async function fetchOnce(target: RequestTarget, spec: RequestSpec, request: string, deadline: Deadline) {
    const headers: Record<string, string> = spec.contentType ? { 'content-type': spec.contentType } : {};
    const startedAt = clock.now();
    try {
      return await fetcher.raw<string, 'text'>(request, {
        method: spec.method,
        headers,
        redirect: 'manual', // decided in attemptOnce, see the top of this file
        signal: deadline.signal,
        ...(spec.body === undefined ? {} : { body: JSON.stringify(spec.body) }),
      });
    } catch (error) {
      // A failure while reading the body reaches no ofetch hook: the debug log line is written here.
      if (!(error instanceof FetchError) && options.log !== undefined) {
        const label = `${spec.method} ${withoutOrigin(request)}`;
        const reason = deadline.signal.aborted ? 'timed out' : failureLabel(error);
        options.log(redact(`<-- ERR ${reason} reading the body ${label} (${clock.now() - startedAt} ms)`));
      }
      throw toNetworkError(target, error, hostOf(absoluteUrl(request)), deadline, timeoutSeconds);
    }
  }

  async function attemptOnce(spec: RequestSpec): Promise<unknown> {
    const target: RequestTarget = { method: spec.method, path: spec.path };
    const query = spec.query === undefined ? '' : encodeQuery(spec.query);
    // Relative (ofetch prepends the base URL), then the absolute URL of each redirect followed.
    let request = query === '' ? spec.path : `${spec.path}?${query}`;
    let response: FetchResponse<string>;
    // One deadline for the whole attempt, redirects followed included; cleared however it ends.
    const deadline = startDeadline(timeoutSeconds);
    try {
      for (let hops = 0; ; hops++) {
        response = await fetchOnce(target, spec, request, deadline);
        const location = response.headers.get('location');
        if (!REDIRECT_STATUSES.has(response.status) || location === null) break;
        // `url` is what fetch requested (with `redirect: 'manual'`, the URL that answered).
        const from = response.url !== '' ? response.url : absoluteUrl(request);
        request = redirectTarget(target, response.status, location, from, hops);
      }
    } finally {
      deadline.clear();
    }
    const text = typeof response._data === 'string' ? response._data : '';
    if (response.status < 200 || response.status > 299) {
      const retryAfter = parseRetryAfter(response.headers.get('retry-after'), clock.now());
      throw toApiError(target, response.status, text, retryAfter);
    }
    if (text.trim() === '') throw new InvalidResponseError(target, 'empty body');
    const parsed = parseJson(text);
    if (!parsed.ok) {
      const type = response.headers.get('content-type') ?? 'no content-type';
      throw new InvalidResponseError(target, `body is not JSON (${type})`);
    }
    return parsed.value;
  }

  const onRetry =
    options.log === undefined
      ? undefined
      : ({ retryNumber, delayMs, error }: { retryNumber: number; delayMs: number; error: Error }) =>
          options.log?.(redact(`retry ${retryNumber} in ${delayMs} ms after: ${error.message}`));

  return {
    send(spec) {
      // POST is never retried: a create whose answer was lost may have been applied, and sending it
      // again would create a duplicate (application rules have no server-side unique key). After an
      // ambiguous POST failure the applier re-reads by natural key instead.
      if (spec.method === 'POST') return attemptOnce(spec);
      return withRetries(spec.method, () => attemptOnce(spec), options.retry, clock, onRetry);
    },
  };
}
