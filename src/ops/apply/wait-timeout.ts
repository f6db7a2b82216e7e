/**
 * How long `apply --wait` waits, and how a duration is written (`--wait-timeout 90s`, `5m`,
 * `1m30s`). Imports nothing: the CLI reads it at start-up, for its help and its flag's parser.
 */

/** `apply --wait`'s default timeout: five minutes (docs/apply.md, "Waiting for enforcement"). */
export const DEFAULT_WAIT_TIMEOUT_MS = 5 * 60_000;

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** A decimal number (no sign, exponent or hex) and its unit; `90s`, `1.5m`, `500ms`. */
const PART = /(\d+(?:\.\d*)?|\.\d+)(ms|s|m|h)/y;

/**
 * The milliseconds of a duration: one or more NUMBER UNIT parts (`ms`, `s`, `m`, `h`: `90s`, `5m`,
 * `1m30s`), or a bare number of seconds as `--timeout` takes (`300`); undefined unless it is one,
 * and positive.
 */
export function readDuration(text: string): number | undefined {
  const value = text.trim();
  if (/^(?:\d+(?:\.\d*)?|\.\d+)$/.test(value)) return positive(Number(value) * 1000);
  let total = 0;
  PART.lastIndex = 0;
  while (PART.lastIndex < value.length) {
    const match = PART.exec(value);
    if (match === null) return undefined;
    total += Number(match[1]) * (UNIT_MS[match[2] as string] as number);
  }
  return value === '' ? undefined : positive(total);
}

function positive(ms: number): number | undefined {
  return Number.isFinite(ms) && ms > 0 ? ms : undefined;
}

/** A duration as people write it: `5m`, `1m30s`, `2s`, `1.5s`, `250ms`, `1h`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const seconds = Math.round(ms / 100) / 10;
  if (seconds < 60) return `${seconds}s`;
  const whole = Math.round(seconds);
  const parts = [
    [Math.floor(whole / 3600), 'h'],
    [Math.floor((whole % 3600) / 60), 'm'],
    [whole % 60, 's'],
  ] as const;
  return parts
    .filter(([n]) => n > 0)
    .map(([n, unit]) => `${n}${unit}`)
    .join('');
}
