/** Small shared pieces for validating request bodies with zod and reporting the problems. */
import { z } from 'zod';
import { isEmail, isIpAddress, isPort, isTimezone } from '../core/domain.js';

/**
 * Maximum lengths of the strings a write may carry, in Unicode code points (documented in the
 * README's Validation row). The spec names none; these are generous for every real value and keep
 * one request from storing megabytes in a field that is shown on one line.
 */
export const MAX_LENGTH = {
  /** Group, notification and schedule names. */
  name: 256,
  /** Ids, usernames, hosts, priorities, actions, operators, e-mail addresses and other short text. */
  short: 256,
  description: 1024,
  /** Condition targets (`request_body:x-www-form-urlencoded:<name>` grows with the field name). */
  target: 1024,
  /** Condition expressions (regular expressions and the like). */
  expression: 4096,
} as const;

/**
 * Index (UTF-16 code unit, from 0) of the first lone surrogate, or -1. JSON.parse turns `"\ud800"`
 * into one; such a string cannot be sent back as UTF-8, nor matched by a name in a URL.
 */
export function loneSurrogateAt(value: string): number {
  // The fast path is native (Node 20); TypeScript's ES2023 lib does not declare it yet.
  if ((value as string & { isWellFormed(): boolean }).isWellFormed()) return -1;
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    if (unit >= 0xdc00 && unit <= 0xdfff) return i;
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = value.charCodeAt(i + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) return i;
      i++;
    }
  }
  return -1;
}

/** Why `value` is not acceptable text of at most `max` code points, or undefined. */
export function textProblem(value: string, max: number): string | undefined {
  const surrogate = loneSurrogateAt(value);
  if (surrogate >= 0) return `must be well-formed Unicode (a lone surrogate at position ${surrogate})`;
  // Code points never outnumber code units, so counting is needed only past the limit.
  if (value.length <= max) return undefined;
  let count = 0;
  for (const _ of value) count++;
  return count > max ? `at most ${max} characters, got ${count}` : undefined;
}

/**
 * A string that is well-formed and at most `max` code points, then passes `check` (which returns a
 * problem or undefined): one message per field, the most basic problem first.
 */
export function text(max: number, check?: (value: string) => string | undefined) {
  return z.string().check((ctx) => {
    const problem = textProblem(ctx.value, max) ?? check?.(ctx.value);
    if (problem !== undefined) ctx.issues.push({ code: 'custom', message: problem, input: ctx.value });
  });
}

const notEmpty = (value: string) => (value === '' ? 'expected a non-empty string' : undefined);
const when = (test: (value: string) => boolean, problem: string) => (value: string) =>
  test(value) ? undefined : problem;

export const nonEmptyText = (max: number) => text(max, notEmpty);
export const nameText = nonEmptyText(MAX_LENGTH.name);
export const shortText = text(MAX_LENGTH.short);
export const nonEmptyString = nonEmptyText(MAX_LENGTH.short);
export const email = text(MAX_LENGTH.short, when(isEmail, 'expected an e-mail address'));
export const timezone = text(MAX_LENGTH.short, when(isTimezone, 'expected an IANA timezone name'));
export const ipAddress = text(MAX_LENGTH.short, when(isIpAddress, 'expected an IPv4 or IPv6 address'));
export const port = z.number().refine(isPort, { error: 'expected an integer port from 1 to 65535' });
export const microseconds = z.int().min(0);

/**
 * A path parameter after decoding, e.g. a notification's name. The router cannot produce a lone
 * surrogate today (an encoded one is invalid UTF-8, and the route does not match: 404), so this only
 * guards a future decoder; its answer is the endpoint's 400 naming the parameter.
 */
export function paramProblems(name: string, value: string): string[] {
  const surrogate = loneSurrogateAt(value);
  return surrogate < 0
    ? []
    : [`${name}: must be well-formed Unicode (a lone surrogate at position ${surrogate})`];
}

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
