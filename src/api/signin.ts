/**
 * The vendor's sign-in: `POST /api/v1/signin` `{username, password}` answers `data.token`, the
 * bearer token for the rest of the run. For installations that hand out accounts, not tokens.
 *
 * The password is registered as a secret before the request exists, and the token as soon as the
 * answer is parsed, before anything looks at it: no error, debug line or plan can then show either.
 * (Values shorter than the registry's minimum are not redacted; see secrets.ts.)
 *
 * Sent once, never retried: the client never retries a POST (http.ts), and sign-in keeps that rule
 * on purpose. A failed sign-in changes nothing worth fearing, but a server that locks an account
 * after a few failures would count every blind retry against the user; one clear error, and the
 * user runs the command again.
 */
import { z } from 'zod';
import { WafctlError } from '../core/errors.js';
import { isBearerToken, redact, registerSecret } from '../core/secrets.js';
import { printable } from '../core/text.js';
import { readData } from './envelope.js';
import { ApiError } from './errors.js';
import { createHttp } from './http.js';
import type { RequestSpec } from './request.js';
import { type Clock, DEFAULT_RETRY_POLICY, DEFAULT_TIMEOUT_SECONDS, SYSTEM_CLOCK } from './retry.js';

export const SIGNIN_PATH = '/api/v1/signin';

export interface SignInOptions {
  /** As for the client: `/api/v1/signin` is appended. */
  baseUrl: string;
  username: string;
  password: string;
  /** Whole-response deadline of the request, in seconds (default DEFAULT_TIMEOUT_SECONDS). */
  timeoutSeconds?: number;
  /** Receives the request's debug lines (method, path, status, duration; never the body). */
  log?: ((line: string) => void) | undefined;
  clock?: Partial<Clock>;
  /** The largest decoded response body read, in bytes (default DEFAULT_MAX_RESPONSE_BYTES). */
  maxResponseBytes?: number;
}

/**
 * Statuses that mean "these credentials were refused": the API's own message says it all (the spec
 * documents 400 for a failed operation; 401 and 403 are what other servers answer). Anything else
 * (a 404 from a server without sign-in, a 500) keeps the whole `[POST] /api/v1/signin: ...` message.
 */
const REFUSED: ReadonlySet<number> = new Set([400, 401, 403]);

/** `sign-in as alice failed: ...`, with the code of what failed (API_ERROR, API_NETWORK, ...). */
export class SignInError extends WafctlError {
  readonly username: string;

  constructor(username: string, cause: WafctlError) {
    const refused = cause instanceof ApiError && REFUSED.has(cause.status);
    const reason = refused && cause.serverMessage !== undefined ? cause.serverMessage : cause.message;
    // The cause's message is escaped and redacted already; the user name is ours to escape.
    super(cause.code, redact(`sign-in as ${printable(username)} failed: ${printable(reason)}`), {
      cause,
      userFault: cause.userFault,
    });
    this.username = redact(printable(username));
  }
}

const tokenData = z.object({ token: z.string().min(1) });

/** `body.data.token`, when it is a string: registered before anything else reads the body. */
function registerAnswerToken(body: unknown): void {
  const data = typeof body === 'object' && body !== null ? Reflect.get(body, 'data') : undefined;
  const token = typeof data === 'object' && data !== null ? Reflect.get(data, 'token') : undefined;
  if (typeof token === 'string') registerSecret(token);
}

/** Signs in and resolves with the token; a SignInError otherwise. */
export async function signIn(options: SignInOptions): Promise<string> {
  const { username, password } = options;
  registerSecret(password);
  const http = createHttp({
    baseUrl: options.baseUrl,
    timeoutSeconds: options.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS,
    retry: DEFAULT_RETRY_POLICY, // not used: a POST is sent once
    clock: { ...SYSTEM_CLOCK, ...options.clock },
    log: options.log,
    maxResponseBytes: options.maxResponseBytes,
  });
  const spec: RequestSpec = {
    method: 'POST',
    path: SIGNIN_PATH,
    contentType: 'application/json',
    body: { username, password },
    // The one request meant to carry a secret: only there (the user name must not hold one).
    secretFields: ['password'],
  };
  let token: string;
  try {
    const body = await http.send(spec);
    registerAnswerToken(body);
    token = readData(spec, body, tokenData).token;
  } catch (error) {
    if (error instanceof WafctlError) throw new SignInError(username, error);
    throw error;
  }
  // Checked here, not left to fetch: its error would quote the header, token included.
  if (!isBearerToken(token)) {
    throw new SignInError(
      username,
      new WafctlError(
        'API_RESPONSE_INVALID',
        `[POST] ${SIGNIN_PATH}: invalid response: the token contains characters an HTTP header cannot carry (spaces, control or non-ASCII characters)`,
      ),
    );
  }
  return token;
}
