/** Small wording helpers shared by every message. */

/** `1 file`, `2 files`. */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/**
 * Characters that must never reach a reader raw from data: C0 and C1 controls and DEL (a `\n` could
 * forge a plan line, an ESC could recolour or erase one), Unicode line and paragraph separators, and
 * the bidirectional controls that reorder what is shown ("Trojan Source").
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const SHORT_ESCAPES: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * `text` with every unprintable character shown as an escape (`\n`, `\u001b`), as JSON would write
 * it: what every name, key and value from configuration or the API goes through before it is
 * printed in a human-readable plan, report or error.
 */
export function printable(text: string): string {
  return text.replace(
    UNPRINTABLE,
    (c) => SHORT_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
