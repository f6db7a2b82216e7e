import { CommanderError } from 'commander';
import { beforeEach, describe, expect, it } from 'vitest';
import { reportError } from '../../src/cli/report-error.js';
import { exitCodeFor, WafctlError } from '../../src/core/errors.js';
import { registerSecret } from '../../src/core/secrets.js';
import { type TestIo, testIo } from '../helpers/io.js';

let run: TestIo;
const report = (error: unknown) => reportError(run.io, error);

beforeEach(() => {
  run = testIo();
});

describe('reportError', () => {
  it('prints a WafctlError as one line and maps its code to exit 1', () => {
    const code = report(new WafctlError('CONFIG_INVALID', 'a.yaml:1:1 groups: expected a list'));
    expect(code).toBe(1);
    expect(run.stderr()).toBe('Error: a.yaml:1:1 groups: expected a list\n');
  });

  it('reports an unexpected error as a bug, without a stack unless WAFCTL_DEBUG=1', () => {
    expect(report(new TypeError('x is undefined'))).toBe(1);
    expect(run.stderr()).toContain('Error: internal error: x is undefined');
    expect(run.stderr()).toContain('WAFCTL_DEBUG=1');
    expect(run.stderr()).not.toContain('    at ');

    run = testIo({ env: { WAFCTL_DEBUG: '1' } });
    report(new TypeError('x is undefined'));
    expect(run.stderr()).toContain('    at ');
  });

  it('adds a hint to check the token to a 403', () => {
    const forbidden = Object.assign(new WafctlError('API_ERROR', '[GET] /api/v1/groups: 403 Forbidden'), {
      status: 403,
    });
    report(forbidden);
    expect(run.stderr()).toBe(
      'Error: [GET] /api/v1/groups: 403 Forbidden\nHint: the server refused the token, or it lacks the privilege for this request; check WAF_TOKEN or --token-file (or the groups of WAF_SIGNIN_USERNAME when signing in).\n',
    );
  });

  it('names where the refused token came from, when the error carries it; a 401 says it was not accepted', () => {
    const error = (status: number) =>
      Object.assign(new WafctlError('API_ERROR', `[GET] /api/v1/groups: ${status}`), {
        status,
        credential: '--token-file prod.token',
      });
    report(error(401));
    report(error(403));
    expect(
      run
        .stderr()
        .split('\n')
        .filter((line) => line.startsWith('Hint:')),
    ).toEqual([
      'Hint: the server did not accept the token; check --token-file prod.token.',
      'Hint: the server refused the token, or it lacks the privilege for this request; check --token-file prod.token.',
    ]);
  });

  it('never prints a registered secret, even inside a message', () => {
    registerSecret('s3cr3t-token-value');
    report(new WafctlError('API_ERROR', 'server echoed s3cr3t-token-value'));
    expect(run.stderr()).not.toContain('s3cr3t-token-value');
  });

  it('escapes control and bidi characters in a message, keeping the lines of a multi-line one', () => {
    report(
      new WafctlError(
        'CONFIG_INVALID',
        'a.yaml:1:1 groups[0].name: "x\u001b[2K" is invalid\nb.yaml:2:3 groups[1].name: "evil\u202etxt.exe" is invalid\r',
      ),
    );
    expect(run.stderr()).toBe(
      'Error: a.yaml:1:1 groups[0].name: "x\\u001b[2K" is invalid\nb.yaml:2:3 groups[1].name: "evil\\u202etxt.exe" is invalid\\r\n',
    );
    for (const raw of ['\u001b', '\u202e', '\r']) expect(run.stderr()).not.toContain(raw);

    run = testIo();
    report(new TypeError('bad \u0007 value\u2028next'));
    expect(run.stderr()).toContain('Error: internal error: bad \\u0007 value\\u2028next\n');
  });

  it("passes commander's own exit code through (it has already printed)", () => {
    expect(report(new CommanderError(0, 'commander.helpDisplayed', '(outputHelp)'))).toBe(0);
    expect(run.stderr()).toBe('');
  });

  it('maps non-wafctl values to exit 1', () => {
    expect(exitCodeFor('a string')).toBe(1);
  });
});
