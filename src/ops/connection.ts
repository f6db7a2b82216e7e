/**
 * The credential a run talks to a firewall with, and the token it gives: an API token, or a sign-in
 * (`POST /api/v1/signin`) that obtains one. The CLI reads it from its flags and WAF_* variables
 * (cli/connection.ts) or, with `--env`, from the variables an environment names; the library from its
 * `connection` option or its `environment`, the latter here (`environmentCredential`). Secrets are
 * registered for redaction as soon as they are read; messages name variables, never their values.
 */
import type { Clock } from '../api/retry.js';
import { usageError, WafctlError } from '../core/errors.js';
import { isBearerToken, registerSecret } from '../core/secrets.js';
import type { EnvironmentConnection, Variables } from './project.js';

/** A credential, and where it was set (`source`: the hint of a refused request names it). */
export type Credential = { source: string } & (
  | { kind: 'token'; token: string }
  | { kind: 'signin'; username: string; password: string }
);

/** What a sign-in needs besides the credential (api/signin.ts `SignInOptions`). */
export interface SignInSettings {
  baseUrl: string;
  timeoutSeconds: number;
  log?: ((line: string) => void) | undefined;
  clock?: Partial<Clock> | undefined;
}

/** A connection that cannot be made as given (no URL, an unusable token): the user's to fix. */
export function connectionError(message: string): WafctlError {
  return new WafctlError('CONNECTION', message, { userFault: true });
}

/** A variable's value, or undefined when unset or empty (an empty value means "not set"). */
export function envValue(env: Variables, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

/** What to check when a signed-in request is refused: the user, and the groups that give it rights. */
export function signInSource(variable: string): string {
  return `the groups of the user named by ${variable}`;
}

/**
 * A token read from `source` (a variable, a file, an option), registered for redaction, and checked
 * here, not left to fetch: its error would quote the header, and read like a bug.
 */
export function checkedToken(token: string, source: string): string {
  registerSecret(token);
  if (!isBearerToken(token)) {
    throw connectionError(
      `the API token in ${source} contains characters an HTTP header cannot carry (spaces, control or non-ASCII characters).`,
    );
  }
  return token;
}

/**
 * An environment's credential: the token in the variable its `token_env` names, else a sign-in with
 * its `signin_username_env` and `signin_password_env` (wafctl.yaml declares exactly one of the two).
 * No other variable is read (WAF_TOKEN, WAF_SIGNIN_*).
 */
export function environmentCredential(environment: EnvironmentConnection, env: Variables): Credential {
  const { name, file, spec } = environment;
  const read = (variable: string, key: string, what: string): string => {
    const value = envValue(env, variable);
    if (value === undefined) {
      throw usageError(`environment ${name}: ${variable} is not set (${key} in ${file}): set it to ${what}.`);
    }
    return value;
  };
  if (spec.token_env !== undefined) {
    const token = checkedToken(read(spec.token_env, 'token_env', 'the API token'), spec.token_env);
    return { kind: 'token', token, source: `${spec.token_env} (token_env of environment ${name})` };
  }
  const password = read(spec.signin_password_env ?? '', 'signin_password_env', 'the sign-in password');
  registerSecret(password);
  const usernameVariable = spec.signin_username_env ?? '';
  const username = read(usernameVariable, 'signin_username_env', 'the sign-in user name');
  const source = signInSource(`${usernameVariable} (signin_username_env of environment ${name})`);
  return { kind: 'signin', username, password, source };
}

/** The token `credential` gives: its own, or the one a sign-in obtains. */
export async function tokenOf(credential: Credential, settings: SignInSettings): Promise<string> {
  if (credential.kind === 'token') return credential.token;
  // Imported here: the client (and zod) is loaded only by runs that talk to the API.
  const { signIn } = await import('../api/signin.js');
  const { username, password } = credential;
  return signIn({ ...settings, username, password });
}
