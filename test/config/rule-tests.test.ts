/**
 * Issue 43: `tests:`, a top-level key of any configuration file (contract: "Rule tests"). Each case is
 * strict, its defaults filled in, bounded, and placed; names are unique across the files, and a later
 * path of an environment replaces an earlier path's case of the same name.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatProblem } from '../../src/config/problems.js';
import { MAX_HEADERS, MAX_TESTS, MAX_TEXT } from '../../src/config/rule-test-schema.js';
import type { LocatedTestCase } from '../../src/config/rule-tests.js';
import {
  type SourceFile,
  type ValidationResult,
  validateLayers,
  validateSources,
} from '../../src/config/validate-sources.js';
import { runCli } from '../helpers/cli.js';

function sourcesOf(files: Record<string, string>): SourceFile[] {
  return Object.entries(files).map(([file, text]) => ({ file, text }));
}

function linesOf(result: ValidationResult): string[] {
  return result.ok ? [] : result.problems.map(formatProblem);
}

function problemsOf(files: Record<string, string>): string[] {
  return linesOf(validateSources(sourcesOf(files), { env: {} }));
}

function testsOf(files: Record<string, string>): readonly LocatedTestCase[] {
  const result = validateSources(sourcesOf(files), { env: {} });
  if (!result.ok) throw new Error(linesOf(result).join('\n'));
  return result.config.state.tests;
}

/** `FILE:LINE:COL` of the first occurrence of `token` in `text`. */
function at(file: string, text: string, token: string): string {
  const offset = text.indexOf(token);
  if (offset === -1) throw new Error(`${token} is not in the text`);
  const before = text.slice(0, offset).split('\n');
  return `${file}:${before.length}:${(before.at(-1)?.length ?? 0) + 1}`;
}

/** One case, as YAML lines under `tests:` (two-space indent). */
const testCase = (name: string, request = '{host: shop.example.com}', expectation = '{action: none}') =>
  `  - name: ${name}\n    request: ${request}\n    expect: ${expectation}\n`;

describe('a test case as loaded', () => {
  it('fills every default of the contract, and says where the case is', () => {
    const text = `# tests\ntests:\n${testCase('bare')}`;
    expect(testsOf({ 'tests.yaml': text })).toEqual([
      {
        name: 'bare',
        request: {
          method: 'GET',
          host: 'shop.example.com',
          path: '/',
          query: '',
          headers: {},
          body: '',
          protocol: 'HTTP/1.1',
        },
        expect: { action: 'none' },
        at: { file: 'tests.yaml', line: 3, col: 5 },
      },
    ]);
  });

  it('keeps every field given, in file order across files', () => {
    const full = `tests:
  - name: login spraying
    request:
      method: POST
      host: shop.example.com
      path: /account/login
      query: "next=%2F"
      headers: {Content-Type: application/x-www-form-urlencoded, X-Empty: ""}
      body: password=admin'--
      protocol: HTTP/2
    expect:
      action: log
      rule: shop.example.com/Log password spraying
      firewall: waf-eu-1
`;
    const tests = testsOf({ 'a.yaml': full, 'b.yaml': `tests:\n${testCase('second')}` });
    expect(tests.map((test) => [test.name, test.at])).toEqual([
      ['login spraying', { file: 'a.yaml', line: 2, col: 5 }],
      ['second', { file: 'b.yaml', line: 2, col: 5 }],
    ]);
    expect(tests[0]).toMatchObject({
      request: {
        method: 'POST',
        host: 'shop.example.com',
        path: '/account/login',
        query: 'next=%2F',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Empty': '' },
        body: "password=admin'--",
        protocol: 'HTTP/2',
      },
      expect: { action: 'log', rule: 'shop.example.com/Log password spraying', firewall: 'waf-eu-1' },
    });
  });

  it('is loaded beside the objects of the same file', () => {
    const text = `groups: [{name: soc}]\ntests:\n${testCase('x')}`;
    const result = validateSources(sourcesOf({ 'a.yaml': text }), { env: {} });
    expect(result.ok && [result.config.state.groups.length, result.config.state.tests.length]).toEqual([
      1, 1,
    ]);
  });
});

describe('a test case refused, at file:line:col', () => {
  const cases: { name: string; text: string; token: string; line: string }[] = [
    {
      name: 'an unknown field of the case',
      text: `tests:\n${testCase('a')}    descripton: x\n`,
      token: 'descripton',
      line: 'tests[0]: unknown field "descripton"',
    },
    {
      name: 'an unknown field of the request',
      text: `tests:\n${testCase('a', '{host: h, hedaers: {}}')}`,
      token: 'hedaers',
      line: 'tests[0].request: unknown field "hedaers" (did you mean "headers"?)',
    },
    {
      name: 'an unknown field of the expectation',
      text: `tests:\n${testCase('a', '{host: h}', '{action: block, rul: h/d}')}`,
      token: 'rul:',
      line: 'tests[0].expect: unknown field "rul" (did you mean "rule"?)',
    },
    {
      name: 'no host',
      text: `tests:\n${testCase('a', '{path: /}')}`,
      token: '{path',
      line: 'tests[0].request: required field "host" is missing',
    },
    {
      name: 'no action',
      text: `tests:\n${testCase('a', '{host: h}', '{rule: h/d}')}`,
      token: '{rule',
      line: 'tests[0].expect: required field "action" is missing',
    },
    {
      name: 'an empty name',
      text: `tests:\n${testCase('""')}`,
      token: '""',
      line: 'tests[0].name: must not be empty',
    },
    {
      name: 'a path holding the query',
      text: `tests:\n${testCase('a', '{host: h, path: "/search?q=1"}')}`,
      token: '"/search',
      line: 'tests[0].request.path: a path holds no "?": write the query string in query ("q=1"), got "/search?q=1"',
    },
    {
      name: 'a path without its /',
      text: `tests:\n${testCase('a', '{host: h, path: admin}')}`,
      token: 'admin',
      line: 'tests[0].request.path: a path starts with "/", got "admin"',
    },
    {
      name: 'a query with its ?',
      text: `tests:\n${testCase('a', '{host: h, query: "?q=1"}')}`,
      token: '"?q',
      line: 'tests[0].request.query: the query is written without its leading "?", got "?q=1"',
    },
    {
      name: 'a host with a path',
      text: `tests:\n${testCase('a', '{host: shop.example.com/admin}')}`,
      token: 'shop',
      line: 'tests[0].request.host: expected a host name (optionally with a port): no \'/\', whitespace or control characters, got "shop.example.com/admin"',
    },
    {
      name: 'a method that is no token',
      text: `tests:\n${testCase('a', '{host: h, method: "GET /"}')}`,
      token: '"GET',
      line: 'tests[0].request.method: expected an HTTP method such as GET or POST, got "GET /"',
    },
    {
      name: 'a header value that is a number',
      text: `tests:\n${testCase('a', '{host: h, headers: {Content-Length: 12}}')}`,
      token: '12',
      line: 'tests[0].request.headers.Content-Length: expected string, got number 12',
    },
    {
      name: 'a header value with a line break',
      text: `tests:\n${testCase('a', '{host: h, headers: {X-A: "a\\nb"}}')}`,
      token: '"a',
      line: 'tests[0].request.headers.X-A: a header value holds no line break or NUL',
    },
    {
      name: 'a header name that is no token',
      text: `tests:\n${testCase('a', '{host: h, headers: {"User Agent": x}}')}`,
      token: 'x}',
      line: 'tests[0].request.headers["User Agent"]: expected a header name (an HTTP token), got "User Agent"',
    },
    {
      name: 'a header given twice in two spellings',
      text: `tests:\n${testCase('a', '{host: h, headers: {User-Agent: x, user-agent: y}}')}`,
      token: 'y}',
      line: 'tests[0].request.headers.user-agent: header "user-agent" is also given as "User-Agent": names are matched ignoring case',
    },
    {
      name: 'a rule that is no rule key',
      text: `tests:\n${testCase('a', '{host: h}', '{action: block, rule: Block admin}')}`,
      token: 'Block',
      line: 'tests[0].expect.rule: expected a rule key RQ_HOST/DESCRIPTION (shop.example.com/Block admin), got "Block admin"',
    },
    {
      name: 'tests that are no list',
      text: 'tests: {name: a}\n',
      token: '{name',
      line: 'tests: expected a list, got a mapping',
    },
  ];

  it.each(cases)('$name', ({ text, token, line }) => {
    expect(problemsOf({ 't.yaml': text })).toEqual([`${at('t.yaml', text, token)} ${line}`]);
  });

  it('a header named __proto__ (which a record would drop silently), in either reader', () => {
    const text = `tests:\n${testCase('a', '{host: h, headers: {__proto__: x, constructor: y}}')}`;
    const line = `${at('t.yaml', text, 'x,')} tests[0].request.headers.__proto__: a header cannot be named "__proto__": wafctl never sets it on an object`;
    expect(problemsOf({ 't.yaml': text })).toEqual([line]);
    // `${` sends the file to yaml's reader: the same problem.
    expect(problemsOf({ 't.yaml': `${text}# $\{\n` })).toEqual([line]);
    const plain = testsOf({ 't.yaml': text.replace('__proto__: x, ', '') });
    expect(plain[0]?.request.headers).toEqual({ constructor: 'y' });
  });

  it('a required field misspelt: missing, and unknown with the suggestion', () => {
    const text = `tests:\n  - name: a\n    requst: {host: h}\n    expect: {action: none}\n`;
    expect(problemsOf({ 't.yaml': text })).toEqual([
      't.yaml:2:5 tests[0]: required field "request" is missing',
      't.yaml:3:5 tests[0]: unknown field "requst" (did you mean "request"?)',
    ]);
  });

  it('a case with problems does not hide the others from the checks across them', () => {
    const text = `tests:\n${testCase('a', '{host: h, path: x}')}${testCase('b')}${testCase('b')}`;
    expect(problemsOf({ 't.yaml': text })).toEqual([
      `${at('t.yaml', text, 'x}')} tests[0].request.path: a path starts with "/", got "x"`,
      't.yaml:8:5 tests[2]: duplicate test "b": also declared at t.yaml:5:5',
    ]);
  });
});

describe('test names', () => {
  it('a name declared twice across files is an error naming both places', () => {
    const a = `tests:\n${testCase('admin blocked')}`;
    const b = `# more\ntests:\n${testCase('other')}${testCase('admin blocked')}`;
    expect(problemsOf({ 'a.yaml': a, 'b.yaml': b })).toEqual([
      'b.yaml:6:5 tests[1]: duplicate test "admin blocked": also declared at a.yaml:2:5',
    ]);
  });

  it('names differing in case are two tests', () => {
    expect(testsOf({ 'a.yaml': `tests:\n${testCase('Admin')}${testCase('admin')}` })).toHaveLength(2);
  });
});

describe('bounds on what a file may ask for', () => {
  it(`at most ${MAX_HEADERS} headers`, () => {
    const headers = Array.from({ length: MAX_HEADERS + 1 }, (_, i) => `X-H${i}: v`).join(', ');
    const text = `tests:\n${testCase('a', `{host: h, headers: {${headers}}}`)}`;
    expect(problemsOf({ 't.yaml': text })).toEqual([
      `${at('t.yaml', text, '{X-H0')} tests[0].request.headers: must have at most ${MAX_HEADERS} headers, got ${MAX_HEADERS + 1}`,
    ]);
    const fewer = `tests:\n${testCase('a', `{host: h, headers: {${headers.replace(/, X-H200: v$/, '')}}}`)}`;
    expect(problemsOf({ 't.yaml': fewer })).toEqual([]);
  });

  it(`a body of at most ${MAX_TEXT} characters`, () => {
    const text = (length: number) => `tests:\n${testCase('a', `{host: h, body: ${'b'.repeat(length)}}`)}`;
    expect(problemsOf({ 't.yaml': text(MAX_TEXT) })).toEqual([]);
    expect(problemsOf({ 't.yaml': text(MAX_TEXT + 1) })).toEqual([
      `t.yaml:3:30 tests[0].request.body: must have at most ${MAX_TEXT} characters`,
    ]);
  });

  it(`at most ${MAX_TESTS} tests in a file, and in the configuration`, () => {
    const many = (from: number, count: number) =>
      `tests:\n${Array.from({ length: count }, (_, i) => testCase(`t${from + i}`)).join('')}`;
    expect(problemsOf({ 'a.yaml': many(0, MAX_TESTS + 1) })).toEqual([
      `a.yaml:2:3 tests: must have at most ${MAX_TESTS} items`,
    ]);
    const half = MAX_TESTS / 2;
    expect(problemsOf({ 'a.yaml': many(0, half), 'b.yaml': many(half, half) })).toEqual([]);
    expect(problemsOf({ 'a.yaml': many(0, half), 'b.yaml': many(half, half + 1) })).toEqual([
      `b.yaml:${2 + 3 * half}:5 tests[${half}]: more than ${MAX_TESTS} tests: a configuration holds at most ${MAX_TESTS} (all files together)`,
    ]);
  });
});

describe('tests in the paths of an environment', () => {
  const layers = (base: string, prod: string) =>
    validateLayers(
      [
        { path: 'base', sources: [{ file: 'base/tests.yaml', text: base }] },
        { path: 'prod', sources: [{ file: 'prod/tests.yaml', text: prod }] },
      ],
      { env: {} },
    );

  it("a later path's case of a name replaces the earlier one whole; the others are concatenated", () => {
    const base = `tests:\n${testCase('admin', '{host: shop.example.com, path: /admin}', '{action: block}')}${testCase('home')}`;
    const prod = `tests:\n${testCase('admin', '{host: shop.example.com}', '{action: log}')}${testCase('prod only')}`;
    const result = layers(base, prod);
    if (!result.ok) throw new Error(linesOf(result).join('\n'));
    expect(
      result.config.state.tests.map((test) => [test.name, test.at.file, test.request.path, test.expect]),
    ).toEqual([
      ['home', 'base/tests.yaml', '/', { action: 'none' }],
      ['admin', 'prod/tests.yaml', '/', { action: 'log' }],
      ['prod only', 'prod/tests.yaml', '/', { action: 'none' }],
    ]);
  });

  it('within one path, a name declared twice is still a duplicate', () => {
    const prod = `tests:\n${testCase('x')}${testCase('x')}`;
    expect(linesOf(layers(`tests:\n${testCase('y')}`, prod))).toEqual([
      'prod/tests.yaml:5:5 tests[1]: duplicate test "x": also declared at prod/tests.yaml:2:5',
    ]);
  });

  it('a replaced case is still validated where it is written', () => {
    const base = `tests:\n${testCase('x', '{host: h, path: nope}')}`;
    expect(linesOf(layers(base, `tests:\n${testCase('x')}`))).toEqual([
      `${at('base/tests.yaml', base, 'nope')} tests[0].request.path: a path starts with "/", got "nope"`,
    ]);
  });
});

describe('wafctl validate (the CLI) on tests and rule conditions', () => {
  it('prints each problem at FILE:LINE:COL, exit 1', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wafctl-rule-tests-'));
    try {
      const rules = `application_rules:
  - rq_host: shop.example.com
    description: Block admin
    priority: high
    conditions:
      - operator: match
        expressions: ["^/admin", "(?<=x)y"]
        targets: [pth]
    actions: [{firewall_action: block, firewall_name: waf-eu-1}]
`;
      const tests = `tests:\n  - name: admin\n    request: {host: shop.example.com, path: "/admin?x=1"}\n    expect: {action: block}\n`;
      await writeFile(join(dir, 'rules.yaml'), rules);
      await writeFile(join(dir, 'tests.yaml'), tests);
      const result = await runCli(['validate', '.'], { cwd: dir, env: {} });
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr.split('\n').filter((line) => /^\S+\.yaml:/.test(line))).toEqual([
        'rules.yaml:7:34 application_rules[0].conditions[0].expressions[1]: the regular expression does not compile: invalid named capture: `(?<=x)y` (RE2 has no lookahead or lookbehind)',
        'rules.yaml:8:19 application_rules[0].conditions[0].targets[0]: unknown target "pth" (did you mean "path"?)',
        'tests.yaml:3:45 tests[0].request.path: a path holds no "?": write the query string in query ("x=1"), got "/admin?x=1"',
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
