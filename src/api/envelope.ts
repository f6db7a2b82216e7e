/**
 * The response envelope (`status`, `message`, `data`, `pagination`) and the documented variants of
 * where a record sits in `data`. Success messages are never checked: the spec spells them several
 * ways. A body that does not fit becomes an InvalidResponseError naming the first wrong fields, e.g.
 * `[GET] /api/v1/groups: invalid response: data.groups[0].id: expected string, received number`.
 */
import { z } from 'zod';
import { InvalidResponseError, type RequestTarget } from './errors.js';

const int = z.number().int();

export const paginationSchema = z.object({
  first: int,
  last: int,
  page: int,
  total_count: int.nonnegative(),
  total_pages: int.nonnegative(),
});
export type Pagination = z.output<typeof paginationSchema>;

/** A record given as an object or as a one-element array (both appear in the spec's examples). */
export function oneRecord<S extends z.ZodType>(schema: S) {
  return z.union([schema, z.tuple([schema]).transform(([only]) => only)]);
}

/** The value under whichever of two documented keys is present (the first wins if both are). */
export function underEitherKey<S extends z.ZodType>(first: string, second: string, schema: S) {
  return z
    .object({ [first]: schema.optional(), [second]: schema.optional() })
    .transform((data, ctx): z.output<S> => {
      const value = data[first] ?? data[second];
      if (value === undefined) {
        ctx.addIssue({ code: 'custom', path: [first], message: `missing (neither ${first} nor ${second})` });
        return z.NEVER;
      }
      return value;
    });
}

/** `data` is an object holding the value under `key`. */
export function underKey<S extends z.ZodType>(key: string, schema: S) {
  // The computed key hides S from zod's types; the value under it was parsed by `schema`.
  return z.object({ [key]: schema }).transform((data) => data[key] as z.output<S>);
}

type Issue = z.core.$ZodIssue;

/** How far a union branch got before failing: deeper is more relevant; a root type mismatch least. */
function branchScore(issues: readonly Issue[]): number {
  let score = 0;
  for (const issue of issues) {
    const rootTypeMismatch = issue.code === 'invalid_type' && issue.path.length === 0;
    score = Math.max(score, issue.path.length * 2 + (rootTypeMismatch ? 0 : 1));
  }
  return score;
}

/** Flattens union failures to the branch that matched best, so the message names the real problem. */
function flattenIssues(issues: readonly Issue[], base: readonly PropertyKey[] = []) {
  const out: { path: PropertyKey[]; message: string }[] = [];
  for (const issue of issues) {
    const path = [...base, ...issue.path];
    if (issue.code === 'invalid_union' && issue.errors.length > 0) {
      const best = issue.errors.reduce((a, b) => (branchScore(b) > branchScore(a) ? b : a));
      for (const flat of flattenIssues(best, path)) out.push(flat);
    } else {
      out.push({ path, message: issue.message.replace(/^Invalid input: /, '') });
    }
  }
  return out;
}

/** A path into a body as text: `data.rules[0].id`; the empty path is `body`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const key of path) {
    if (typeof key === 'number') text += `[${key}]`;
    else text += text === '' ? String(key) : `.${String(key)}`;
  }
  return text === '' ? 'body' : text;
}

const MAX_REPORTED_ISSUES = 3;

/** The first MAX_REPORTED_ISSUES issues of a body that does not parse, each with its path. */
export function describeIssues(issues: readonly Issue[], base: readonly PropertyKey[] = []): string {
  const flat = flattenIssues(issues, base);
  const shown = flat.slice(0, MAX_REPORTED_ISSUES).map((i) => `${formatPath(i.path)}: ${i.message}`);
  const more = flat.length - shown.length;
  return shown.join('; ') + (more > 0 ? ` (and ${more} more)` : '');
}

function parseOrThrow<S extends z.ZodType>(
  target: RequestTarget,
  value: unknown,
  schema: S,
  base: readonly PropertyKey[] = [],
): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new InvalidResponseError(target, describeIssues(result.error.issues, base));
  return result.data;
}

const statusEnvelope = z.object({ status: z.literal('ok'), message: z.string().optional() });
const pagedEnvelope = statusEnvelope.extend({ pagination: paginationSchema });

function field(body: unknown, key: string): unknown {
  return typeof body === 'object' && body !== null ? Reflect.get(body, key) : undefined;
}

/**
 * The envelope's `status` must be `ok`. A 2xx saying `"status": "error"` (a proxy, or a server that
 * failed after answering 200) is reported with the server's message rather than as a schema mismatch.
 */
function checkStatus(target: RequestTarget, body: unknown): void {
  const said = field(body, 'message');
  if (field(body, 'status') === 'error') {
    throw new InvalidResponseError(
      target,
      `a success status with "status": "error"${typeof said === 'string' && said !== '' ? `: ${said}` : ''}`,
    );
  }
  parseOrThrow(target, body, statusEnvelope);
}

/** A response whose `data` must match `data`. */
export function readData<S extends z.ZodType>(target: RequestTarget, body: unknown, data: S): z.output<S> {
  checkStatus(target, body);
  return parseOrThrow(target, field(body, 'data'), data, ['data']);
}

/** A page of a paginated listing: `data` and a required `pagination`. */
export function readPage<S extends z.ZodType>(
  target: RequestTarget,
  body: unknown,
  data: S,
): { data: z.output<S>; pagination: Pagination } {
  checkStatus(target, body);
  const { pagination } = parseOrThrow(target, body, pagedEnvelope);
  return { data: parseOrThrow(target, field(body, 'data'), data, ['data']), pagination };
}

/** A response that carries nothing but `status` (and a message). */
export function readStatus(target: RequestTarget, body: unknown): void {
  checkStatus(target, body);
}
