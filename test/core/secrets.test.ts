import { Buffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { containsSecret, REDACTED, redact, registerSecret } from '../../src/core/secrets.js';

const base64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');
const base64url = (text: string): string => base64(text).replaceAll('+', '-').replaceAll('/', '_');
const jsonEscaped = (text: string): string => JSON.stringify(text).slice(1, -1);
const lowerHex = (text: string): string => text.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase());

/** Every form in which a token must be redacted when it stands alone. */
function wholeForms(token: string): Record<string, string> {
  return {
    raw: token,
    'JSON-escaped': jsonEscaped(token),
    'JSON-escaped twice': jsonEscaped(jsonEscaped(token)),
    'JSON-escaped with \\/': jsonEscaped(token).replaceAll('/', '\\/'),
    'URL-encoded, upper-case hex': encodeURIComponent(token),
    'URL-encoded, lower-case hex': lowerHex(encodeURIComponent(token)),
    'form-encoded': new URLSearchParams({ t: token }).toString().slice(2),
    base64: base64(token),
    'base64 without padding': base64(token).replace(/=+$/, ''),
    base64url: base64url(token),
    'base64url without padding': base64url(token).replace(/=+$/, ''),
  };
}

// Quotes and backslashes (JSON), URL and base64 specials, characters only form encoding escapes, hex.
const TOKENS = [
  'abc"def\\ghi/jkl',
  'tok+en/with=chars',
  "it's~(ok)!token",
  '9f8e7d6c5b4a39281706f5e4d3c2b1a0',
];
for (const token of TOKENS) registerSecret(token);

describe('redact', () => {
  it('replaces every occurrence of a registered secret, raw and URL-encoded', () => {
    registerSecret('tok/en+secret=1');
    const text = 'a tok/en+secret=1 b tok%2Fen%2Bsecret%3D1 c tok/en+secret=1';
    expect(redact(text)).toBe(`a ${REDACTED} b ${REDACTED} c ${REDACTED}`);
  });

  it('redacts a secret echoed with its characters percent-encoded or \\u-escaped, every one or some (issue 41)', () => {
    const token = 'echo-Tok/9\u00e9"x1';
    registerSecret(token);
    const bytes = [...Buffer.from(token, 'utf8')];
    const percent = bytes.map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
    const unicode = [...token].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
    const forms = {
      'percent-encoded, lower-case hex': percent,
      'percent-encoded, upper-case hex': percent.toUpperCase(),
      '\\u-escaped, lower-case hex': unicode,
      '\\u-escaped, upper-case hex': unicode
        .replace(/[a-f]/g, (d) => d.toUpperCase())
        .replaceAll('\\U', '\\u'),
      mixed: 'echo-%54ok\\u002f9%C3%A9"x\\u0031',
    };
    for (const [name, form] of Object.entries(forms)) {
      expect(redact(`before ${form} after`), name).toBe(`before ${REDACTED} after`);
    }
    // One character short of the secret, in any form, is not it.
    expect(redact(`${percent.slice(0, -3)} and ${unicode.slice(0, -6)}`)).not.toContain(REDACTED);
  });

  it('leaves text without secrets untouched, and registers neither undefined, nor empty, nor blank values', () => {
    registerSecret(undefined);
    registerSecret('');
    registerSecret(' \n');
    expect(redact('a b\n')).toBe('a b\n');
    expect(redact('firewall_action: block')).toBe('firewall_action: block');
    expect(containsSecret('firewall_action: block')).toBe(false);
    registerSecret('tok/en+secret=1');
    expect(containsSecret('a tok/en+secret=1 b')).toBe(true);
  });

  describe.each(TOKENS)('the token %j', (token) => {
    it.each(Object.entries(wholeForms(token)))('is redacted %s', (_form, text) => {
      const line = `{"message": "denied ${text} here"}`;
      expect(redact(line)).toBe(`{"message": "denied ${REDACTED} here"}`);
      expect(containsSecret(line)).toBe(true);
    });

    it.each([
      ['"user:" + token', 'user:', ''],
      ['"xy" + token + "z"', 'xy', 'z'],
    ])('is redacted in base64 of %s, whatever its alignment in the blob', (_what, before, after) => {
      for (const encode of [base64, base64url]) {
        const blob = encode(`${before}${token}${after}`);
        const redacted = redact(`Authorization: Basic ${blob}`);
        expect(containsSecret(blob)).toBe(true);
        // Left: the group(s) holding the prefix and at most 2 token bytes, and the same at the end.
        expect(redacted).toMatch(/^Authorization: Basic [\w+/-]{0,8}\[REDACTED\][\w+/=-]{0,4}$/);
      }
    });
  });

  it('returns ordinary text unchanged, as the very same string', () => {
    const text = `plan: 3 to create, 1 to update\n${'{"name": "soc-analysts", "block": true}\n'.repeat(1000)}`;
    expect(redact(text)).toBe(text);
    expect(containsSecret(text)).toBe(false);
  });
});
