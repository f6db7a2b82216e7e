/**
 * The rule tests of a configuration (`tests:`, schema in rule-test-schema.ts) gathered across its
 * files: concatenated in file order, each with its place, but the cases a later path of an
 * environment replaces (overlay.ts). A name declared twice is an error naming both places, as a
 * natural key declared twice is; so is a configuration of more than MAX_TESTS cases, and a header
 * named `__proto__`, which the schema's record would drop.
 */
import { hasPath } from './mapping.js';
import { isSuperseded } from './overlay.js';
import type { ParsedDocument } from './parse-yaml.js';
import type { ConfigProblem } from './problems.js';
import { type LocatedTestCase, MAX_TESTS, TESTS, type TestCaseOutput } from './rule-test-schema.js';
import type { CheckedDocument } from './validate-document.js';
import { formatPath } from './yaml-path.js';

export type { LocatedTestCase } from './rule-test-schema.js';

export interface RuleTests {
  tests: LocatedTestCase[];
  problems: ConfigProblem[];
}

/** A case as loaded: its fields and where its item starts. */
function located(document: ParsedDocument, index: number, test: TestCaseOutput): LocatedTestCase {
  const { line, col } = document.locate([TESTS, index]);
  return { ...test, at: { file: document.file, line, col } };
}

function problemAt(test: LocatedTestCase, index: number, message: string): ConfigProblem {
  const { file, line, col } = test.at;
  return { file, line, col, path: formatPath([TESTS, index]), message };
}

/** The header name zod's records drop (so that no key sets a prototype): refused, never dropped silently. */
const PROTO = '__proto__';

/** The problem of a case whose request names a header `__proto__` (see PROTO), as the file writes it. */
function protoHeader(document: ParsedDocument, index: number): ConfigProblem | undefined {
  const path = [TESTS, index, 'request', 'headers', PROTO];
  if (!hasPath(document.data, path)) return undefined;
  const { line, col } = document.locate(path);
  const message = `a header cannot be named "${PROTO}": wafctl never sets it on an object`;
  return { file: document.file, line, col, path: formatPath(path), message };
}

/**
 * The cases of the documents that passed the schema (a case that did not is left out: its problem is
 * said), and the problems across them: a name declared twice, more than MAX_TESTS cases, a header
 * named `__proto__`.
 */
export function ruleTests(valid: readonly CheckedDocument[]): RuleTests {
  const tests: LocatedTestCase[] = [];
  const problems: ConfigProblem[] = [];
  const byName = new Map<string, LocatedTestCase>();
  for (const { document, output } of valid) {
    const cases = output[TESTS];
    if (!Array.isArray(cases)) continue;
    cases.forEach((test: TestCaseOutput | undefined, index) => {
      if (test === undefined || isSuperseded(document, TESTS, index)) return;
      const here = located(document, index, test);
      const proto = protoHeader(document, index);
      if (proto !== undefined) problems.push(proto);
      const earlier = byName.get(test.name);
      if (earlier !== undefined) {
        const { file, line, col } = earlier.at;
        problems.push(
          problemAt(here, index, `duplicate test "${test.name}": also declared at ${file}:${line}:${col}`),
        );
        return;
      }
      if (tests.length === MAX_TESTS) {
        const message = `more than ${MAX_TESTS} tests: a configuration holds at most ${MAX_TESTS} (all files together)`;
        problems.push(problemAt(here, index, message));
      }
      byName.set(test.name, here);
      tests.push(here);
    });
  }
  return { tests, problems };
}
