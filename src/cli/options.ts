/** Option sets shared by several commands, declared once so their help text never drifts apart. */
import { type Command, InvalidArgumentError } from 'commander';

/** Options of every command that talks to the API. The token is never a flag: it would show in `ps`. */
export interface ConnectionFlags {
  url?: string;
  tokenFile?: string;
  emulatorState?: string;
}

export function addConnectionOptions(command: Command): Command {
  return command
    .option('--url <URL>', "API base URL, or 'embedded' for an in-process emulator (env: WAF_URL)")
    .option('--token-file <FILE>', 'read the API token from FILE (default: env WAF_TOKEN)')
    .option('--emulator-state <FILE>', "with --url embedded: the emulator's state file (loaded and saved)");
}

export function parsePositiveInt(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`${name} must be a positive integer.`);
    return n;
  };
}

export const FORMATS = ['text', 'markdown', 'json'] as const;

/**
 * GET-one calls in flight while plan, drift, export and get hydrate list rows (groups, rules): a
 * latency-bound chain of idempotent reads (BENCHMARKS.md: 16 -> 32 took ~90 ms off the plan scenario).
 */
export const HYDRATION_CONCURRENCY = 32;
/** `apply --parallelism`: write calls in flight across all kinds. */
export const DEFAULT_PARALLELISM = 8;
/** `apply --batch-size`: objects per bulk call (the API documents no limit). */
export const DEFAULT_BATCH_SIZE = 100;
