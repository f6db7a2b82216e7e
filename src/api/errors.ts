/**
 * Errors raised by the API client. Every message is built here, from parts that never include the
 * query string, a header or userinfo (`user:password@`). The host (`hostname[:port]`, from the URL,
 * never its userinfo) appears only where it is the point: a network error or a missed deadline names
 * the server that could not be reached, and a refused redirect shows its URLs (without userinfo).
 * Every message is passed through `printable`, so that text from the server (a `message`, an error
 * detail, a content type, a Location) cannot forge a line or an escape sequence on a terminal, and
 * through `redact`, so that a server echoing the token back still cannot make us print it.
 */
import { STATUS_CODES } from 'node:http';
import { WafctlError } from '../core/errors.js';
import { redact } from '../core/secrets.js';
import { printable } from '../core/text.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** Where a request went: method and API path (`/api/v1/...`, without host, prefix or query). */
export interface RequestTarget {
  method: HttpMethod;
  path: string;
}

function prefix(target: RequestTarget): string {
  return `[${target.method}] ${target.path}`;
}

/** What a message may show: unprintable characters escaped, secrets redacted. */
function display(text: string): string {
  return redact(printable(text));
}

/** `hostname[:port]` of a URL, as messages name a server: never its userinfo, path or query. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '(invalid URL)';
  }
}

export interface ApiErrorDetails extends RequestTarget {
  status: number;
  /** The body's `message`, when the body was JSON and had one. */
  serverMessage?: string;
  /** The body's `errors` (strings), when the server explains which field was wrong. */
  details?: readonly string[];
  /** From `Retry-After`, in milliseconds, when the server sent a usable value. */
  retryAfterMs?: number;
  /** Where the refused token came from (HttpOptions.credential), on a 401 or 403 only. */
  credential?: string;
}

const MAX_SHOWN_DETAILS = 5;

/** The server answered with a non-2xx status. Reads like ofetch: `[PUT] /api/v1/groups/42: 400 ...`. */
export class ApiError extends WafctlError {
  readonly method: HttpMethod;
  readonly path: string;
  readonly status: number;
  readonly serverMessage: string | undefined;
  readonly details: readonly string[];
  readonly retryAfterMs: number | undefined;
  readonly credential: string | undefined;

  constructor(info: ApiErrorDetails) {
    const reason = info.serverMessage ?? STATUS_CODES[info.status] ?? 'HTTP error';
    const details = info.details ?? [];
    // A bulk call refused for every row can carry hundreds of details: the first few say enough.
    const shown = details.slice(0, MAX_SHOWN_DETAILS).join('; ');
    const more = details.length > MAX_SHOWN_DETAILS ? `; and ${details.length - MAX_SHOWN_DETAILS} more` : '';
    const suffix = details.length > 0 ? ` (${shown}${more})` : '';
    // 4xx other than 429 means the request itself was refused: bad input or missing privileges.
    const userFault = info.status >= 400 && info.status < 500 && info.status !== 429;
    // The reason and details come from the server: `display` escapes them, so a `\n` cannot forge a line.
    super('API_ERROR', display(`${prefix(info)}: ${info.status} ${reason}${suffix}`), { userFault });
    this.method = info.method;
    this.path = redact(info.path);
    this.status = info.status;
    this.serverMessage = info.serverMessage === undefined ? undefined : redact(info.serverMessage);
    this.details = details.map(redact);
    this.retryAfterMs = info.retryAfterMs;
    this.credential = info.credential;
  }
}

/**
 * The server answered 2xx with a body we cannot trust (not JSON, wrong envelope, wrong types, too
 * large, ids that do not match the request). For a write the outcome is ambiguous: the applier
 * re-reads before sending it again.
 */
export class InvalidResponseError extends WafctlError {
  readonly method: HttpMethod;
  readonly path: string;

  /** `headline` comes before `problem` in the message; subclasses that say it all pass ''. */
  constructor(target: RequestTarget, problem: string, headline = 'invalid response: ') {
    super('API_RESPONSE_INVALID', display(`${prefix(target)}: ${headline}${problem}`));
    this.method = target.method;
    this.path = redact(target.path);
  }
}

/**
 * A body (decoded: after gzip or deflate) larger than the client's limit. Reading stops at the limit
 * and the connection is dropped, so a 3 GB answer or a gzip bomb cannot exhaust memory. Not retried:
 * the same request would get the same answer. An InvalidResponseError, since for a write the server
 * may have done the work (an unreadable 2xx): the applier re-reads.
 */
export class ResponseTooLargeError extends InvalidResponseError {
  /** The limit, in bytes. */
  readonly limit: number;

  constructor(target: RequestTarget, limit: number) {
    super(target, `response too large (more than ${limit} bytes)`, '');
    this.limit = limit;
  }
}

const MAX_SHOWN_IDS = 5;

/**
 * A 2xx whose `rule_ids` does not confirm every object sent (an answer `[]` to a bulk delete): the
 * missing ones were perhaps not written. Never taken for done: for the applier this is an ambiguous
 * answer, and the objects are re-read (those found written are done, the others are sent again).
 */
export class UnconfirmedWriteError extends InvalidResponseError {
  /** The ids sent that the answer does not hold (for a create: empty, the new ids are unknown). */
  readonly unconfirmed: readonly string[];

  constructor(
    target: RequestTarget,
    info: { sent: number; confirmed: number; unconfirmed?: readonly string[] },
  ) {
    const unconfirmed = info.unconfirmed ?? [];
    const shown = unconfirmed.slice(0, MAX_SHOWN_IDS).join(', ');
    const more = unconfirmed.length > MAX_SHOWN_IDS ? ` and ${unconfirmed.length - MAX_SHOWN_IDS} more` : '';
    const which = unconfirmed.length > 0 ? ` (not confirmed: ${shown}${more})` : '';
    super(
      target,
      `the answer confirms ${info.confirmed} of the ${info.sent} objects sent${which}; the others may not have been written`,
      '',
    );
    this.unconfirmed = unconfirmed;
  }
}

/**
 * A request that would carry a registered secret (the API token, a password) in its path, query or
 * body. Refused before anything is sent; the message names the method and path, never the value.
 */
export class SecretInRequestError extends WafctlError {
  readonly method: HttpMethod;
  readonly path: string;

  constructor(target: RequestTarget, where: 'body' | 'path or query') {
    super(
      'PLAN_REFUSED',
      redact(
        `${prefix(target)}: refused to send: the request ${where} holds a secret (the API token or a sign-in password); wafctl never sends one to the API`,
      ),
      { userFault: true },
    );
    this.method = target.method;
    this.path = redact(target.path);
  }
}

/**
 * Network codes of a failure to connect at all (nothing was sent): the server "cannot be reached".
 * Any other code (a reset, a broken pipe, a TLS failure) is a connection that failed.
 */
const CONNECT_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'EAI_NONAME',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * The problem part of a network error, naming the host: `cannot reach waf.example.com:8443:
 * ECONNREFUSED`, `connection to waf.example.com failed: ECONNRESET (socket hang up)`.
 */
export function networkProblem(host: string, failure: { code?: string | undefined; detail: string }): string {
  const { code, detail } = failure;
  if (code === undefined) return `connection to ${host} failed: ${detail === '' ? 'no response' : detail}`;
  const extra = detail !== '' && !detail.includes(code) ? ` (${detail})` : '';
  return CONNECT_CODES.has(code)
    ? `cannot reach ${host}: ${code}${extra}`
    : `connection to ${host} failed: ${code}${extra}`;
}

/** The problem part of a request that got no whole answer (headers and body) in time. */
export function deadlineProblem(host: string, seconds: number): string {
  return `${host} did not answer within ${seconds} s`;
}

/** The problem part of a request its caller stopped waiting for (`RequestSpec.signal`). */
export function cancelledProblem(host: string): string {
  return `the request to ${host} was cancelled before its answer came`;
}

/**
 * No answer, or no whole answer: a deadline missed, a reset, a refused connection. `retryable` says
 * whether trying again can help. Either way the server may have received the request and acted on it
 * (the applier treats a write that failed so as ambiguous and re-reads). The message names the host
 * (`hostname[:port]`, never userinfo), built by `networkProblem` or `deadlineProblem`.
 */
export class ApiNetworkError extends WafctlError {
  readonly method: HttpMethod;
  readonly path: string;
  readonly retryable: boolean;
  /** The whole-response deadline passed (see `--timeout`). */
  readonly timedOut: boolean;
  /** The caller's signal stopped the request (`RequestSpec.signal`); never retried. */
  readonly cancelled: boolean;

  constructor(
    target: RequestTarget,
    problem: string,
    options: { retryable: boolean; cause?: unknown; timedOut?: boolean; cancelled?: boolean },
  ) {
    super('API_NETWORK', display(`${prefix(target)}: ${problem}`), { cause: options.cause });
    this.method = target.method;
    this.path = redact(target.path);
    this.retryable = options.retryable;
    this.timedOut = options.timedOut ?? false;
    this.cancelled = options.cancelled ?? false;
  }
}

/** The limit of same-origin redirects followed for one GET. */
export const MAX_REDIRECTS = 5;

export type RedirectProblem = 'other-origin' | 'write' | 'too-many' | 'invalid-location';

/** A URL as shown in a message: without `user:password@`. Also applied to a Location that is no URL. */
function withoutUserinfo(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.href;
  } catch {
    return url.replace(/^([^/?#]*\/\/)[^/?#]*@/, '$1');
  }
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

function redirectMessage(problem: RedirectProblem, status: number, from: string, to: string): string {
  const check = 'Check --url / WAF_URL.';
  switch (problem) {
    case 'other-origin':
      return `the server redirected to ${to} (another origin than ${originOf(from)}); wafctl never follows a redirect to another origin, since the request and its token would go there. ${check}`;
    case 'write':
      // A 303 answers a write that was carried out ("see the result there"); the others move it.
      return status === 303
        ? `the server redirected (303) from ${from} to ${to}; wafctl does not follow redirects of writes. A 303 may mean the write was carried out before the redirect: run plan to see the live state. ${check}`
        : `the server redirected (${status}) from ${from} to ${to}; wafctl does not follow redirects of writes, and the write was not carried out at the redirecting URL. ${check}`;
    case 'too-many':
      return `too many redirects (more than ${MAX_REDIRECTS}), the last from ${from} to ${to}. ${check}`;
    case 'invalid-location':
      return `the server redirected (${status}) from ${from} to an invalid location ${JSON.stringify(to)}. ${check}`;
  }
}

/**
 * The server answered with a redirect that wafctl does not follow: to another origin (the request and
 * its token would go there), of a write, one too many, or to no valid URL. Not an ambiguous answer:
 * the server did not do the work here, so it is never retried. It is the user's to fix (a wrong URL,
 * a proxy in the way). It shows whole URLs (not only a host, as network errors do), since they are
 * the point; without userinfo, escaped and redacted.
 */
export class RedirectError extends WafctlError {
  readonly method: HttpMethod;
  readonly path: string;
  readonly status: number;
  readonly problem: RedirectProblem;
  /** The URL that answered with the redirect. */
  readonly from: string;
  /** Where it pointed, resolved against `from` (the Location as sent when it is no valid URL). */
  readonly to: string;

  constructor(
    target: RequestTarget,
    info: { problem: RedirectProblem; status: number; from: string; to: string },
  ) {
    const from = withoutUserinfo(info.from);
    const to = withoutUserinfo(info.to);
    const message = `${prefix(target)}: ${redirectMessage(info.problem, info.status, from, to)}`;
    super('API_REDIRECT', display(message), { userFault: true });
    this.method = target.method;
    this.path = redact(target.path);
    this.status = info.status;
    this.problem = info.problem;
    this.from = redact(from);
    this.to = redact(to);
  }
}

/**
 * A paginated listing that outgrew what its first page announced (`total_count` plus a margin), or
 * the client's hard cap of rows: reading stops there, before memory runs out on a server that
 * invents rows for ever. Never a partial listing taken for whole.
 */
export class ListingTooLargeError extends WafctlError {
  readonly path: string;
  /** Rows received when reading stopped (0 when the first page's total_count alone exceeds the cap). */
  readonly received: number;
  readonly limit: number;

  constructor(path: string, info: { received: number; limit: number; reason: string }) {
    super('INCOMPLETE_LISTING', redact(`[GET] ${path}: listing too large: ${info.reason}; stopped reading`));
    this.path = redact(path);
    this.received = info.received;
    this.limit = info.limit;
  }
}

/** A paginated listing whose distinct rows do not add up to `total_count`: never pretend it is whole. */
export class IncompleteListingError extends WafctlError {
  readonly path: string;
  readonly received: number;
  readonly totalCount: number;

  constructor(path: string, received: number, totalCount: number) {
    super(
      'INCOMPLETE_LISTING',
      redact(
        `[GET] ${path}: incomplete listing: received ${received} distinct rows, server reported total_count ${totalCount}`,
      ),
    );
    this.path = redact(path);
    this.received = received;
    this.totalCount = totalCount;
  }
}
