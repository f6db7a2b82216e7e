/** Small shared pieces for validating request bodies with zod and reporting the problems. */
import { z } from 'zod';
import { isEmail, isIpAddress, isPort, isTimezone } from '../domain.js';

export const nonEmptyString = z.string().min(1, { error: 'expected a non-empty string' });
export const email = z.string().refine(isEmail, { error: 'expected an e-mail address' });
export const timezone = z.string().refine(isTimezone, { error: 'expected an IANA timezone name' });
export const ipAddress = z.string().refine(isIpAddress, { error: 'expected an IPv4 or IPv6 address' });
export const port = z.number().refine(isPort, { error: 'expected an integer port from 1 to 65535' });
export const microseconds = z.int().min(0);

/** One line per problem, `path: what is wrong`, as carried in the `errors` array of a 400. */
export function issueLines(error: z.ZodError): string[] {
  return error.issues.flatMap((issue) => {
    const path = issue.path.map(String);
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => `${[...path, key].join('.')}: unknown field`);
    }
    const message = issue.message.endsWith('received undefined') ? 'required' : issue.message;
    return [`${path.length === 0 ? 'body' : path.join('.')}: ${message}`];
  });
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; errors: string[] };

export function parseWith<S extends z.ZodType>(schema: S, input: unknown): Parsed<z.output<S>> {
  const result = schema.safeParse(input);
  return result.success ? { ok: true, value: result.data } : { ok: false, errors: issueLines(result.error) };
}
