/**
 * Process-wide registry of secret values (the API token, the emulator's admin token). Everything
 * that leaves the process as text — errors, debug logs, saved plans — goes through `redact`, so a
 * token can only leak if it was never registered, and registration happens where the token is read.
 */
const secrets = new Set<string>();

/**
 * Values shorter than this are not treated as secrets: redacting a short value ("block") would
 * rewrite ordinary data wherever it appears. Real API tokens are far longer.
 */
const MIN_SECRET_LENGTH = 8;

export const REDACTED = '[REDACTED]';

export function registerSecret(value: string | undefined): void {
  if (value !== undefined && value.length >= MIN_SECRET_LENGTH) secrets.add(value);
}

export function redact(text: string): string {
  let out = text;
  for (const secret of secrets) {
    if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    // A token may also appear URL-encoded (e.g. echoed back in a query string).
    const encoded = encodeURIComponent(secret);
    if (encoded !== secret && out.includes(encoded)) out = out.split(encoded).join(REDACTED);
  }
  return out;
}

/** Whether `text` holds a registered secret (raw or URL-encoded). */
export function containsSecret(text: string): boolean {
  return redact(text) !== text;
}
