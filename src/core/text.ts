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

/**
 * GitHub Actions workflow-command syntax in a log: `::` opening a line after leading whitespace
 * (the runner trims with .NET's TrimStart; `\s` plus NEL, U+0085, covers every character it trims),
 * lines ending at `\n` or `\r` as the runner reads them. The legacy `##[command]` form may sit
 * anywhere in a line, so any `##[` counts.
 */
const COMMAND_AT_LINE_START = /(^|[\r\n])([\s\u0085]*)::/;
const COMMANDS_AT_LINE_START = new RegExp(COMMAND_AT_LINE_START.source, 'g');
const LEGACY_COMMAND = '##[';

/**
 * Whether `value` could open a workflow command where it is written: it holds `##[`, or `::` after
 * optional whitespace at its start or after a line break. `inline`: it follows other text on its
 * line (a YAML mapping value or sequence item, `address: ::1`), so its start opens no line unless it
 * spans lines (then YAML writes it as a block scalar, from a line of its own). The YAML writers quote
 * such strings so that the guard below leaves their values intact.
 */
export function mayStartWorkflowCommand(value: string, { inline = false } = {}): boolean {
  if (value.includes(LEGACY_COMMAND)) return true;
  if (inline && !/[\r\n]/.test(value)) return false;
  return COMMAND_AT_LINE_START.test(value);
}

/**
 * `text` made unable to run a GitHub Actions workflow command when printed in a CI log: file names
 * and values come from the pull request, and a line such as `::add-mask::`, `::stop-commands::` or
 * `##[warning]` from them would be obeyed by the runner. A `\` goes before a `::` that opens a line,
 * and `##[` becomes `##\u005b`, which JSON strings and YAML double-quoted scalars decode back to
 * `##[`. Text with neither `::` nor `##[` (almost all output) is returned as is.
 */
export function neutralizeWorkflowCommands(text: string): string {
  if (!text.includes('::') && !text.includes(LEGACY_COMMAND)) return text;
  return text.replace(COMMANDS_AT_LINE_START, '$1$2\\::').replaceAll(LEGACY_COMMAND, '##\\u005b');
}
