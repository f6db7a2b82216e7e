/** Sign-in settings in openConnection: which credential wins, what is missing, and the password file. */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { openConnection } from '../../src/cli/connection.js';
import { redact } from '../../src/core/secrets.js';
import { answer, failure, ok, useNock } from '../api/helpers.js';

useNock();

const URL = 'http://waf.test';
const PASSWORD = 'correct horse battery staple';
const OBTAINED = 'obtained-token-5f4e3d2c1b';

async function fileHolding(text: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'wafctl-password-'));
  const path = join(dir, 'password');
  await writeFile(path, text);
  return path;
}

const env = (extra: Record<string, string>) => ({ WAF_URL: URL, ...extra }) as NodeJS.ProcessEnv;

describe('openConnection with sign-in settings', () => {
  it('without a token, signs in with WAF_SIGNIN_USERNAME and WAF_SIGNIN_PASSWORD; the token is for this run', async () => {
    const calls = answer(nock(URL).post('/api/v1/signin'), 200, ok({ token: OBTAINED }));
    const lines: string[] = [];
    const connection = await openConnection(
      {},
      env({ WAF_SIGNIN_USERNAME: 'alice', WAF_SIGNIN_PASSWORD: PASSWORD }),
      { log: (line) => lines.push(line) },
    );
    expect(connection).toMatchObject({ baseUrl: URL, token: OBTAINED });
    expect(calls[0]?.body).toEqual({ username: 'alice', password: PASSWORD });
    expect(lines[0]).toBe('--> POST /api/v1/signin');
    // Both are registered as secrets before anything could print them.
    expect(redact(`${PASSWORD} ${OBTAINED}`)).toBe('[REDACTED] [REDACTED]');
  });

  it('a password shorter than 8 characters is sent and redacted, with one warning', async () => {
    answer(nock(URL).post('/api/v1/signin'), 200, ok({ token: OBTAINED }));
    const warnings: string[] = [];
    const settings = env({ WAF_SIGNIN_USERNAME: 'alice', WAF_SIGNIN_PASSWORD: 'hunter2' });
    await openConnection({}, settings, { warn: (line) => warnings.push(line) });
    expect(warnings).toEqual([
      'Warning: the sign-in password is only 7 characters: redaction may hide ordinary text; use a longer password.',
    ]);
    expect(redact('password: hunter2')).toBe('password: [REDACTED]');
  });

  it('--password-file (trimmed) wins over WAF_SIGNIN_PASSWORD', async () => {
    const calls = answer(nock(URL).post('/api/v1/signin'), 200, ok({ token: OBTAINED }));
    const file = await fileHolding(`  ${PASSWORD}-from-file\n`);
    await openConnection(
      { passwordFile: file },
      env({ WAF_SIGNIN_USERNAME: 'alice', WAF_SIGNIN_PASSWORD: 'not-this-one' }),
    );
    expect(calls[0]?.body).toEqual({ username: 'alice', password: `${PASSWORD}-from-file` });
  });

  it('a token wins over the sign-in settings: no sign-in request, and a debug line says so', async () => {
    const lines: string[] = [];
    const both = env({
      WAF_TOKEN: 'given-token-1234',
      WAF_SIGNIN_USERNAME: 'alice',
      WAF_SIGNIN_PASSWORD: PASSWORD,
    });
    expect(await openConnection({}, both, { log: (line) => lines.push(line) })).toMatchObject({
      token: 'given-token-1234',
    });
    expect(lines).toEqual([
      'sign-in settings ignored: a token is given (WAF_TOKEN or --token-file), and a token wins',
    ]);
    // Also against a half-given sign-in: the token is enough, nothing is missing.
    const file = await fileHolding('file-token-5678\n');
    expect(await openConnection({ tokenFile: file, passwordFile: '/nonexistent' }, env({}))).toMatchObject({
      token: 'file-token-5678',
    });
  });

  it('a wrong password is a one-line error with the API message', async () => {
    answer(nock(URL).post('/api/v1/signin'), 400, failure('Invalid username or password'));
    await expect(
      openConnection({}, env({ WAF_SIGNIN_USERNAME: 'alice', WAF_SIGNIN_PASSWORD: PASSWORD })),
    ).rejects.toThrow(/^sign-in as alice failed: Invalid username or password$/);
  });

  it.each([
    [
      'only a user name',
      {},
      { WAF_SIGNIN_USERNAME: 'alice' },
      'WAF_SIGNIN_USERNAME is set but no password: set WAF_SIGNIN_PASSWORD or pass --password-file FILE.',
    ],
    [
      'only WAF_SIGNIN_PASSWORD',
      {},
      { WAF_SIGNIN_PASSWORD: PASSWORD },
      'a sign-in password is given (WAF_SIGNIN_PASSWORD) but no user name: set WAF_SIGNIN_USERNAME (or give a token with WAF_TOKEN or --token-file FILE).',
    ],
    [
      'only --password-file',
      { passwordFile: '/nonexistent/password' },
      {},
      'a sign-in password is given (--password-file) but no user name: set WAF_SIGNIN_USERNAME (or give a token with WAF_TOKEN or --token-file FILE).',
    ],
    [
      'an empty password (empty means unset)',
      {},
      { WAF_SIGNIN_USERNAME: 'alice', WAF_SIGNIN_PASSWORD: '' },
      'WAF_SIGNIN_USERNAME is set but no password: set WAF_SIGNIN_PASSWORD or pass --password-file FILE.',
    ],
  ])('%s is a usage error naming what is missing', async (_case, flags, extra, message) => {
    const error = await openConnection(flags, env(extra)).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'USAGE', message });
    expect(String(error)).not.toContain(PASSWORD);
  });

  it('nothing at all: the missing-token error also names the sign-in', async () => {
    await expect(openConnection({}, env({}))).rejects.toThrow(
      'no API token: set WAF_TOKEN or pass --token-file FILE. Or sign in: set WAF_SIGNIN_USERNAME and WAF_SIGNIN_PASSWORD (or pass --password-file FILE).',
    );
  });

  it('an unreadable or empty password file, without its content', async () => {
    const signin = env({ WAF_SIGNIN_USERNAME: 'alice' });
    await expect(openConnection({ passwordFile: '/nonexistent/password' }, signin)).rejects.toThrow(
      'cannot read the password file /nonexistent/password: ENOENT.',
    );
    const empty = await fileHolding(' \n');
    await expect(openConnection({ passwordFile: empty }, signin)).rejects.toThrow(
      `the password file ${empty} is empty.`,
    );
  });

  it('--url embedded ignores the sign-in settings (it has its own token)', async () => {
    nock.enableNetConnect('127.0.0.1');
    const connection = await openConnection({ url: 'embedded' }, {
      WAF_SIGNIN_USERNAME: 'alice',
    } as NodeJS.ProcessEnv);
    try {
      expect(connection.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    } finally {
      await connection.close();
    }
  });
});
