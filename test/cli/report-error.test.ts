import { CommanderError } from 'commander';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { reportError } from '../../src/cli/report-error.js';
import { exitCodeFor, WafctlError } from '../../src/core/errors.js';
import { registerSecret } from '../../src/core/secrets.js';

let written: string;

beforeEach(() => {
  written = '';
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written += String(chunk);
    return true;
  });
});

afterEach(() => {
  vi.restoreAllMocks();
  delete process.env.WAFCTL_DEBUG;
});

describe('reportError', () => {
  it('prints a WafctlError as one line and maps its code to exit 1', () => {
    const code = reportError(new WafctlError('CONFIG_INVALID', 'a.yaml:1:1 groups: expected a list'));
    expect(code).toBe(1);
    expect(written).toBe('Error: a.yaml:1:1 groups: expected a list\n');
  });

  it('reports an unexpected error as a bug, without a stack unless WAFCTL_DEBUG=1', () => {
    expect(reportError(new TypeError('x is undefined'))).toBe(1);
    expect(written).toContain('Error: internal error: x is undefined');
    expect(written).toContain('WAFCTL_DEBUG=1');
    expect(written).not.toContain('    at ');

    written = '';
    process.env.WAFCTL_DEBUG = '1';
    reportError(new TypeError('x is undefined'));
    expect(written).toContain('    at ');
  });

  it('adds a hint to check the token to a 403', () => {
    const forbidden = Object.assign(new WafctlError('API_ERROR', '[GET] /api/v1/groups: 403 Forbidden'), {
      status: 403,
    });
    reportError(forbidden);
    expect(written).toBe(
      'Error: [GET] /api/v1/groups: 403 Forbidden\nHint: the server refused the token, or it lacks the privilege for this request; check WAF_TOKEN or --token-file (or the groups of WAF_SIGNIN_USERNAME when signing in).\n',
    );
  });

  it('never prints a registered secret, even inside a message', () => {
    registerSecret('s3cr3t-token-value');
    reportError(new WafctlError('API_ERROR', 'server echoed s3cr3t-token-value'));
    expect(written).not.toContain('s3cr3t-token-value');
  });

  it('escapes control and bidi characters in a message, keeping the lines of a multi-line one', () => {
    reportError(
      new WafctlError(
        'CONFIG_INVALID',
        'a.yaml:1:1 groups[0].name: "x\u001b[2K" is invalid\nb.yaml:2:3 groups[1].name: "evil\u202etxt.exe" is invalid\r',
      ),
    );
    expect(written).toBe(
      'Error: a.yaml:1:1 groups[0].name: "x\\u001b[2K" is invalid\nb.yaml:2:3 groups[1].name: "evil\\u202etxt.exe" is invalid\\r\n',
    );
    for (const raw of ['\u001b', '\u202e', '\r']) expect(written).not.toContain(raw);

    written = '';
    reportError(new TypeError('bad \u0007 value\u2028next'));
    expect(written).toContain('Error: internal error: bad \\u0007 value\\u2028next\n');
  });

  it("passes commander's own exit code through (it has already printed)", () => {
    expect(reportError(new CommanderError(0, 'commander.helpDisplayed', '(outputHelp)'))).toBe(0);
    expect(written).toBe('');
  });

  it('maps non-wafctl values to exit 1', () => {
    expect(exitCodeFor('a string')).toBe(1);
  });
});
