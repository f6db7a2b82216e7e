/**
 * How much of an answer the client accepts: the decoded size of one response body, and the rows of
 * one paginated listing. Without them a server (or anything posing as one) decides how much memory
 * wafctl uses: a 3 GB 200, a 1 MB gzip bomb that inflates to 1 GiB, or pages of invented rows under
 * `total_count: 1e12` end in V8's fatal out-of-memory, with no message at all.
 *
 * Both are overridable for the rare installation that needs more, through the environment (read by
 * the CLI with `limitsFromEnv`) or the client's options.
 */
import { Buffer } from 'node:buffer';
import { WafctlError } from '../core/errors.js';
import { type RequestTarget, ResponseTooLargeError } from './errors.js';

/**
 * The largest decoded body read, in bytes (256 MiB): far beyond any real answer (a page of 1,000
 * application rules is about 1 MB), and below V8's longest string (about 512 MiB), so a body within
 * it can always be decoded and parsed.
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 256 * 1024 * 1024;

/** The most rows one paginated listing may hold (all of one family's objects, e.g. application rules). */
export const DEFAULT_MAX_ROWS = 1_000_000;

/**
 * The most bytes of response bodies one paginated listing may read (256 MiB): about 250,000
 * application rules. Rows count, but so does their size: invented rows of a few kilobytes each under
 * a modest row count would otherwise reach gigabytes of memory before the row limit stops them.
 */
export const DEFAULT_MAX_LISTING_BYTES = 256 * 1024 * 1024;

export const MAX_RESPONSE_BYTES_ENV = 'WAFCTL_MAX_RESPONSE_BYTES';
export const MAX_ROWS_ENV = 'WAFCTL_MAX_ROWS';
export const MAX_LISTING_BYTES_ENV = 'WAFCTL_MAX_LISTING_BYTES';

export interface ResponseLimits {
  maxResponseBytes?: number;
  maxRows?: number;
  maxListingBytes?: number;
}

/** Whether `value` is a usable limit: a positive safe integer. */
export function isLimit(value: number): boolean {
  return Number.isSafeInteger(value) && value > 0;
}

/** A limit from the environment: digits only (no sign, unit, exponent or blank), positive. */
function readLimit(env: Readonly<Record<string, string | undefined>>, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!isLimit(value)) {
    throw new WafctlError(
      'USAGE',
      `${name} must be a positive whole number (digits only), got ${JSON.stringify(raw.slice(0, 40))}`,
      { userFault: true },
    );
  }
  return value;
}

/**
 * The limits set in the environment (`WAFCTL_MAX_RESPONSE_BYTES`, `WAFCTL_MAX_ROWS`,
 * `WAFCTL_MAX_LISTING_BYTES`); unset ones are left out.
 */
export function limitsFromEnv(env: Readonly<Record<string, string | undefined>>): ResponseLimits {
  const maxResponseBytes = readLimit(env, MAX_RESPONSE_BYTES_ENV);
  const maxRows = readLimit(env, MAX_ROWS_ENV);
  const maxListingBytes = readLimit(env, MAX_LISTING_BYTES_ENV);
  return {
    ...(maxResponseBytes === undefined ? {} : { maxResponseBytes }),
    ...(maxRows === undefined ? {} : { maxRows }),
    ...(maxListingBytes === undefined ? {} : { maxListingBytes }),
  };
}

/**
 * The body of `response` as text, its decoded bytes counted as they arrive: past `limit`, the read
 * stops and the stream is cancelled (which drops the connection), so no more than `limit` bytes
 * (plus one chunk) are ever held.
 */
export async function readCapped(
  response: Response,
  limit: number,
  target: RequestTarget,
  /** The request's deadline: once aborted, the read stops with its reason. */
  signal?: AbortSignal,
): Promise<string> {
  if (response.body === null) return '';
  const reader = response.body.getReader();
  // Aborting the fetch should error its body, but a read has been seen to stay pending after it
  // (nodejs/undici#4089; once here, under load): the deadline cancels the reader itself too, which
  // ends a pending read, and the loop then throws the deadline's reason.
  const cancel = () => void reader.cancel(signal?.reason).catch(() => {});
  signal?.addEventListener('abort', cancel, { once: true });
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      signal?.throwIfAborted();
      const { done, value } = await reader.read();
      signal?.throwIfAborted();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel().catch(() => {});
        throw new ResponseTooLargeError(target, limit);
      }
      chunks.push(value);
    }
  } finally {
    signal?.removeEventListener('abort', cancel);
  }
  // As Response.text() decodes: UTF-8, a byte-order mark dropped, invalid bytes replaced.
  return new TextDecoder().decode(Buffer.concat(chunks, size));
}
