/**
 * The deadline bounds, in a module of their own: the CLI's option definitions read them when it
 * starts, without loading the client (and node:http) that uses them.
 */

/** Whole-response deadline of one attempt, in seconds, when neither `--timeout` nor `WAF_TIMEOUT` is set. */
export const DEFAULT_TIMEOUT_SECONDS = 60;
/** The longest deadline a timer can hold (2^31 - 1 ms, about 24.8 days), in whole seconds. */
export const MAX_TIMEOUT_SECONDS = 2_147_483;
