/**
 * Process-wide registry of secret values (the API token, the emulator's admin token). Everything
 * that leaves the process as text — errors, debug logs, saved plans — goes through `redact`, so a
 * token can only leak if it was never registered, and registration happens where the token is read.
 *
 * A secret is redacted in every form in which a server, a log or our own JSON output may carry it:
 * raw, JSON-escaped (once, twice, and with `/` written `\/`), URL-encoded (upper- and lower-case
 * hex, and form encoding), and base64 (standard and URL alphabets, padded or not, alone or inside a
 * larger blob such as a Basic authorization header). The forms are computed once, at registration.
 */
import { Buffer } from 'node:buffer';

/** Every form of every registered secret, longest first (see `registerSecret`). */
let forms: readonly string[] = [];
/** Any of `forms`: one scan that tells nearly every text apart as holding none of them. */
let anyForm: RegExp | undefined;
const registered = new Set<string>();

/**
 * Values shorter than this are not treated as secrets: redacting a short value ("block") would
 * rewrite ordinary data wherever it appears. Real API tokens are far longer.
 */
const MIN_SECRET_LENGTH = 8;

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

function formsOf(secret: string): string[] {
  return [secret, ...jsonForms(secret), ...urlForms(secret), ...base64Forms(secret)];
}

export function registerSecret(value: string | undefined): void {
  if (value === undefined || value.length < MIN_SECRET_LENGTH || registered.has(value)) return;
  registered.add(value);
  const all = new Set(forms);
  for (const form of formsOf(value)) if (form.length >= MIN_SECRET_LENGTH) all.add(form);
  // Longest first, so that a form holding a shorter one (the padded base64 holds the unpadded one
  // and its first alignment) is replaced whole, not cut into `[REDACTED]==`.
  forms = [...all].sort((a, b) => b.length - a.length);
  anyForm = new RegExp(forms.map((form) => form.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'));
}

export function redact(text: string): string {
  // Nearly every text holds no secret: one regular-expression scan (about 3 times faster on a
  // multi-megabyte plan than an `includes` per form) returns it as it is, nothing allocated.
  if (anyForm === undefined || !anyForm.test(text)) return text;
  let out = text;
  for (const form of forms) {
    if (out.includes(form)) out = out.split(form).join(REDACTED);
  }
  return out;
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
