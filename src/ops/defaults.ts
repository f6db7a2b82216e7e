/**
 * The settings the CLI and the library run the operations with when the caller says nothing, and the
 * exit codes of a run a signal stops. Imports nothing: the CLI loads it at start-up (its flags' help
 * shows the defaults), so it must stay light for `wafctl --version`.
 */

/**
 * GET-one calls in flight while plan, drift, export and get hydrate list rows (groups, rules): a
 * latency-bound chain of idempotent reads (BENCHMARKS.md: 16 -> 32 took ~90 ms off the plan scenario).
 */
export const HYDRATION_CONCURRENCY = 32;

/** `apply --parallelism`: write calls in flight across all kinds. */
export const DEFAULT_PARALLELISM = 8;

/** `apply --batch-size`: objects per bulk call (the API documents no limit). */
export const DEFAULT_BATCH_SIZE = 100;

/**
 * The exit code of a run SIGINT or SIGTERM stopped, the codes a shell gives a process killed by them;
 * an apply the library's caller aborts reports SIGINT's.
 */
export const SIGNAL_EXIT_CODES = { SIGINT: 130, SIGTERM: 143 } as const;
