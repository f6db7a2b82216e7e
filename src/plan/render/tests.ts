/**
 * The rule-test report (core/test-document.ts) for people and for CI: text, one line per case (a
 * failure with why and the closest rule), and JUnit XML, which CI systems show as test results. With
 * several environments, one report each: text sections, one JSON document, one `<testsuite>` each.
 * Every name and message from the configuration or the firewall goes through `printable`, so a case
 * stays one line; XML gets only characters XML 1.0 allows, escaped.
 */
import { styleText } from 'node:util';
import { type TestCaseJson, type TestReportJson, testReportEnvironments } from '../../core/test-document.js';
import { plural, printable } from '../../core/text.js';
import { environmentHeading, textSections } from './environments.js';

export const TEST_FORMATS = ['text', 'json', 'junit'] as const;
export type TestFormat = (typeof TEST_FORMATS)[number];

/** One run of the cases: an environment's (`name`), or the PATHs' (no name); its report, or why it has none. */
export interface TestRun {
  name?: string | undefined;
  report?: TestReportJson | undefined;
  /** The run failed before it had a report (its error is printed on stderr): one line. */
  error?: string | undefined;
}

type Style = Parameters<typeof styleText>[0];
type Paint = (style: Style, text: string) => string;

const SYMBOL: Record<TestCaseJson['status'], [string, Style]> = {
  pass: ['✓', 'green'],
  fail: ['✗', 'red'],
  error: ['!', 'red'],
};

/** `block by RULE (FIREWALL)`, `none`: an outcome on one line, worded as the evaluator's reasons. */
export function outcomeText(outcome: TestCaseJson['expected']): string {
  const by = outcome.rule === undefined ? '' : ` by ${printable(outcome.rule)}`;
  const on = outcome.firewall === undefined ? '' : ` (${printable(outcome.firewall)})`;
  return `${printable(outcome.action)}${by}${on}`;
}

const place = (test: TestCaseJson): string => `${printable(test.file)}:${test.line}:${test.col}`;

/** The closest rule that did not apply, as `RULE, conditions[N]: WHY` (or `RULE, WHY`: no condition failed). */
function closestText({ closest }: TestCaseJson): string | undefined {
  if (closest === undefined) return undefined;
  const condition = closest.condition === null ? undefined : `conditions[${closest.condition}]`;
  // The evaluator's `why` names the condition itself; a `why` that does not is given its name.
  const why =
    condition === undefined || closest.why.startsWith(condition)
      ? closest.why
      : `${condition}: ${closest.why}`;
  return `${printable(closest.rule)}, ${printable(why)}`;
}

/** A case: `✓ NAME: REASON` when it passed; else where it is, why, and the closest rule. */
function caseLines(test: TestCaseJson, paint: Paint): string[] {
  const [symbol, style] = SYMBOL[test.status];
  const head = `${paint(style, symbol)} ${printable(test.name)}`;
  if (test.status === 'pass') return [`${head}: ${printable(test.reason)}`];
  const closest = closestText(test);
  return [
    `${head} (${place(test)})`,
    `    ${test.status === 'error' ? 'error: ' : ''}${printable(test.reason)}`,
    ...(closest === undefined ? [] : [`    closest rule: ${closest}`]),
  ];
}

/** What the cases ran against: `the configuration's 12 application rules`. */
function against(report: TestReportJson): string {
  const whose = report.source === 'live' ? "the live firewall's" : "the configuration's";
  return `${whose} ${plural(report.rules, 'application rule')}`;
}

/** The last line: `3 passed, 1 failed (4 cases against the configuration's 12 application rules).` */
export function summaryLine(report: TestReportJson): string {
  const { passed, failed, errors, total } = report.summary;
  const counts = [`${passed} passed`, `${failed} failed`, ...(errors > 0 ? [plural(errors, 'error')] : [])];
  return `${counts.join(', ')} (${plural(total, 'case')} against ${against(report)}).`;
}

/** One report as text: a line per case (a failure's reasons indented under it), then the summary. */
export function renderTextTests(report: TestReportJson, { color }: { color: boolean }): string {
  // The CLI has already decided (TTY, NO_COLOR, --no-color); styleText must not second-guess it.
  const paint: Paint = (style, text) => (color ? styleText(style, text, { validateStream: false }) : text);
  const lines = report.cases.flatMap((test) => caseLines(test, paint));
  const summary = summaryLine(report);
  lines.push('', report.passed ? summary : paint('bold', summary));
  return `${lines.join('\n')}\n`;
}

/**
 * Characters XML 1.0 does not allow (C0 controls but tab and line ends, lone surrogates, U+FFFE and
 * U+FFFF): replaced, since no escape can write them.
 */
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
const ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};

/** Text for an XML attribute or element: what XML cannot hold replaced, markup escaped. */
export function xmlEscape(text: string): string {
  return text.replace(NOT_XML, '\uFFFD').replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);
}

/** An attribute list: ` name="value"` each, values escaped (and on one line: `printable`). */
const attributes = (pairs: readonly (readonly [string, string | number])[]): string =>
  pairs.map(([name, value]) => ` ${name}="${xmlEscape(printable(String(value)))}"`).join('');

/** The body of a failure or error: what was expected, what happened, the closest rule, where. */
function detailText(test: TestCaseJson): string {
  const closest = closestText(test);
  return [
    `expected: ${outcomeText(test.expected)}`,
    ...(test.actual === undefined ? [] : [`actual: ${outcomeText(test.actual)}`]),
    ...(closest === undefined ? [] : [`closest rule: ${closest}`]),
    `declared at ${place(test)}`,
  ].join('\n');
}

function junitCase(test: TestCaseJson): string {
  const head = `    <testcase${attributes([
    ['name', test.name],
    ['classname', test.file],
    ['file', test.file],
    ['line', test.line],
  ])}`;
  if (test.status === 'pass') return `${head}/>`;
  const element = test.status === 'fail' ? 'failure' : 'error';
  const detail = xmlEscape(detailText(test));
  const message = attributes([
    ['message', test.reason],
    ['type', test.status],
  ]);
  return `${head}>\n      <${element}${message}>${detail}</${element}>\n    </testcase>`;
}

/** The counts of a suite, as JUnit's attributes name them. */
interface SuiteCounts {
  tests: number;
  failures: number;
  errors: number;
}

function junitSuite(run: TestRun): { xml: string; counts: SuiteCounts } {
  const name = run.name ?? 'wafctl test';
  const { report } = run;
  if (report === undefined) {
    // An environment that failed is an error of its own, not a suite that silently passed.
    const message = run.error ?? 'this environment failed (see the job log)';
    const xml = [
      `  <testsuite${attributes([
        ['name', name],
        ['tests', 1],
        ['failures', 0],
        ['errors', 1],
        ['skipped', 0],
      ])}>`,
      `    <testcase${attributes([
        ['name', `environment ${name}`],
        ['classname', name],
      ])}>`,
      `      <error${attributes([
        ['message', message],
        ['type', 'error'],
      ])}/>`,
      '    </testcase>',
      '  </testsuite>',
    ].join('\n');
    return { xml, counts: { tests: 1, failures: 0, errors: 1 } };
  }
  const counts = {
    tests: report.summary.total,
    failures: report.summary.failed,
    errors: report.summary.errors,
  };
  const properties = [
    ['source', report.source],
    ['rules', report.rules],
  ] as const;
  const xml = [
    `  <testsuite${attributes([['name', name], ...Object.entries(counts), ['skipped', 0]])}>`,
    '    <properties>',
    ...properties.map(
      (pair) =>
        `      <property${attributes([
          ['name', pair[0]],
          ['value', pair[1]],
        ])}/>`,
    ),
    '    </properties>',
    ...report.cases.map(junitCase),
    '  </testsuite>',
  ].join('\n');
  return { xml, counts };
}

/** The runs as one JUnit XML document: a `<testsuite>` per run, in the order given. */
export function renderJunitTests(runs: readonly TestRun[]): string {
  const suites = runs.map(junitSuite);
  const total = (field: keyof SuiteCounts) => suites.reduce((n, suite) => n + suite.counts[field], 0);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attributes([
      ['name', 'wafctl test'],
      ['tests', total('tests')],
      ['failures', total('failures')],
      ['errors', total('errors')],
    ])}>`,
    ...suites.map((suite) => suite.xml),
    '</testsuites>',
    '',
  ].join('\n');
}

/**
 * The runs in `format`. One run: its report (text under an `Environment: NAME` line when it has a
 * name); several: text sections, one JSON document of every environment (null for a failed one),
 * or one JUnit document.
 */
export function renderTests(
  runs: readonly TestRun[],
  format: TestFormat,
  options: { color: boolean },
): string {
  if (format === 'junit') return renderJunitTests(runs);
  const [only] = runs;
  if (runs.length === 1 && only?.report !== undefined) {
    if (format === 'json') return `${JSON.stringify(only.report, null, 2)}\n`;
    const heading = environmentHeading(only.name);
    return `${heading === undefined ? '' : `${heading}\n`}${renderTextTests(only.report, options)}`;
  }
  if (format === 'json') {
    const reports = runs.map((run) => [run.name ?? '', run.report] as const);
    return `${JSON.stringify(testReportEnvironments(reports), null, 2)}\n`;
  }
  return textSections(
    runs.map((run) => run.name ?? ''),
    runs.map((run) => (run.report === undefined ? undefined : renderTextTests(run.report, options))),
    'No test report',
  );
}
