/**
 * The values of each target (docs/rule-tests.md, "How wafctl evaluates a request", the targets).
 * One row per target and per case the vendor's one-line description leaves open.
 */
import { describe, expect, it } from 'vitest';
import { isFormEncoded, requestSize, targetValues } from '../../../src/core/rules/request-values.js';
import type { TestRequest } from '../../../src/core/rules/types.js';
import { request } from './builders.js';

const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };

const rows: [string, string, Partial<TestRequest>, readonly string[] | undefined][] = [
  ['method: the method as written', 'method', { method: 'POST' }, ['POST']],
  ['path: without the query, not percent-decoded', 'path', { path: '/a%20b', query: 'x=1' }, ['/a%20b']],
  ['query: the raw query', 'query', { query: 'a=1&b=%41+c' }, ['a=1&b=%41+c']],
  ['query: empty when there is none (one value, "")', 'query', {}, ['']],
  [
    'parameter_key: every key, form-decoded, repeats kept',
    'parameter_key',
    { query: 'a=1&b%5B%5D=x+y&a=2' },
    ['a', 'b[]', 'a'],
  ],
  [
    'parameter_value: every value, form-decoded (+ is a space)',
    'parameter_value',
    { query: 'a=1&b=x+y&a=%41' },
    ['1', 'x y', 'A'],
  ],
  ['parameter_value: a malformed escape is kept as written', 'parameter_value', { query: 'a=%zz' }, ['%zz']],
  ['parameter_key: none without a query', 'parameter_key', {}, []],
  ['protocol', 'protocol', { protocol: 'HTTP/2' }, ['HTTP/2']],
  ['request_body: the raw body', 'request_body', { body: 'a=%41' }, ['a=%41']],
  [
    'request_target: host, path and ?query, no scheme',
    'request_target',
    { path: '/p', query: 'q=1' },
    ['shop.example.com/p?q=1'],
  ],
  ['request_target: no ? without a query', 'request_target', { path: '/p' }, ['shop.example.com/p']],
  [
    'request:<name>: the header, its name ignoring case',
    'request:user-agent',
    { headers: { 'User-Agent': 'curl/8.4' } },
    ['curl/8.4'],
  ],
  [
    'request:<name>: the name in the target ignoring case too',
    'request:USER-AGENT',
    { headers: { 'user-agent': 'curl/8.4' } },
    ['curl/8.4'],
  ],
  [
    'request:<name>: every header of that name',
    'request:x-a',
    { headers: { 'X-A': '1', 'x-a': '2' } },
    ['1', '2'],
  ],
  ['request:<name>: an absent header has no value', 'request:x-api-key', {}, []],
  ['request:host: the request host when no Host header is set', 'request:host', {}, ['shop.example.com']],
  ['request:host: the Host header when set', 'request:host', { headers: { HOST: 'other' } }, ['other']],
  [
    'form field: its values in a form-encoded body',
    'request_body:x-www-form-urlencoded:password',
    { headers: FORM, body: 'password=a%27+or+1%3D1&x=1' },
    ["a' or 1=1"],
  ],
  [
    'form field: Content-Type compared ignoring case and parameters',
    'request_body:x-www-form-urlencoded:p',
    { headers: { 'content-type': 'Application/X-WWW-Form-Urlencoded; charset=utf-8' }, body: 'p=1&p=2' },
    ['1', '2'],
  ],
  [
    'form field: the field name is case-sensitive',
    'request_body:x-www-form-urlencoded:P',
    { headers: FORM, body: 'p=1' },
    [],
  ],
  [
    'form field: no value when the body is not form-encoded',
    'request_body:x-www-form-urlencoded:p',
    { headers: { 'Content-Type': 'application/json' }, body: 'p=1' },
    [],
  ],
  [
    'form field: no value without a Content-Type',
    'request_body:x-www-form-urlencoded:p',
    { body: 'p=1' },
    [],
  ],
  ['a target from settings.extra_targets: values unknown', 'request_cookie:session', {}, undefined],
  ['an unknown target: values unknown', 'pth', {}, undefined],
];

describe('the values of each target', () => {
  it.each(rows)('%s', (_what, target, fields, values) => {
    expect(targetValues(request(fields), target)).toEqual(values);
  });
});

describe('request_size: UTF-8 bytes of the request as HTTP/1.1 sends it', () => {
  const sizes: [string, Partial<TestRequest>, string][] = [
    [
      'request line, a Host line from the host, blank line',
      {},
      'GET / HTTP/1.1\r\nHost: shop.example.com\r\n\r\n',
    ],
    [
      'the query in the request line, headers as written, a multi-byte body',
      { method: 'POST', path: '/p', query: 'q=1', headers: { Host: 'h', 'X-A': 'é' }, body: 'né' },
      'POST /p?q=1 HTTP/1.1\r\nHost: h\r\nX-A: é\r\n\r\nné',
    ],
  ];
  it.each(sizes)('%s', (_what, fields, wire) => {
    const bytes = Buffer.byteLength(wire, 'utf8');
    expect(requestSize(request(fields))).toBe(bytes);
    expect(targetValues(request(fields), 'request_size')).toEqual([String(bytes)]);
  });
});

describe('isFormEncoded', () => {
  it('reads the first Content-Type header only', () => {
    expect(isFormEncoded(request({ headers: FORM }))).toBe(true);
    expect(isFormEncoded(request({ headers: { 'content-type': 'text/plain', ...FORM } }))).toBe(false);
  });
});
