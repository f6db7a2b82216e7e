import { describe, expect, it } from 'vitest';
import { containsSecret, REDACTED, redact, registerSecret } from '../src/secrets.js';

describe('redact', () => {
  it('replaces every occurrence of a registered secret, raw and URL-encoded', () => {
    registerSecret('tok/en+secret=1');
    const text = 'a tok/en+secret=1 b tok%2Fen%2Bsecret%3D1 c tok/en+secret=1';
    expect(redact(text)).toBe(`a ${REDACTED} b ${REDACTED} c ${REDACTED}`);
  });

  it('leaves text without secrets untouched and ignores values too short to be secrets', () => {
    registerSecret('block');
    registerSecret(undefined);
    expect(redact('firewall_action: block')).toBe('firewall_action: block');
    expect(containsSecret('firewall_action: block')).toBe(false);
    expect(containsSecret('a tok/en+secret=1 b')).toBe(true);
  });
});
