/**
 * The rule-test report's renderers (src/plan/render/tests.ts): text (one line per case, a failure's
 * reason and closest rule under it, the summary last), JUnit XML (well-formed whatever the names
 * hold, failures and errors counted per suite and in all), and several environments' forms.
 */
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { CaseResult } from '../../../src/core/rules/evaluate.js';
import {
  type LocatedResult,
  type TestReportJson,
  testReportDocument,
  testReportEnvironmentsSchema,
} from '../../../src/core/test-document.js';
import { renderJunitTests, renderTests, renderTextTests, xmlEscape } from '../../../src/plan/render/tests.js';
import { parseXml, type XmlElement } from '../../helpers/xml.js';

const at = (line: number) => ({ file: 'config/tests.yaml', line, col: 5 });

const PASS: CaseResult = {
  name: 'admin panel blocked',
  status: 'pass',
  expected: { action: 'block' },
  actual: { action: 'block', rule: 'shop.example.com/Block admin', firewall: 'waf-eu-1' },
  reason: 'block by shop.example.com/Block admin (waf-eu-1)',
};

const FAIL: CaseResult = {
  name: 'api logged',
  status: 'fail',
  expected: { action: 'log', rule: 'shop.example.com/Log api' },
  actual: { action: 'none' },
  reason: 'expected log, got none: no rule applies',
  closest: {
    rule: 'shop.example.com/Log api',
    condition: 1,
    why: 'conditions[1]: no value of method equals "POST" (method is "GET")',
  },
};

const ERROR: CaseResult = {
  name: 'cookie read',
  status: 'error',
  expected: { action: 'block' },
  reason: 'cannot evaluate target request_cookie:session: wafctl cannot read it from a test request',
};

function report(results: readonly CaseResult[], source: 'configuration' | 'live' = 'configuration') {
  const located: LocatedResult[] = results.map((result, i) => ({ result, at: at(3 + 4 * i) }));
  return testReportDocument(located, { source, environment: undefined, rules: 7 });
}

const children = (element: XmlElement, name: string) => element.children.filter((c) => c.name === name);

describe('renderTextTests', () => {
  it('a line per case; a failure and an error say where, why and the closest rule; the summary last', () => {
    expect(renderTextTests(report([PASS, FAIL, ERROR]), { color: false })).toBe(
      [
        '✓ admin panel blocked: block by shop.example.com/Block admin (waf-eu-1)',
        '✗ api logged (config/tests.yaml:7:5)',
        '    expected log, got none: no rule applies',
        '    closest rule: shop.example.com/Log api, conditions[1]: no value of method equals "POST" (method is "GET")',
        '! cookie read (config/tests.yaml:11:5)',
        '    error: cannot evaluate target request_cookie:session: wafctl cannot read it from a test request',
        '',
        "1 passed, 1 failed, 1 error (3 cases against the configuration's 7 application rules).",
        '',
      ].join('\n'),
    );
  });

  it("names the live firewall's rules, and a closest rule's condition when the reason does not", () => {
    const closest = { rule: 'r/x', condition: 2, why: 'path is "/"' };
    const text = renderTextTests(report([{ ...FAIL, closest }], 'live'), { color: false });
    expect(text).toContain('    closest rule: r/x, conditions[2]: path is "/"\n');
    expect(text).toMatch(
      /\n0 passed, 1 failed \(1 case against the live firewall's 7 application rules\)\.\n$/,
    );
  });

  it('a closest rule none of whose conditions failed (the evaluator says -1): null in JSON, no condition in text', () => {
    const disabled = { ...FAIL, closest: { rule: 'r/off', condition: -1, why: 'disabled' } };
    const document = report([disabled]);
    expect(document.cases[0]?.closest).toEqual({ rule: 'r/off', condition: null, why: 'disabled' });
    expect(renderTextTests(document, { color: false })).toContain('    closest rule: r/off, disabled\n');
  });

  it('colours the symbols only when asked, and keeps every case on its own line whatever its name holds', () => {
    const forged = { ...FAIL, name: 'x\n✓ forged\u001b[2J' };
    const coloured = renderTextTests(report([PASS, forged]), { color: true });
    expect(coloured).not.toBe(stripVTControlCharacters(coloured));
    expect(stripVTControlCharacters(coloured)).toBe(
      renderTextTests(report([PASS, forged]), { color: false }),
    );
    const plain = renderTextTests(report([forged]), { color: false });
    expect(plain.split('\n')[0]).toBe('✗ x\\n✓ forged\\u001b[2J (config/tests.yaml:3:5)');
  });
});

describe('the XML checker these tests read JUnit with', () => {
  it.each([
    ['an unescaped &', '<a>x & y</a>'],
    ['an unknown entity', '<a>&nbsp;</a>'],
    ['a control character', '<a>\u0001</a>'],
    ['a tag closed out of order', '<a><b></a></b>'],
    ['a tag never closed', '<a><b/>'],
    ['a duplicate attribute', '<a x="1" x="2"/>'],
    ['a < in an attribute', '<a x="<"/>'],
    ['two roots', '<a/><b/>'],
  ])('refuses %s', (_what, xml) => {
    expect(() => parseXml(xml)).toThrow();
  });

  it('reads elements, attributes and decoded text', () => {
    expect(
      parseXml('<?xml version="1.0" encoding="UTF-8"?>\n<a x="&lt;&#x41;"><b>1 &amp; 2</b></a>\n'),
    ).toEqual({
      name: 'a',
      attributes: { x: '<A' },
      text: '',
      children: [{ name: 'b', attributes: {}, children: [], text: '1 & 2' }],
    });
  });
});

describe('renderJunitTests', () => {
  it('is well-formed JUnit: a suite with its counts, a failure and an error with their messages', () => {
    const xml = renderJunitTests([{ report: report([PASS, FAIL, ERROR]) }]);
    const root = parseXml(xml);
    expect(root.name).toBe('testsuites');
    expect(root.attributes).toMatchObject({ tests: '3', failures: '1', errors: '1' });
    const [suite] = children(root, 'testsuite');
    expect(suite?.attributes).toEqual({
      name: 'wafctl test',
      tests: '3',
      failures: '1',
      errors: '1',
      skipped: '0',
    });
    const cases = children(suite as XmlElement, 'testcase');
    expect(
      cases.map((c) => [c.attributes.name, c.attributes.classname, c.children.map((e) => e.name)]),
    ).toEqual([
      ['admin panel blocked', 'config/tests.yaml', []],
      ['api logged', 'config/tests.yaml', ['failure']],
      ['cookie read', 'config/tests.yaml', ['error']],
    ]);
    const [failure] = cases[1]?.children ?? [];
    expect(failure?.attributes.message).toBe(FAIL.reason);
    expect(failure?.text).toBe(
      [
        'expected: log by shop.example.com/Log api',
        'actual: none',
        'closest rule: shop.example.com/Log api, conditions[1]: no value of method equals "POST" (method is "GET")',
        'declared at config/tests.yaml:7:5',
      ].join('\n'),
    );
    expect(cases[2]?.children[0]?.attributes.message).toBe(ERROR.reason);
  });

  it.each([
    ['markup', '<a href="x">&amp;</a> \'q\' ]]>'],
    ['control characters', 'bell\u0007 nul\u0000 esc\u001b del\u007f'],
    ['line breaks', 'one\ntwo\rthree\u2028four'],
    ['a lone surrogate and non-characters', 'half \ud800 and \uffff \ufffe end'],
    ['astral characters', 'emoji 🛡️ and 𝔘'],
  ])('stays well-formed with %s in a name, a reason and a file', (_what, data) => {
    const odd: CaseResult = {
      ...FAIL,
      name: data,
      reason: data,
      closest: { rule: data, condition: 0, why: data },
    };
    const located = [{ result: odd, at: { file: data, line: 1, col: 1 } }];
    const document = testReportDocument(located, {
      source: 'configuration',
      environment: undefined,
      rules: 1,
    });
    const xml = renderJunitTests([{ name: data, report: document }]);
    const root = parseXml(xml);
    const testcase = root.children[0]?.children.find((c) => c.name === 'testcase');
    // Attributes are one line: breaks and controls show as escapes, as in the text report.
    const controls = [...(testcase?.attributes.name ?? '')].filter((c) => (c.codePointAt(0) ?? 0) < 0x20);
    expect(controls).toEqual([]);
    expect(testcase?.children[0]?.attributes.message).toBe(testcase?.attributes.name);
    expect(root.attributes.failures).toBe('1');
  });

  it('xmlEscape replaces what XML cannot hold and escapes markup', () => {
    expect(xmlEscape('a<b>&"\'\u0001\ud800\uffff\t\n')).toBe(
      'a&lt;b&gt;&amp;&quot;&apos;\ufffd\ufffd\ufffd\t\n',
    );
  });

  it('several environments: a suite each, totals over all, and a failed one as an error of its own', () => {
    const xml = renderJunitTests([
      { name: 'staging', report: report([PASS, FAIL]) },
      { name: 'production', error: 'environment production: PROD_URL is not set' },
    ]);
    const root = parseXml(xml);
    expect(root.attributes).toMatchObject({ tests: '3', failures: '1', errors: '1' });
    expect(children(root, 'testsuite').map((s) => [s.attributes.name, s.attributes.errors])).toEqual([
      ['staging', '0'],
      ['production', '1'],
    ]);
    const failed = children(root, 'testsuite')[1]?.children[0];
    expect(failed?.children[0]?.attributes.message).toBe('environment production: PROD_URL is not set');
  });
});

describe('renderTests', () => {
  const staging: TestReportJson = { ...report([PASS]), environment: 'staging' };

  it('one run: its JSON document, or its text under the environment it ran for', () => {
    expect(JSON.parse(renderTests([{ report: staging }], 'json', { color: false }))).toEqual(staging);
    const text = renderTests([{ name: 'staging', report: staging }], 'text', { color: false });
    expect(text.split('\n').slice(0, 2)).toEqual([
      'Environment: staging',
      '✓ admin panel blocked: block by shop.example.com/Block admin (waf-eu-1)',
    ]);
  });

  it('several runs: one versioned JSON document with null for a failed one, and text sections', () => {
    const runs = [
      { name: 'staging', report: staging },
      { name: 'production', error: 'failed' },
    ];
    const json = JSON.parse(renderTests(runs, 'json', { color: false }));
    expect(testReportEnvironmentsSchema.parse(json)).toEqual({
      format_version: 1,
      environments: { staging, production: null },
    });
    const text = renderTests(runs, 'text', { color: false });
    expect(text).toContain('== Environment: staging ==\n✓ admin panel blocked');
    expect(text).toContain('== Environment: production ==\nNo test report: this environment failed');
  });
});
