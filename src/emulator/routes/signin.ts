/**
 * `POST /api/v1/signin` `{username, password}` -> `data.token`: the vendor's way to obtain a token,
 * for seeded users that have a `password` (each sign-in hands out a fresh token; see auth.ts). The
 * only route that needs no token.
 *
 * The spec documents neither this endpoint nor its messages; the vendor's page does
 * (https://docs.seerbox.it/api/authentication/signin): 200 "You are successfully logged in", and
 * refused credentials are a 401 with the error shape, `{"status": "error", "message": "Invalid
 * username or password"}` (the client treats 400, 401 and 403 alike). The same answer for an unknown
 * user, a wrong password and a user without a password: the answer never says which usernames
 * exist. Nothing here ever echoes the password (zod's messages name types, not values).
 */
import { z } from 'zod';
import { fail, ok, type Route, type RouteContext, type RouteResult } from '../router.js';
import { parseWith } from '../validation.js';

const MESSAGES = {
  signedIn: 'You are successfully logged in',
  refused: 'Invalid username or password',
  error: 'Error signing in',
} as const;

const body = z.object({ username: z.string(), password: z.string() });

function signIn({ body: input, caller }: RouteContext): RouteResult {
  const parsed = parseWith(body, input);
  if (!parsed.ok) return fail(MESSAGES.error, parsed.errors);
  const token = caller.signIn(parsed.value.username, parsed.value.password);
  if (token === undefined) {
    return { status: 401, body: { status: 'error', message: MESSAGES.refused }, mutated: false };
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
