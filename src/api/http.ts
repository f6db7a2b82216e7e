/**
 * The one place that talks HTTP: an ofetch instance (base URL, bearer token), a debug log, one
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
 *
 * Bodies are read as a stream (ofetch `responseType: 'stream'`) and counted as they arrive, decoded
 * (after gzip or deflate): past `maxResponseBytes` the read stops, the connection is dropped and the
 * request fails once with `response too large` (`readCapped` in limits.ts), never retried. Only then
 * is the body decoded whole.
 *
 * Every request passes `send`, which builds it once (`prepare` in request.ts): the last line of
 * defence for secrets, a request whose path, query or body holds one is refused before it exists.
 */
import { Buffer } from 'node:buffer';
import { type $Fetch, FetchError, type FetchResponse, ofetch } from 'ofetch';
import { WafctlError } from '../core/errors.js';
import { redact } from '../core/secrets.js';
import {
  ApiError,
  ApiNetworkError,
  cancelledProblem,
  deadlineProblem,
  hostOf,
  InvalidResponseError,
  MAX_REDIRECTS,
  networkProblem,
  RedirectError,
  type RequestTarget,
  ResponseTooLargeError,
} from './errors.js';
import { DEFAULT_MAX_RESPONSE_BYTES, isLimit, MAX_RESPONSE_BYTES_ENV, readCapped } from './limits.js';
import { type Prepared, prepare, type RequestSpec } from './request.js';
import { type Clock, MAX_TIMEOUT_SECONDS, parseRetryAfter, type RetryPolicy, withRetries } from './retry.js';
import { checkBaseUrl } from './url.js';

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
  /** The largest decoded body read, in bytes; default DEFAULT_MAX_RESPONSE_BYTES. */
  maxResponseBytes?: number | undefined;
  /**
   * Where the token came from, as the user set it (`WAF_TOKEN`, an environment's `token_env`
   * variable): a 401 or 403 error carries it, so that its hint names what to check. Never the token.
   */
  credential?: string | undefined;
}

export interface Http {
  /** Resolves with the parsed JSON body of a 2xx answer. */
  send(spec: RequestSpec): Promise<unknown>;
  /** The same, with the size of the body read (decoded bytes): what a listing's byte budget counts. */
  sendCounted(spec: RequestSpec): Promise<{ value: unknown; bytes: number }>;
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

/** The reason the caller's signal (`RequestSpec.signal`) aborts an attempt with. */
class RequestCancelled extends Error {
  override name = 'AbortError';
}

interface Deadline {
  /** Aborted when the time is up (a DeadlineExceeded reason) or the caller cancels (RequestCancelled). */
  signal: AbortSignal;
  /** Stops the timer and lets go of the caller's signal; called once the attempt is over, whatever its outcome. */
  clear(): void;
}

/**
 * A signal aborted after `seconds`, or at once when `cancel` aborts. The timer is unref'd (it never
 * keeps the process alive on its own) and cleared by the caller as soon as the response has been
 * read whole.
 */
function startDeadline(seconds: number, cancel: AbortSignal | undefined): Deadline {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DeadlineExceeded('deadline exceeded')), seconds * 1000);
  timer.unref();
  const onCancel = () => controller.abort(new RequestCancelled('cancelled'));
  if (cancel?.aborted) onCancel();
  else cancel?.addEventListener('abort', onCancel, { once: true });
  return {
    signal: controller.signal,
    clear: () => {
      clearTimeout(timer);
      cancel?.removeEventListener('abort', onCancel);
    },
  };
}

/** Whether the caller, not the deadline, stopped the attempt. */
const wasCancelled = (deadline: Deadline) => deadline.signal.reason instanceof RequestCancelled;

function describeNetworkFailure(error: unknown): { code?: string; detail: string; timedOut: boolean } {
  const root = innermostCause(error);
  if (root instanceof DeadlineExceeded) return { detail: 'timed out', timedOut: true };
  if (root instanceof RequestCancelled) return { detail: 'cancelled', timedOut: false };
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
  if (wasCancelled(deadline)) {
    // Not retried: the caller no longer wants the answer.
    return new ApiNetworkError(target, cancelledProblem(host), { retryable: false, cancelled: true, cause });
  }
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

function toApiError(
  target: RequestTarget,
  status: number,
  text: string,
  retryAfterMs: number | undefined,
  credential: string | undefined,
): ApiError {
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
    ...(credential !== undefined && (status === 401 || status === 403) ? { credential } : {}),
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

/** What every attempt of one client uses: made once by createHttp. */
interface Transport {
  fetcher: $Fetch;
  baseUrl: string;
  clock: Clock;
  timeoutSeconds: number;
  maxResponseBytes: number;
  /** The debug log, redacted; a no-op without one. */
  log: (line: string) => void;
  credential: string | undefined;
}

/**
 * The client of one server and token: each request built once (`prepare`), then attempted, and
 * retried when it is idempotent and failed in a way worth retrying (retry.ts).
 */
export function createHttp(options: HttpOptions): Http {
  const transport = createTransport(options);
  const onRetry =
    options.log === undefined
      ? undefined
      : ({ retryNumber, delayMs, error }: { retryNumber: number; delayMs: number; error: Error }) =>
          transport.log(`retry ${retryNumber} in ${delayMs} ms after: ${error.message}`);

  const sendCounted = (spec: RequestSpec) => {
    const prepared = prepare(spec);
    // POST is never retried: a create whose answer was lost may have been applied, and sending it
    // again would create a duplicate (application rules have no server-side unique key). After an
    // ambiguous POST failure the applier re-reads by natural key instead.
    if (spec.method === 'POST') return attemptOnce(transport, prepared);
    return withRetries(spec.method, () => attemptOnce(transport, prepared), options.retry, options.clock, {
      onRetry,
      signal: spec.signal,
    });
  };
  return {
    sendCounted,
    send: async (spec) => (await sendCounted(spec)).value,
  };
}

/** The options checked (a USAGE error for a timeout or size limit out of range), and the ofetch instance. */
function createTransport(options: HttpOptions): Transport {
  const { clock, timeoutSeconds } = options;
  if (!(Number.isFinite(timeoutSeconds) && timeoutSeconds > 0 && timeoutSeconds <= MAX_TIMEOUT_SECONDS)) {
    throw new WafctlError(
      'USAGE',
      `the timeout must be a positive number of seconds, at most ${MAX_TIMEOUT_SECONDS}, got ${timeoutSeconds}`,
      { userFault: true },
    );
  }
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  if (!isLimit(maxResponseBytes)) {
    throw new WafctlError(
      'USAGE',
      `the response size limit (${MAX_RESPONSE_BYTES_ENV}) must be a positive whole number of bytes, got ${maxResponseBytes}`,
      { userFault: true },
    );
  }
  const baseUrl = checkBaseUrl(options.baseUrl);
  const fetcher = ofetch.create({
    baseURL: baseUrl,
    headers: {
      ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
      accept: 'application/json',
    },
    // No `timeout`: it would stop at the headers. The deadline is the signal given to each request.
    retry: false, // see retry.ts for why retries are not ofetch's
    // Read here (readCapped), counted and capped, then parsed: a non-JSON body is reported, not guessed at.
    responseType: 'stream',
    ignoreResponseError: true, // statuses are mapped here, to ApiError
  });
  const log = (line: string) => options.log?.(redact(line));
  return { fetcher, baseUrl, clock, timeoutSeconds, maxResponseBytes, log, credential: options.credential };
}

/** As ofetch joins them (ufo's withBase leaves an absolute URL alone): for a response without `url`. */
function absoluteUrl(transport: Transport, request: string): string {
  return /^https?:\/\//i.test(request) ? request : `${transport.baseUrl.replace(/\/+$/, '')}${request}`;
}

/**
 * One request, its body read whole (and capped) within `deadline`: the response and its text. A
 * redirect's body is not read (its Location is what counts): it is cancelled, freeing the connection.
 *
 * The debug log gets one line for the request and one once the answer is whole (or failed). The
 * path is shown with its query, never a host or a header: a followed redirect is requested by
 * absolute URL, and only its path and query are shown.
 */
async function fetchOnce(transport: Transport, prepared: Prepared, request: string, deadline: Deadline) {
  const { clock, log, maxResponseBytes } = transport;
  const { spec, target } = prepared;
  const headers: Record<string, string> = spec.contentType ? { 'content-type': spec.contentType } : {};
  const label = `${spec.method} ${withoutOrigin(request)}`;
  const startedAt = clock.now();
  log(`--> ${label}`);
  let response: FetchResponse<unknown> | undefined;
  try {
    response = await transport.fetcher.raw<unknown, 'stream'>(request, {
      method: spec.method,
      headers,
      redirect: 'manual', // decided in attemptOnce, see the top of this file
      signal: deadline.signal,
      ...(prepared.body === undefined ? {} : { body: prepared.body }),
    });
    let text = '';
    if (REDIRECT_STATUSES.has(response.status) && response.headers.has('location')) {
      await response.body?.cancel().catch(() => {});
    } else {
      text = await readCapped(response, maxResponseBytes, target, deadline.signal);
    }
    log(`<-- ${response.status} ${label} (${clock.now() - startedAt} ms)`);
    return { response, text };
  } catch (error) {
    const reason =
      error instanceof ResponseTooLargeError
        ? `more than ${maxResponseBytes} bytes`
        : deadline.signal.aborted
          ? wasCancelled(deadline)
            ? 'cancelled'
            : 'timed out'
          : failureLabel(error);
    const where = response === undefined ? '' : ' reading the body';
    log(`<-- ERR ${reason}${where} ${label} (${clock.now() - startedAt} ms)`);
    if (error instanceof ResponseTooLargeError) throw error;
    const host = hostOf(absoluteUrl(transport, request));
    throw toNetworkError(target, error, host, deadline, transport.timeoutSeconds);
  }
}

/**
 * One attempt: the request and the redirects it may follow, within one deadline; the parsed JSON of
 * a 2xx answer and its size, else an ApiError or InvalidResponseError.
 */
async function attemptOnce(
  transport: Transport,
  prepared: Prepared,
): Promise<{ value: unknown; bytes: number }> {
  const { target } = prepared;
  // Relative (ofetch prepends the base URL), then the absolute URL of each redirect followed.
  let request = prepared.request;
  let answer: { response: FetchResponse<unknown>; text: string };
  // One deadline for the whole attempt, redirects followed included; cleared however it ends.
  const deadline = startDeadline(transport.timeoutSeconds, prepared.spec.signal);
  try {
    for (let hops = 0; ; hops++) {
      answer = await fetchOnce(transport, prepared, request, deadline);
      const { response } = answer;
      const location = response.headers.get('location');
      if (!REDIRECT_STATUSES.has(response.status) || location === null) break;
      // `url` is what fetch requested (with `redirect: 'manual'`, the URL that answered).
      const from = response.url !== '' ? response.url : absoluteUrl(transport, request);
      request = redirectTarget(target, response.status, location, from, hops);
    }
  } finally {
    deadline.clear();
  }
  const { response, text } = answer;
  if (response.status < 200 || response.status > 299) {
    const retryAfter = parseRetryAfter(response.headers.get('retry-after'), transport.clock.now());
    throw toApiError(target, response.status, text, retryAfter, transport.credential);
  }
  if (text.trim() === '') throw new InvalidResponseError(target, 'empty body');
  const parsed = parseJson(text);
  if (!parsed.ok) {
    const type = response.headers.get('content-type') ?? 'no content-type';
    throw new InvalidResponseError(target, `body is not JSON (${type})`);
  }
  return { value: parsed.value, bytes: Buffer.byteLength(text, 'utf8') };
}
