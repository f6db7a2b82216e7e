/**
 * Short secrets: redacted at any length, with a warning. In a file of their own: a registered
 * secret cannot be unregistered, and "hunter2" or "q7" would be redacted in every other test of the
 * worker (vitest isolates test files).
 */
import { Buffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import {
  containsSecret,
  MIN_DERIVED_FORM_LENGTH,
  REDACTED,
  redact,
  registerSecret,
  shortSecretWarning,
} from '../../src/core/secrets.js';

const base64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');
const jsonEscaped = (text: string): string => JSON.stringify(text).slice(1, -1);

describe('a secret shorter than 8 characters', () => {
  it('is redacted raw and in every escaped form, and in base64 forms of 8 characters or more', () => {
    const password = 'hun"t/2';
    expect(password).toHaveLength(7);
    registerSecret(password);
    const forms = [
      password,
      jsonEscaped(password),
      jsonEscaped(jsonEscaped(password)),
      jsonEscaped(password).replaceAll('/', '\\/'),
      encodeURIComponent(password),
      encodeURIComponent(password).toLowerCase(),
      new URLSearchParams({ p: password }).toString().slice(2),
      base64(password),
      base64(password).replace(/=+$/, ''),
    ];
    for (const form of forms) {
      expect(redact(`{"message": "denied ${form} here"}`)).toBe(`{"message": "denied ${REDACTED} here"}`);
    }
  });

  it('of 2 characters: redacted raw, but its 4-character base64 is left alone (it would match anywhere)', () => {
    registerSecret('q7');
    expect(redact('token q7, again q7.')).toBe(`token ${REDACTED}, again ${REDACTED}.`);
    expect(base64('q7')).toBe('cTc=');
    expect(base64('q7').length).toBeLessThan(MIN_DERIVED_FORM_LENGTH);
    expect(redact('Authorization: Basic cTc=')).toBe('Authorization: Basic cTc=');
    expect(containsSecret('cTc=')).toBe(false);
  });

  it('that occurs inside the marker never cuts it up, however often the text is redacted', () => {
    registerSecret('DAC');
    const once = redact('a DAC b');
    expect(once).toBe(`a ${REDACTED} b`);
    expect(redact(once)).toBe(once);
    expect(redact(redact(`x${REDACTED}DACy`))).toBe(`x${REDACTED}${REDACTED}y`);
  });
});

describe('shortSecretWarning', () => {
  it('warns once per short secret, naming it and its length, never showing it', () => {
    const token = 'zq-4k9';
    const warning = shortSecretWarning('the API token', 'token', token);
    expect(warning).toBe(
      'the API token is only 6 characters: redaction may hide ordinary text; use a longer token',
    );
    expect(shortSecretWarning('the API token', 'token', token)).toBeUndefined();
    expect(shortSecretWarning('the sign-in password', 'password', 'pw-4k9')).toContain(
      'use a longer password',
    );
  });

  it('says nothing for a secret of 8 characters or more, or none', () => {
    expect(shortSecretWarning('the API token', 'token', 'a1b2c3d4')).toBeUndefined();
    expect(shortSecretWarning('the API token', 'token', undefined)).toBeUndefined();
    expect(shortSecretWarning('the API token', 'token', '')).toBeUndefined();
  });
});
