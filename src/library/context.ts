/**
 * What every library call shares: its options turned into what the operations take (the load
 * options, the API client, an `AbortSignal`), as the CLI turns its `Io` and flags into them. Nothing
 * here reads `process`: the caller gives the directory, the variables, the connection and the hooks.
 */
import { type ApiClient, createApiClient } from '../api/index.js';
import { DEFAULT_TIMEOUT_SECONDS } from '../api/retry.js';
import type { LoadOptions } from '../config/load.js';
import type { Project } from '../config/project.js';
import { credentialVariables, secretVariables } from '../config/trust.js';
import { type ErrorCode as CoreErrorCode, WafctlError } from '../core/errors.js';
import { registerSecret } from '../core/secrets.js';
import {
  type Credential,
  checkedToken,
  connectionError,
  environmentCredential,
  tokenOf,
} from '../ops/connection.js';
import type { EnvironmentConnection } from '../ops/project.js';
import type {
  AbortSignalLike,
  ConnectionSettings,
  ErrorCode,
  FirewallConnection,
  FirewallTarget,
  RunOptions,
  SignInConnection,
  WafctlErrorLike,
} from './types.js';

/** `true` when `A` and `B` are the same type; a check that fails to compile otherwise. */
export type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

// The public ErrorCode (types.ts) is the core's: a code added to one and not the other fails here.
const sameCodes: Same<ErrorCode, CoreErrorCode> = true;
void sameCodes;

/** Whether `error` is one of wafctl's own errors, with its stable `code`. */
export function isWafctlError(error: unknown): error is WafctlErrorLike {
  return error instanceof WafctlError;
}

/** The caller's signal as an `AbortSignal` (a structural one is followed by a real one). */
export function abortSignalOf(like: AbortSignalLike | undefined): AbortSignal | undefined {
  if (like === undefined || like instanceof AbortSignal) return like;
  const controller = new AbortController();
  if (like.aborted) controller.abort(like.reason);
  else like.addEventListener('abort', () => controller.abort(like.reason), { once: true });
  return controller.signal;
}

/**
 * How a call loads configuration: the CLI's load options (cli/workspace.ts `loadOptions`) from the
 * caller's directory, variables and signal. With a project (wafctl.yaml declaring environments), its
 * credential variables cannot be read by `${VAR}`, and their values are redacted, as in the CLI.
 */
export function loadOptionsOf(options: RunOptions, project?: Project): LoadOptions {
  const env = options.env ?? {};
  for (const name of secretVariables([project])) registerSecret(env[name]);
  const { onDebug } = options;
  return {
    cwd: options.cwd,
    env,
    credentials: credentialVariables([project]),
    signal: abortSignalOf(options.signal),
    log: onDebug === undefined ? undefined : (line) => onDebug(`load: ${line}`),
  };
}

/**
 * The URL and credential of the caller's `connection`: a token, or a user who signs in. Checked at
 * the entry point (options.ts `checkedOptions`): a URL, and a token or a whole sign-in (an empty
 * token is none, and a token wins, as in the CLI).
 */
function givenCredential(connection: FirewallConnection | ConnectionSettings | undefined): {
  url: string;
  credential: Credential;
} {
  if (connection?.url === undefined || connection.url === '') {
    throw connectionError('no API URL: give connection.url, or an environment.');
  }
  const { url } = connection;
  if ('token' in connection && connection.token !== undefined && connection.token !== '') {
    const source = 'connection.token';
    return { url, credential: { kind: 'token', token: checkedToken(connection.token, source), source } };
  }
  const { username = '', password = '' } = connection as Partial<SignInConnection>;
  registerSecret(password);
  return {
    url,
    credential: { kind: 'signin', username, password, source: `the groups of the user ${username}` },
  };
}

/**
 * A client of the firewall the call talks to: the caller's `connection`, or the environment selected
 * (its URL, and the credential its variables in `env` hold); with a token, or one a sign-in obtains.
 * Secrets are registered for redaction, as the CLI registers those it reads.
 */
export async function apiClientOf(
  options: RunOptions & FirewallTarget,
  environment: EnvironmentConnection | undefined,
): Promise<ApiClient> {
  const { clock, onDebug: log } = options;
  const { url, credential } =
    environment === undefined
      ? givenCredential(options.connection)
      : { url: environment.url, credential: environmentCredential(environment, options.env ?? {}) };
  const timeoutSeconds = options.connection?.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
  const common = { baseUrl: url, timeoutSeconds, ...(clock && { clock }), ...(log && { log }) };
  const token = await tokenOf(credential, common);
  return createApiClient({ ...common, token, credential: credential.source });
}
