/**
 * Time limits and retries. Each attempt of a request has a whole-response deadline (connect, headers
 * and the whole body; `--timeout` / `WAF_TIMEOUT`, enforced in http.ts). Idempotent requests are
 * retried: exponential backoff with jitter, `Retry-After` honoured, a cap on attempts and a total time
 * budget after which the last error is thrown.
 *
 * A missed deadline is not retried, whatever the method: the deadline is how long the user agreed to
 * wait for an answer, and retrying would multiply it (up to `attempts` times) without saying so; at
 * the default (60 s, the retry budget) a retry could not even start within the budget. Failures that
 * come fast (a reset, 502/503/504, 429) are what retries are for. A write that missed its deadline
 * stays an ambiguous outcome (an ApiNetworkError): the applier re-reads before sending it again.
 *
 * Why not ofetch's own `retry`/`retryDelay`/`retryStatusCodes`: ofetch decides on a failure with no
 * response as if it were a 500, so retrying resets and timeouts would also retry real 500s (which a
 * server may return after applying a mutation); it has no total budget; and it sleeps with a bare
 * `setTimeout`, so honouring `Retry-After: 2` could not be tested without sleeping for real. The HTTP
 * layer therefore calls ofetch with `retry: false` and wraps it here, with an injectable clock.
 */
import { ApiError, ApiNetworkError, type HttpMethod } from './errors.js';

export interface RetryPolicy {
  /** Total attempts, the first included (1 = never retry). */
  attempts: number;
  /** First backoff delay; doubles on each retry. */
  baseDelayMs: number;
  /** Cap of one backoff delay (a `Retry-After` is honoured beyond it, within the budget). */
  maxDelayMs: number;
  /** Time from the first attempt after which no retry is started and the last error is thrown. */
  budgetMs: number;
}

export { DEFAULT_TIMEOUT_SECONDS, MAX_TIMEOUT_SECONDS } from './timeouts.js';

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  attempts: 5,
  baseDelayMs: 250,
  maxDelayMs: 8_000,
  budgetMs: 60_000,
};

/** Time and randomness, injectable so that tests never sleep and are reproducible. */
export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
  /** Uniform in [0, 1). */
  random(): number;
}

export const SYSTEM_CLOCK: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  random: () => Math.random(),
};

/** Statuses that mean "not now" rather than "no": the request may succeed if sent again. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

/**
 * Whether sending `method` again can help. A 500 may come after a change was applied, so a PUT or
 * DELETE is not sent again on it; a GET changes nothing, so it is.
 */
export function isRetryable(error: unknown, method: HttpMethod): boolean {
  if (error instanceof ApiError) {
    return RETRYABLE_STATUSES.has(error.status) || (method === 'GET' && error.status === 500);
  }
  if (error instanceof ApiNetworkError) return error.retryable;
  return false;
}

/** `Retry-After` as delay-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, nowMs: number): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

/** "Equal jitter": half the backoff is kept, half is random, so retries spread but never bunch at 0. */
export function backoffDelay(retryNumber: number, policy: RetryPolicy, random: () => number): number {
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retryNumber - 1));
  return Math.round(exponential / 2 + random() * (exponential / 2));
}

export type RetryObserver = (info: { retryNumber: number; delayMs: number; error: Error }) => void;

/** `clock.sleep(ms)`, ended early when `signal` aborts: a cancelled request waits for no retry. */
function sleepUnlessCancelled(clock: Clock, ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return clock.sleep(ms);
  if (signal.aborted) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const stop = () => resolve();
    signal.addEventListener('abort', stop, { once: true });
    clock.sleep(ms).then(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    }, reject);
  });
}

/**
 * `attempt`, retried when it failed in a way worth retrying for `method` (see the top of this file),
 * until `policy` allows no more; the last error is thrown. Once `signal` aborts, a wait for a retry
 * ends at once, and the next attempt fails as cancelled (http.ts), which is never retried.
 */
export async function withRetries<T>(
  method: HttpMethod,
  attempt: () => Promise<T>,
  policy: RetryPolicy,
  clock: Clock,
  { onRetry, signal }: { onRetry?: RetryObserver | undefined; signal?: AbortSignal | undefined } = {},
): Promise<T> {
  const start = clock.now();
  for (let attemptNumber = 1; ; attemptNumber++) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof Error) || !isRetryable(error, method) || attemptNumber >= policy.attempts)
        throw error;
      const retryAfter = error instanceof ApiError ? error.retryAfterMs : undefined;
      const delayMs = retryAfter ?? backoffDelay(attemptNumber, policy, clock.random);
      // Waiting past the budget only to fail later helps nobody: give up now with the real error.
      if (clock.now() + delayMs - start > policy.budgetMs) throw error;
      onRetry?.({ retryNumber: attemptNumber, delayMs, error });
      await sleepUnlessCancelled(clock, delayMs, signal);
    }
  }
}
