/**
 * `tests:`, the rule tests a configuration declares (contract: "Rule tests"; semantics in
 * docs/rule-tests.md): the schema of one case, every default filled in, and the bounds on what an
 * untrusted file may ask an evaluation to do. Names are unique across the configuration
 * (rule-tests.ts); a later path of an environment replaces an earlier path's case of the same name
 * (overlay.ts).
 */
import * as z from 'zod';
import type { RuleTestCase } from '../core/rules/types.js';
import { nonEmptyString } from '../kinds/kind.js';

/** The top-level key. */
export const TESTS = 'tests';

/** Cases in a configuration (all files together), and so in one document. */
export const MAX_TESTS = 10_000;
/** Headers of one request. */
export const MAX_HEADERS = 200;
/** Characters of a path, a query, a body or a header value: what `match` expressions run over. */
export const MAX_TEXT = 1_048_576;
/** Characters of a name: a case's, a host, a method, a protocol, a header's. */
export const MAX_NAME = 1024;

/** A test case as loaded, with where it is declared (`wafctl test` reports each case at its place). */
export type LocatedTestCase = RuleTestCase & { at: { file: string; line: number; col: number } };

const quoted = (input: unknown) => JSON.stringify(String(input));

/** An HTTP token (RFC 9110): what a method or a header name is made of. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Characters a host name cannot hold, as for `rq_host`: `/`, whitespace and control characters. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point.
const HOST = /^[^/\s\x00-\x1f\x7f-\x9f]+$/u;

/** Line breaks and NUL: no HTTP header value carries them. */
const HEADER_VALUE = /^[^\r\n\0]*$/;

/** Text with no whitespace or control character (a protocol). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point.
const WORD = /^[^\s\x00-\x1f\x7f-\x9f]+$/u;

const method = z
  .string()
  .max(MAX_NAME)
  .regex(TOKEN, {
    error: (issue) => `expected an HTTP method such as GET or POST, got ${quoted(issue.input)}`,
  })
  .default('GET')
  .meta({ description: 'The request method, as sent (case-sensitive). Default GET.' });

const host = nonEmptyString
  .max(MAX_NAME)
  .regex(HOST, {
    error: (issue) =>
      `expected a host name (optionally with a port): no '/', whitespace or control characters, got ${quoted(issue.input)}`,
  })
  .meta({ description: 'The Host header: matched against the rq_host of each rule, ignoring case.' });

/** Why a request path is refused, in one message. */
function pathMessage(path: string): string {
  if (!path.startsWith('/')) return `a path starts with "/", got ${quoted(path)}`;
  return `a path holds no "?": write the query string in query (${quoted(path.slice(path.indexOf('?') + 1))}), got ${quoted(path)}`;
}

const path = z
  .string()
  .max(MAX_TEXT)
  .regex(/^\/[^?]*$/, { error: (issue) => pathMessage(String(issue.input)) })
  .default('/')
  .meta({ description: 'The path, without the query string. Default /.' });

const query = z
  .string()
  .max(MAX_TEXT)
  .regex(/^(?!\?)/, {
    error: (issue) => `the query is written without its leading "?", got ${quoted(issue.input)}`,
  })
  .default('')
  .meta({ description: 'The raw query string, without "?" (`a=1&b=2`). Default "".' });

/**
 * Headers by name: at most MAX_HEADERS, each name an HTTP token, and no name twice ignoring case
 * (targets read a header ignoring the case of its name, so two spellings would be ambiguous).
 */
const headerNames = z.check<Record<string, string>>((payload) => {
  const names = Object.keys(payload.value);
  const issue = (at: PropertyKey[], message: string) =>
    payload.issues.push({ code: 'custom', path: at, message, input: payload.value, continue: true });
  if (names.length > MAX_HEADERS) issue([], `must have at most ${MAX_HEADERS} headers, got ${names.length}`);
  const seen = new Map<string, string>();
  for (const name of names) {
    if (!TOKEN.test(name)) issue([name], `expected a header name (an HTTP token), got ${quoted(name)}`);
    const earlier = seen.get(name.toLowerCase());
    if (earlier !== undefined) {
      issue(
        [name],
        `header ${quoted(name)} is also given as ${quoted(earlier)}: names are matched ignoring case`,
      );
    }
    seen.set(name.toLowerCase(), name);
  }
});

const headerValue = z
  .string()
  .max(MAX_TEXT)
  .regex(HEADER_VALUE, { error: 'a header value holds no line break or NUL' });

const headers = z
  .record(z.string().max(MAX_NAME), headerValue)
  .check(headerNames)
  .default({})
  .meta({
    description: `Header name -> value (names matched ignoring case), at most ${MAX_HEADERS}. Default {}.`,
    maxProperties: MAX_HEADERS,
  });

const request = z
  .strictObject({
    method,
    host,
    path,
    query,
    headers,
    body: z.string().max(MAX_TEXT).default('').meta({ description: 'The raw body. Default "".' }),
    protocol: nonEmptyString
      .max(MAX_NAME)
      .regex(WORD, { error: (issue) => `expected a protocol such as HTTP/1.1, got ${quoted(issue.input)}` })
      .default('HTTP/1.1')
      .meta({ description: 'Default HTTP/1.1.' }),
  })
  .meta({ description: 'The request the firewall would see.' });

/** A rule's natural key as plans print it: `RQ_HOST/DESCRIPTION` (rq_host holds no `/`). */
const ruleKey = z
  .string()
  .regex(/^[^/]+\/[\s\S]+$/, {
    error: (issue) =>
      `expected a rule key RQ_HOST/DESCRIPTION (shop.example.com/Block admin), got ${quoted(issue.input)}`,
  })
  .meta({ description: 'The key of the deciding rule, RQ_HOST/DESCRIPTION, as plans print it.' });

const expectation = z
  .strictObject({
    action: nonEmptyString.meta({
      description:
        'The firewall_action of the deciding rule (on any firewall), or `none` when no rule applies.',
    }),
    rule: ruleKey.optional(),
    firewall: nonEmptyString.optional().meta({
      description: 'The firewall whose action is expected, when the deciding rule has several.',
    }),
  })
  .meta({ description: 'What must happen.' });

/** One test case. */
export const testCaseSchema = z
  .strictObject({
    name: nonEmptyString.max(MAX_NAME).meta({ description: 'Unique across the configuration.' }),
    request,
    expect: expectation,
  })
  .meta({ description: 'A request, and what the application rules must do with it (`wafctl test`).' });

/** `tests:`: test cases, concatenated across files. */
export const testsSchema = z
  .array(testCaseSchema)
  .max(MAX_TESTS)
  .meta({
    description: `Rule tests, run by \`wafctl test\` and shown by \`plan\` when an outcome changes; at most ${MAX_TESTS} in a configuration. See docs/rule-tests.md.`,
  });

/** A case as the schema outputs it: a RuleTestCase. */
export type TestCaseOutput = z.output<typeof testCaseSchema>;
