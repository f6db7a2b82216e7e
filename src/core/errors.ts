/**
 * One error base for everything wafctl reports. The CLI's single top-level handler turns a
 * WafctlError into one line on stderr and an exit code (see `exitCodeFor`); anything that is not a
 * WafctlError is a bug and is reported as such.
 */

/** Stable, documented error codes. Scripts may match on them (they appear in `--format json` output). */
export type ErrorCode =
  | 'USAGE' // bad command line
  | 'CONFIG_INVALID' // desired-state files failed to load or validate
  | 'CONNECTION' // no URL, no token, unreadable token file
  | 'API_ERROR' // the server answered with a non-2xx status
  | 'API_RESPONSE_INVALID' // the server answered 2xx with a body we cannot trust
  | 'API_NETWORK' // timeout, reset, refused: no answer at all
  | 'API_REDIRECT' // the server redirected where wafctl does not follow (another origin, a write, a loop)
  | 'INCOMPLETE_LISTING' // a paginated listing did not add up to total_count
  | 'EMULATOR_STATE' // the emulator's --state file is unreadable or corrupt
  | 'PLAN_REFUSED' // safety threshold, protect, stale saved plan, no confirmation
  | 'POLICY_REFUSED'; // a change has a security impact class named by --fail-on

export interface WafctlErrorOptions {
  cause?: unknown;
  /** True when the user can fix it (bad input, bad flags); false when the system failed. */
  userFault?: boolean;
}

export class WafctlError extends Error {
  readonly code: ErrorCode;
  readonly userFault: boolean;

  constructor(code: ErrorCode, message: string, options: WafctlErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.userFault = options.userFault ?? false;
  }
}

/**
 * Exit codes by error code: 1 for every error, and 3 for a `--fail-on` policy refusal, so a pipeline
 * can tell "the gate said no" from "something broke" (0 ok and 2 changes/drift are not errors).
 */
const EXIT_CODES: Record<ErrorCode, number> = {
  USAGE: 1,
  CONFIG_INVALID: 1,
  CONNECTION: 1,
  API_ERROR: 1,
  API_RESPONSE_INVALID: 1,
  API_NETWORK: 1,
  API_REDIRECT: 1,
  INCOMPLETE_LISTING: 1,
  EMULATOR_STATE: 1,
  PLAN_REFUSED: 1,
  POLICY_REFUSED: 3,
};

/** A mistake on the command line or in its arguments: the user's to fix. */
export function usageError(message: string, cause?: unknown): WafctlError {
  return new WafctlError('USAGE', message, { userFault: true, cause });
}

export function exitCodeFor(error: unknown): number {
  return error instanceof WafctlError ? EXIT_CODES[error.code] : 1;
}
