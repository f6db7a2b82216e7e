/**
 * Resolves where, as whom and how patiently wafctl talks to the API: `--url` / `WAF_URL`; the token
 * from `--token-file` / `WAF_TOKEN` (never a flag), or else a sign-in (`WAF_SIGNIN_USERNAME` with
 * `WAF_SIGNIN_PASSWORD` or `--password-file`) that obtains one for this run; or `--url embedded`,
 * which starts the emulator in-process for this one command with a random administrator token that
 * never leaves the process; and the whole-response deadline of each request from `--timeout` /
 * `WAF_TIMEOUT`.
 *
 * With `--env NAME` (the `environment` a connection is opened for, environments.ts), the environment's
 * URL and the variables its wafctl.yaml entry names are used instead, and none of the above but the
 * timeout is read.
 *
 * A token, when given, wins over the sign-in settings: it is the more specific credential (a pipeline
 * may hold both, and signing in would spend a request and a login on the server for nothing).
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { ApiClient, ApiClientOptions } from '../api/index.js';
import { type Clock, DEFAULT_TIMEOUT_SECONDS } from '../api/retry.js';
import { usageError } from '../core/errors.js';
import { registerSecret, shortSecretWarning } from '../core/secrets.js';
import {
  type Credential,
  checkedToken,
  connectionError,
  environmentCredential,
  envValue,
  signInSource,
  tokenOf,
} from '../ops/connection.js';
import type { EnvironmentConnection } from '../ops/project.js';
import type { Io } from './io.js';
import { type ConnectionFlags, quoteValue, readTimeout } from './options.js';
import { writeErr } from './output.js';
import { debugEnabled } from './report-error.js';

type Environment = Io['env'];

export interface Connection {
  baseUrl: string;
  token: string;
  /**
   * Where the token came from, as the user set it, for the hint of a refused request: `WAF_TOKEN`,
   * `--token-file FILE`, an environment's `token_env` variable, or the sign-in's user name variable.
   */
  credential: string;
  /** Whole-response deadline of each request attempt, in seconds. */
  timeoutSeconds: number;
  /** Stops the embedded emulator, if any. Safe to call more than once. */
  close(): Promise<void>;
}

export const EMBEDDED = 'embedded';

export interface ConnectionOptions {
  /** What relative `--token-file` and `--password-file` paths are relative to. */
  cwd?: string | undefined;
  /** The API client's timers (sign-in retries); the system clock when absent. */
  clock?: Partial<Clock> | undefined;
  /** Debug lines (the sign-in request, sign-in settings ignored); WAFCTL_DEBUG=1 in the CLI. */
  log?: ((line: string) => void) | undefined;
  /** Lines the user must see whatever the debug setting (a secret too short to redact safely). */
  warn?: ((line: string) => void) | undefined;
  /**
   * The environment `--env` selected (environments.ts), whose URL and credentials are used instead of
   * `--url`, WAF_URL and the token or sign-in settings.
   */
  environment?: EnvironmentConnection | undefined;
}

/**
 * The API URL a run talks to, in order of precedence: the environment's (its `url`, or the value of
 * its `url_env`), `--url`, WAF_URL; undefined when none is given (an empty value is none).
 */
export function apiUrl(
  flags: ConnectionFlags,
  env: Environment,
  environment: EnvironmentConnection | undefined,
): string | undefined {
  const url = environment?.url ?? flags.url ?? env.WAF_URL;
  return url === '' ? undefined : url;
}

/** Opens the connection the flags (or the environment in `options`) and the variables describe. */
export async function openConnection(
  flags: ConnectionFlags,
  env: Environment,
  options: ConnectionOptions = {},
): Promise<Connection> {
  const { environment } = options;
  const url = apiUrl(flags, env, environment);
  if (url === undefined) {
    throw connectionError(`no API URL: pass --url URL or set WAF_URL (or use --url ${EMBEDDED}).`);
  }
  const timeoutSeconds = resolveTimeout(flags, env);
  if (url === EMBEDDED) return { ...(await openEmbedded(flags.emulatorState)), timeoutSeconds };
  if (flags.emulatorState !== undefined) {
    throw connectionError(`--emulator-state only applies with --url ${EMBEDDED}.`);
  }
  const credential =
    environment === undefined
      ? await resolveCredential(flags, env, options)
      : environmentCredential(environment, env);
  // Registered already (where it was read); short ones are still redacted, with one warning each.
  const warn = (what: string, kind: 'token' | 'password', secret: string) => {
    const warning = shortSecretWarning(what, kind, secret);
    if (warning !== undefined) options.warn?.(`Warning: ${warning}.`);
  };
  if (credential.kind === 'token') warn('the API token', 'token', credential.token);
  else warn('the sign-in password', 'password', credential.password);
  const { log, clock } = options;
  const token = await tokenOf(credential, { baseUrl: url, timeoutSeconds, log, clock });
  return { baseUrl: url, token, credential: credential.source, timeoutSeconds, close: async () => {} };
}

/**
 * `--timeout` (already checked by commander) wins over WAF_TIMEOUT; neither: the default. An empty
 * WAF_TIMEOUT is unset, like every variable read here (CI writes an unset variable as empty).
 */
function resolveTimeout(flags: ConnectionFlags, env: Environment): number {
  if (flags.timeout !== undefined) return flags.timeout;
  const value = envValue(env, 'WAF_TIMEOUT');
  if (value === undefined) return DEFAULT_TIMEOUT_SECONDS;
  const read = readTimeout('WAF_TIMEOUT', value);
  if ('problem' in read) throw usageError(`${read.problem}, got ${quoteValue(value)}.`);
  return read.seconds;
}

/** The token when one is given; else the sign-in settings, whole; else what is missing. */
async function resolveCredential(
  flags: ConnectionFlags,
  env: Environment,
  { log, cwd }: ConnectionOptions,
): Promise<Credential> {
  const username = envValue(env, 'WAF_SIGNIN_USERNAME');
  const passwordSource =
    flags.passwordFile !== undefined
      ? '--password-file'
      : envValue(env, 'WAF_SIGNIN_PASSWORD') === undefined
        ? undefined
        : 'WAF_SIGNIN_PASSWORD';
  if (flags.tokenFile !== undefined || envValue(env, 'WAF_TOKEN') !== undefined) {
    if (username !== undefined || passwordSource !== undefined) {
      log?.('sign-in settings ignored: a token is given (WAF_TOKEN or --token-file), and a token wins');
    }
    const source = flags.tokenFile === undefined ? 'WAF_TOKEN' : `--token-file ${flags.tokenFile}`;
    return { kind: 'token', token: await readToken(flags.tokenFile, env, cwd), source };
  }
  if (username === undefined && passwordSource === undefined) {
    throw connectionError(
      'no API token: set WAF_TOKEN or pass --token-file FILE. Or sign in: set WAF_SIGNIN_USERNAME and WAF_SIGNIN_PASSWORD (or pass --password-file FILE).',
    );
  }
  if (username === undefined) {
    throw usageError(
      `a sign-in password is given (${passwordSource}) but no user name: set WAF_SIGNIN_USERNAME (or give a token with WAF_TOKEN or --token-file FILE).`,
    );
  }
  if (passwordSource === undefined) {
    throw usageError(
      'WAF_SIGNIN_USERNAME is set but no password: set WAF_SIGNIN_PASSWORD or pass --password-file FILE.',
    );
  }
  const password =
    flags.passwordFile === undefined
      ? (envValue(env, 'WAF_SIGNIN_PASSWORD') ?? '')
      : await readSecretFile(flags.passwordFile, 'password', cwd);
  registerSecret(password);
  return { kind: 'signin', username, password, source: signInSource('WAF_SIGNIN_USERNAME') };
}

/** A token or password file, trimmed (an editor's or `echo`'s newline is not part of it). */
export async function readSecretFile(
  path: string,
  what: 'token' | 'password',
  cwd: string | undefined,
): Promise<string> {
  let value: string;
  try {
    value = (await readFile(cwd === undefined ? path : resolve(cwd, path), 'utf8')).trim();
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw connectionError(`cannot read the ${what} file ${path}: ${reason}.`);
  }
  if (value === '') throw connectionError(`the ${what} file ${path} is empty.`);
  return value;
}

/** Called only when a token is given: `--token-file` wins over WAF_TOKEN. */
async function readToken(
  tokenFile: string | undefined,
  env: Environment,
  cwd: string | undefined,
): Promise<string> {
  const token =
    tokenFile === undefined
      ? (envValue(env, 'WAF_TOKEN') ?? '')
      : await readSecretFile(tokenFile, 'token', cwd);
  return checkedToken(token, tokenFile === undefined ? 'WAF_TOKEN' : tokenFile);
}

async function openEmbedded(statePath: string | undefined): Promise<Omit<Connection, 'timeoutSeconds'>> {
  const token = randomBytes(24).toString('hex');
  registerSecret(token);
  const { startEmulator } = await import('../emulator/index.js');
  const emulator = await startEmulator({ port: 0, adminToken: token, ...(statePath ? { statePath } : {}) });
  let closed = false;
  return {
    baseUrl: emulator.url,
    token,
    credential: "the embedded emulator's administrator token",
    close: async () => {
      if (closed) return;
      closed = true;
      await emulator.close();
    },
  };
}

/** A client and the connection it talks through; `close` stops an embedded emulator, if any. */
export interface ApiSession {
  api: ApiClient;
  connection: Connection;
  close(): Promise<void>;
}

/**
 * How a session is opened besides the flags: for the environment `--env` selected, if any, and with
 * the client settings a command needs (e.g. `get --limit` reads small pages, one at a time).
 */
export type SessionOptions = Pick<ApiClientOptions, 'pageSize' | 'concurrency'> &
  Pick<ConnectionOptions, 'environment'>;

/**
 * Opens a client for the resolved connection (`withApiClient` for one piece of work; apply with
 * several environments keeps one session per environment open across its phases). With
 * WAFCTL_DEBUG=1 the client logs one (redacted) line per request to stderr.
 */
export async function openApiClient(
  io: Io,
  flags: ConnectionFlags,
  { environment, ...clientOptions }: SessionOptions = {},
): Promise<ApiSession> {
  const log = debugEnabled(io) ? (line: string) => writeErr(io, line) : undefined;
  const { cwd, clock } = io;
  const connection = await openConnection(flags, io.env, {
    cwd,
    clock,
    log,
    warn: (line) => writeErr(io, line),
    environment,
  });
  try {
    const { createApiClient, limitsFromEnv } = await import('../api/index.js');
    const api = createApiClient({
      ...clientOptions,
      ...limitsFromEnv(io.env), // WAFCTL_MAX_RESPONSE_BYTES, WAFCTL_MAX_ROWS (src/api/limits.ts)
      baseUrl: connection.baseUrl,
      token: connection.token,
      credential: connection.credential,
      timeoutSeconds: connection.timeoutSeconds,
      ...(clock === undefined ? {} : { clock }),
      ...(log === undefined ? {} : { log }),
    });
    return { api, connection, close: () => connection.close() };
  } catch (error) {
    await connection.close();
    throw error;
  }
}

/** Runs `work` with a client for the resolved connection, and always stops an embedded emulator afterwards. */
export async function withApiClient<T>(
  io: Io,
  flags: ConnectionFlags,
  work: (api: ApiClient, connection: Connection) => Promise<T>,
  options: SessionOptions = {},
): Promise<T> {
  const session = await openApiClient(io, flags, options);
  try {
    return await work(session.api, session.connection);
  } finally {
    await session.close();
  }
}
