/**
 * Process-wide registry of secret values (the API token, the emulator's admin token). Everything
 * that leaves the process as text — errors, debug logs, saved plans — goes through `redact`, so a
 * token can only leak if it was never registered, and registration happens where the token is read.
 *
 * A secret is redacted in every form in which a server, a log or our own JSON output may carry it:
 * raw, JSON-escaped (once, twice, and with `/` written `\/`), URL-encoded (upper- and lower-case
 * hex, and form encoding), any of its characters percent-encoded or `\u`-escaped (every one, or
 * some), and base64 (standard and URL alphabets, padded or not, alone or inside a
 * larger blob such as a Basic authorization header). The forms are computed once, at registration.
 *
 * Every registered secret is redacted, however short: a 6-character password printed in a log is
 * leaked all the same. The raw secret and its escaped forms (never shorter than the secret) are
 * always redacted; the base64 forms are derived text that does not contain the secret, and those
 * shorter than `MIN_DERIVED_FORM_LENGTH` are left alone (a 2-character secret's base64 alignments
 * are 4 characters that would match inside any base64 blob). A secret shorter than
 * `SHORT_SECRET_LENGTH` also hides ordinary text that happens to equal it, so the CLI warns once
 * (see `shortSecretWarning`).
 */
import { Buffer } from 'node:buffer';

/** Every form of every registered secret, longest first (see `registerSecret`). */
let forms: readonly string[] = [];
/** Any of `forms`: one scan that tells nearly every text apart as holding none of them. */
let anyForm: RegExp | undefined;
/** The same, and the marker, for replacing in one pass (global: used only through `replace`). */
let everyForm: RegExp | undefined;
const registered = new Set<string>();
/** One `encodedPattern` per registered secret. */
let encodedPatterns: readonly string[] = [];

/**
 * Base64 forms (derived text, not the secret written another way) shorter than this are not
 * redacted: 4 or 6 base64 characters occur by chance in any blob. Raw and escaped forms are
 * redacted at any length.
 */
export const MIN_DERIVED_FORM_LENGTH = 8;

/** Secrets shorter than this are still redacted, but the CLI warns that ordinary text may be hidden. */
export const SHORT_SECRET_LENGTH = 8;
const warnedShort = new Set<string>();

export const REDACTED = '[REDACTED]';

/** The inside of a JSON string literal holding `text`. */
const jsonEscaped = (text: string): string => JSON.stringify(text).slice(1, -1);
/** PHP-style encoders also escape the solidus. */
const slashEscaped = (text: string): string => text.replaceAll('/', '\\/');
const lowerHex = (text: string): string => text.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase());
const base64url = (base64: string): string => base64.replaceAll('+', '-').replaceAll('/', '_');

function jsonForms(secret: string): string[] {
  const once = [jsonEscaped(secret), slashEscaped(jsonEscaped(secret))];
  // Escaped twice: JSON carried inside a JSON string (an error body quoted in a JSON message).
  const twice = once.flatMap((form) => [jsonEscaped(form), slashEscaped(jsonEscaped(form))]);
  return [...once, ...twice];
}

function urlForms(secret: string): string[] {
  const component = encodeURIComponent(secret);
  // application/x-www-form-urlencoded: also escapes !'()~ and writes a space as `+`.
  const form = new URLSearchParams({ s: secret }).toString().slice('s='.length);
  return [component, lowerHex(component), form, lowerHex(form)];
}

/**
 * base64 encodes 3 bytes as 4 characters, in groups counted from the start of the encoded data. A
 * secret alone encodes to one known string; a secret inside a larger blob (`base64("user:" + token)`)
 * does not, since its bytes are grouped with its neighbours'. But whatever the neighbours, the
 * secret starts at some offset whose remainder mod 3 puts a group boundary at byte k (0, 1 or 2) of
 * the secret, and from there its complete 3-byte groups encode exactly as `base64(secret[k...])`
 * does, minus the characters of the last, incomplete group. So the three strings
 * `base64(secret[k...])` cut to 4*floor((length-k)/3) characters cover every position: at most two
 * bytes on either side, mixed with the neighbours, are left as they are.
 */
function base64Forms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const padded = bytes.toString('base64');
  const standard = [padded, padded.replace(/=+$/, '')];
  for (let k = 0; k < 3; k++) {
    const groups = Math.floor((bytes.length - k) / 3);
    if (groups > 0) standard.push(bytes.subarray(k, k + 3 * groups).toString('base64'));
  }
  return [...standard, ...standard.map(base64url)];
}

/** The secret and the same text escaped: redacted whatever their length. */
function exactForms(secret: string): string[] {
  return [secret, ...jsonForms(secret), ...urlForms(secret)];
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `n` in `width` hex digits, as a pattern that takes either case (`%2f` and `%2F`). */
const hexPattern = (n: number, width: number): string =>
  [...n.toString(16).padStart(width, '0')]
    .map((d) => (/[a-f]/.test(d) ? `[${d}${d.toUpperCase()}]` : d))
    .join('');

/**
 * The secret with any of its characters written as itself, percent-encoded (its UTF-8 bytes, in
 * either case: `%61`) or `\u`-escaped (its UTF-16 units: `\u0061`), in any mix: how a server that
 * encodes every character, or only some, may echo it. No list of forms could hold every mix.
 */
function encodedPattern(secret: string): string {
  return [...secret]
    .map((char) => {
      const percent = [...Buffer.from(char, 'utf8')].map((byte) => `%${hexPattern(byte, 2)}`).join('');
      const units = Array.from(
        { length: char.length },
        (_, i) => `\\\\u${hexPattern(char.charCodeAt(i), 4)}`,
      );
      return `(?:${escapeRegExp(char)}|${percent}|${units.join('')})`;
    })
    .join('');
}

/**
 * Registers a secret for `redact`. An empty or blank value is no secret: it would match all text
 * or all layout (and is refused as a credential anyway, see `isBearerToken`).
 */
export function registerSecret(value: string | undefined): void {
  if (value === undefined || value.trim() === '' || registered.has(value)) return;
  registered.add(value);
  const all = new Set(forms);
  for (const form of exactForms(value)) all.add(form);
  for (const form of base64Forms(value)) if (form.length >= MIN_DERIVED_FORM_LENGTH) all.add(form);
  // Longest first, so that a form holding a shorter one (the padded base64 holds the unpadded one
  // and its first alignment) is replaced whole, not cut into `[REDACTED]==`.
  forms = [...all].sort((a, b) => b.length - a.length);
  encodedPatterns = [...encodedPatterns, encodedPattern(value)];
  // The literal forms first, longest first, then the encoded mixes.
  anyForm = new RegExp([...forms.map(escapeRegExp), ...encodedPatterns].join('|'));
  // The marker itself is matched too (and kept): text redacted once is redacted again on its way
  // out, and a short secret found inside "[REDACTED]" must not cut the marker up.
  const literal = [...forms, REDACTED].sort((a, b) => b.length - a.length).map(escapeRegExp);
  everyForm = new RegExp([...literal, ...encodedPatterns].join('|'), 'g');
}

/**
 * Forgets every registered secret and warning, as a new process starts. For a process that runs
 * several commands one after another (the test suite runs the CLI in process): each run starts clean.
 */
export function forgetSecrets(): void {
  registered.clear();
  warnedShort.clear();
  forms = [];
  encodedPatterns = [];
  anyForm = undefined;
  everyForm = undefined;
}

export function redact(text: string): string {
  // Nearly every text holds no secret: one regular-expression scan (about 3 times faster on a
  // multi-megabyte plan than an `includes` per form) returns it as it is, nothing allocated.
  if (anyForm === undefined || everyForm === undefined || !anyForm.test(text)) return text;
  // One pass, left to right: a replacement is never scanned again, so a short secret that occurs
  // in "[REDACTED]" (or in a longer form already replaced) cannot garble the output.
  return text.replace(everyForm, REDACTED);
}

/**
 * The one-line warning for a short secret, the first time it is asked for that secret; undefined
 * when the secret is long enough or was warned about already. `what` names it ("the API token"),
 * `kind` says what to lengthen. Only the CLI prints it: the library never writes to the process.
 */
export function shortSecretWarning(
  what: string,
  kind: 'token' | 'password',
  value: string | undefined,
): string | undefined {
  if (value === undefined || value === '' || value.length >= SHORT_SECRET_LENGTH) return undefined;
  if (warnedShort.has(value)) return undefined;
  warnedShort.add(value);
  return `${what} is only ${value.length} characters: redaction may hide ordinary text; use a longer ${kind}`;
}

/** Whether `text` holds a registered secret, in any of the forms `redact` replaces. */
export function containsSecret(text: string): boolean {
  return redact(text) !== text;
}

/**
 * What a `Bearer` header can carry: printable ASCII without spaces, at least one character. An
 * empty or blank token must never be accepted as a credential, on either side of the API.
 */
export function isBearerToken(value: string): boolean {
  return /^[\x21-\x7e]+$/.test(value);
}
