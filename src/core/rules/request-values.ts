/**
 * The values of each target for one test request (docs/rule-tests.md, "How wafctl evaluates a
 * request"). The vendor's "Application Rules" page names each target in one line; where it says no
 * more (encoding, several headers of one name, what `request_size` counts) the choices here are
 * wafctl's assumptions, documented there.
 */
import { COMPOSED_TARGETS } from './catalog.js';
import type { TestRequest } from './types.js';

const HEADER_PREFIX = COMPOSED_TARGETS[0].prefix;
const FORM_PREFIX = COMPOSED_TARGETS[1].prefix;
const FORM_TYPE = 'application/x-www-form-urlencoded';

/** The request as HTTP/1.1 would send it: request line, header lines, blank line, body. */
function wireText(request: TestRequest): string {
  const target = request.query === '' ? request.path : `${request.path}?${request.query}`;
  const lines = [`${request.method} ${target} ${request.protocol}`];
  for (const [name, value] of Object.entries(request.headers)) lines.push(`${name}: ${value}`);
  if (!Object.keys(request.headers).some((name) => name.toLowerCase() === 'host')) {
    lines.push(`Host: ${request.host}`);
  }
  return `${lines.join('\r\n')}\r\n\r\n${request.body}`;
}

/** `request_size`: the UTF-8 byte length of `wireText` (the target's value is its decimal string). */
export function requestSize(request: TestRequest): number {
  return new TextEncoder().encode(wireText(request)).length;
}

/** The values of the headers named `name`, ignoring case; `Host` defaults to the request's host. */
function headerValues(request: TestRequest, name: string): string[] {
  const wanted = name.toLowerCase();
  const values = Object.entries(request.headers)
    .filter(([header]) => header.toLowerCase() === wanted)
    .map(([, value]) => value);
  return values.length === 0 && wanted === 'host' ? [request.host] : values;
}

/** Whether the body is form-encoded: the first Content-Type's media type, ignoring case and parameters. */
export function isFormEncoded(request: TestRequest): boolean {
  const [contentType] = headerValues(request, 'content-type');
  return contentType?.split(';')[0]?.trim().toLowerCase() === FORM_TYPE;
}

/** Every key, or every value, of a form-encoded string (`+` is a space, `%XX` decoded). */
function formPairs(text: string, part: 0 | 1): string[] {
  return [...new URLSearchParams(text)].map((pair) => pair[part]);
}

/** The basic targets, by name. */
const BASIC = new Map<string, (request: TestRequest) => string[]>([
  ['method', (request) => [request.method]],
  ['path', (request) => [request.path]],
  ['query', (request) => [request.query]],
  ['parameter_key', (request) => formPairs(request.query, 0)],
  ['parameter_value', (request) => formPairs(request.query, 1)],
  ['protocol', (request) => [request.protocol]],
  ['request_body', (request) => [request.body]],
  ['request_size', (request) => [String(requestSize(request))]],
  [
    'request_target',
    (request) => [`${request.host}${request.path}${request.query === '' ? '' : `?${request.query}`}`],
  ],
]);

/**
 * The values of `target` in `request`: an empty list when the request has none (an absent header, a
 * form field of a body that is not form-encoded), undefined when wafctl does not know the target's
 * values (a target from `settings.extra_targets`, or an unknown name).
 */
export function targetValues(request: TestRequest, target: string): readonly string[] | undefined {
  const basic = BASIC.get(target);
  if (basic !== undefined) return basic(request);
  if (target.startsWith(FORM_PREFIX) && target.length > FORM_PREFIX.length) {
    if (!isFormEncoded(request)) return [];
    return new URLSearchParams(request.body).getAll(target.slice(FORM_PREFIX.length));
  }
  if (target.startsWith(HEADER_PREFIX) && target.length > HEADER_PREFIX.length) {
    return headerValues(request, target.slice(HEADER_PREFIX.length));
  }
  return undefined;
}

/** Whether wafctl knows the values of `target` (the vendor's catalog, not the extensions). */
export const hasKnownValues = (target: string): boolean =>
  BASIC.has(target) ||
  COMPOSED_TARGETS.some(({ prefix }) => target.startsWith(prefix) && target.length > prefix.length);

/** One request's target values, each computed once however many conditions read it. */
export class RequestValues {
  /** null: wafctl does not know the target's values. */
  private readonly cache = new Map<string, readonly string[] | null>();

  constructor(readonly request: TestRequest) {}

  of(target: string): readonly string[] | undefined {
    let values = this.cache.get(target);
    if (values === undefined) {
      values = targetValues(this.request, target) ?? null;
      this.cache.set(target, values);
    }
    return values ?? undefined;
  }
}
