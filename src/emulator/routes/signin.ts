/**
 * `POST /api/v1/signin` `{username, password}` -> `data.token`: the vendor's way to obtain a token,
 * for seeded users that have a `password` (each sign-in hands out a fresh token; see auth.ts). The
 * only route that needs no token.
 *
 * The spec documents neither this endpoint nor its messages; its Errors section says a failed
 * operation is a 400 and names no other client error, so refused credentials are a 400 with the
 * vendor's error shape, `{"status": "error", "message": "Invalid username or password"}`. The same
 * answer for an unknown user, a wrong password and a user without a password: the answer never says
 * which usernames exist. Nothing here ever echoes the password (zod's messages name types, not values).
 */
import { z } from 'zod';
import { fail, ok, type Route, type RouteContext, type RouteResult } from '../router.js';
import { parseWith } from '../validation.js';

const MESSAGES = {
  signedIn: 'Signed in',
  refused: 'Invalid username or password',
  error: 'Error signing in',
} as const;

const body = z.object({ username: z.string(), password: z.string() });

function signIn({ body: input, caller }: RouteContext): RouteResult {
  const parsed = parseWith(body, input);
  if (!parsed.ok) return fail(MESSAGES.error, parsed.errors);
  const token = caller.signIn(parsed.value.username, parsed.value.password);
  if (token === undefined) {
    return { status: 400, body: { status: 'error', message: MESSAGES.refused }, mutated: false };
  }
  return ok(MESSAGES.signedIn, { token });
}

export const signinRoutes: Route[] = [
  {
    method: 'POST',
    template: '/api/v1/signin',
    privilege: 'signin',
    body: 'json',
    errorMessage: MESSAGES.error,
    handle: signIn,
  },
];
