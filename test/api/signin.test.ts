/** `signIn`: POST /api/v1/signin against nock: the request, the refusals, the failures, and secrecy. */
import { inspect } from 'node:util';
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { SignInError, signIn } from '../../src/api/index.js';
import { answer, BASE, failure, fakeClock, ok, useNock } from './helpers.js';

useNock();

const PASSWORD = 'pa"ss\\wo/rd with spaces-1';
const OBTAINED = 'signed-in-token-0a1b2c3d4e5f';

function run(lines: string[] = [], password = PASSWORD): Promise<string> {
  return signIn({
    baseUrl: BASE,
    username: 'alice',
    password,
    clock: fakeClock(),
    log: (line) => lines.push(line),
  });
}

/** Every way an error could end up as text somewhere. */
function renderings(error: unknown): string[] {
  const cause = (error as { cause?: unknown }).cause;
  return [String(error), JSON.stringify(error), inspect(error, { depth: 10 }), inspect(cause)];
}

describe('signIn', () => {
  it('posts {username, password} as JSON without any Authorization header, and resolves with data.token', async () => {
    const calls = answer(nock(BASE).post('/api/v1/signin'), 200, ok({ token: OBTAINED }));
    expect(await run()).toBe(OBTAINED);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.body).toEqual({ username: 'alice', password: PASSWORD });
    expect(calls[0]?.headers['content-type']).toBe('application/json');
    expect(calls[0]?.headers.authorization).toBeUndefined();
  });

  it.each([400, 401, 403])(
    'a refusal (%i) is "sign-in as USER failed: <the API message>"',
    async (status) => {
      answer(nock(BASE).post('/api/v1/signin'), status, failure('Invalid username or password'));
      const error = await run().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SignInError);
      expect((error as SignInError).message).toBe('sign-in as alice failed: Invalid username or password');
      expect((error as SignInError).code).toBe('API_ERROR');
      expect((error as SignInError).userFault).toBe(true);
    },
  );

  it('a server error names the request and is sent once (a POST is never retried)', async () => {
    answer(nock(BASE).post('/api/v1/signin'), 500, failure('Database unavailable'));
    const error = await run().catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      'sign-in as alice failed: [POST] /api/v1/signin: 500 Database unavailable',
    );
  });

  it('a 503 is not retried either: one clear error', async () => {
    answer(nock(BASE).post('/api/v1/signin'), 503, 'unavailable', { 'retry-after': '1' });
    await expect(run()).rejects.toThrow(
      'sign-in as alice failed: [POST] /api/v1/signin: 503 Service Unavailable',
    );
  });

  it('a network error names the sign-in and the host', async () => {
    nock(BASE).post('/api/v1/signin').replyWithError({ code: 'ECONNRESET', message: 'socket hang up' });
    const error = await run().catch((e: unknown) => e);
    expect((error as SignInError).message).toBe(
      'sign-in as alice failed: [POST] /api/v1/signin: connection to waf.test failed: ECONNRESET (socket hang up)',
    );
    expect((error as SignInError).code).toBe('API_NETWORK');
  });

  it('an answer without a token, or with one no header can carry, is an invalid response', async () => {
    answer(nock(BASE).post('/api/v1/signin'), 200, ok({}));
    await expect(run()).rejects.toThrow(
      'sign-in as alice failed: [POST] /api/v1/signin: invalid response: data.token: expected string, received undefined',
    );
    answer(nock(BASE).post('/api/v1/signin'), 200, ok({ token: 'has spaces in-it-0123' }));
    const error = await run().catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      'sign-in as alice failed: [POST] /api/v1/signin: invalid response: the token contains characters an HTTP header cannot carry (spaces, control or non-ASCII characters)',
    );
    expect(String(error)).not.toContain('has spaces in-it-0123');
  });

  it('escapes a user name that could forge a line', async () => {
    answer(nock(BASE).post('/api/v1/signin'), 401, failure('no'));
    const error = await signIn({ baseUrl: BASE, username: 'eve\nError: ok', password: PASSWORD }).catch(
      (e: unknown) => e,
    );
    expect((error as Error).message).toBe('sign-in as eve\\nError: ok failed: no');
  });
});

describe('the password and the obtained token never leak', () => {
  it('not from a server that echoes them in its refusal, its details or a 2xx "error"', async () => {
    const lines: string[] = [];
    answer(nock(BASE).post('/api/v1/signin'), 401, {
      status: 'error',
      message: `wrong password ${PASSWORD}`,
      errors: [encodeURIComponent(PASSWORD), JSON.stringify(PASSWORD)],
    });
    const refused = await run(lines).catch((e: unknown) => e);
    expect((refused as Error).message).toBe('sign-in as alice failed: wrong password [REDACTED]');

    answer(nock(BASE).post('/api/v1/signin'), 200, {
      status: 'error',
      message: `issued ${OBTAINED} to ${PASSWORD}`,
      data: { token: OBTAINED },
    });
    const garbled = await run(lines).catch((e: unknown) => e);
    expect((garbled as Error).message).toBe(
      'sign-in as alice failed: [POST] /api/v1/signin: invalid response: a success status with "status": "error": issued [REDACTED] to [REDACTED]',
    );

    expect(lines).toEqual([
      '--> POST /api/v1/signin',
      expect.stringMatching(/^<-- 401 POST \/api\/v1\/signin \(\d+ ms\)$/),
      '--> POST /api/v1/signin',
      expect.stringMatching(/^<-- 200 POST \/api\/v1\/signin \(\d+ ms\)$/),
    ]);
    for (const text of [...renderings(refused), ...renderings(garbled), ...lines]) {
      for (const secret of [PASSWORD, JSON.stringify(PASSWORD).slice(1, -1), encodeURIComponent(PASSWORD)])
        expect(text).not.toContain(secret);
      expect(text).not.toContain(OBTAINED);
    }
  });
});

describe('the password goes to the sign-in only, in its field', () => {
  it('is refused anywhere else in the sign-in request (here: the user name), nothing sent', async () => {
    const error = await signIn({
      baseUrl: BASE,
      username: `alice ${PASSWORD}`,
      password: PASSWORD,
      clock: fakeClock(),
    }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(SignInError);
    expect(error).toMatchObject({ code: 'PLAN_REFUSED' });
    expect((error as Error).message).toMatch(
      /\[POST\] \/api\/v1\/signin: refused to send: the request body holds a secret/,
    );
    for (const text of renderings(error)) expect(text).not.toContain(PASSWORD);
  });
});
