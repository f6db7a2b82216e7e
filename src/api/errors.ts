/**
 * Errors raised by the API client. Every message is built here, from parts that never include the
 * host, the query string or a header, and is passed through `redact` so that a server echoing the
 * token back (in a message or an error detail) still cannot make us print it.
 */
import { STATUS_CODES } from 'node:http';
import { WafctlError } from '../errors.js';
import { redact } from '../secrets.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** Where a request went: method and API path (`/api/v1/...`, without host, prefix or query). */
export interface RequestTarget {
  method: HttpMethod;
  path: string;
}

function prefix(target: RequestTarget): string {
  return `[${target.method}] ${target.path}`;
}

export interface ApiErrorDetails extends RequestTarget {
  status: number;
  /** The body's `message`, when the body was JSON and had one. */
  serverMessage?: string;
  /** The body's `errors` (strings), when the server explains which field was wrong. */
  details?: readonly string[];
  /** From `Retry-After`, in milliseconds, when the server sent a usable value. */
  retryAfterMs?: number;
}

/** The server answered with a non-2xx status. Reads like ofetch: `[PUT] /api/v1/groups/42: 400 ...`. */
export class ApiError extends WafctlError {
  readonly method: HttpMethod;
  readonly path: string;
  readonly status: number;
  readonly serverMessage: string | undefined;
  readonly details: readonly string[];
  readonly retryAfterMs: number | undefined;

  constructor(info: ApiErrorDetails) {
    const reason = info.serverMessage ?? STATUS_CODES[info.status] ?? 'HTTP error';
    const details = info.details ?? [];
    const suffix = details.length > 0 ? ` (${details.join('; ')})` : '';
    // 4xx other than 429 means the request itself was refused: bad input or missing privileges.
    const userFault = info.status >= 400 && info.status < 500 && info.status !== 429;
    super('API_ERROR', redact(`${prefix(info)}: ${info.status} ${reason}${suffix}`), { userFault });
    this.method = info.method;
    this.path = redact(info.path);
    this.status = info.status;
    this.serverMessage = info.serverMessage === undefined ? undefined : redact(info.serverMessage);
    this.details = details.map(redact);
    this.retryAfterMs = info.retryAfterMs;
  }
}

/** The server answered 2xx with a body we cannot trust (not JSON, wrong envelope, wrong types). */
export class InvalidResponseError extends WafctlError {
  readonly method: HttpMethod;
  readonly path: string;

  constructor(target: RequestTarget, problem: string) {
    super('API_RESPONSE_INVALID', redact(`${prefix(target)}: invalid response: ${problem}`));
    this.method = target.method;
    this.path = redact(target.path);
  }
}

/** No answer at all: timeout, reset, refused. `retryable` says whether trying again can help. */
export class ApiNetworkError extends WafctlError {
  readonly method: HttpMethod;
  readonly path: string;
  readonly retryable: boolean;

  constructor(target: RequestTarget, problem: string, options: { retryable: boolean; cause?: unknown }) {
    super('API_NETWORK', redact(`${prefix(target)}: ${problem}`), { cause: options.cause });
    this.method = target.method;
    this.path = redact(target.path);
    this.retryable = options.retryable;
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
