/**
 * A file given to wafctl that holds nothing of its shape (a README, a markdown file) is said to be no
 * configuration file, in one problem, rather than with YAML's complaints about it.
 */
import { describeValue } from './describe-value.js';
import { isMapping } from './mapping.js';
import { EMPTY_FILE, INVALID_YAML, type ParsedFile } from './parse-yaml.js';
import { type ConfigProblem, sortProblems } from './problems.js';
import type { SourceFile } from './read-sources.js';
import type { Family } from './schema.js';

const YAML_NAME = /\.ya?ml$/i;

/**
 * The one problem of a file that holds nothing of wafctl's shape: YAML reads a README as one plain
 * string (or a list), so no document of it is a mapping; given by name, a file that is not named
 * `*.yaml`/`*.yml` and does not read as YAML at all, or holds only `#` lines (a markdown file's
 * headings), is said to be no configuration file too, rather than listing YAML's complaints or
 * calling it empty. A really empty file keeps its own problem ("file is empty").
 */
export function notConfigurationProblem(
  source: SourceFile,
  parsed: ParsedFile,
  family: Family,
): ConfigProblem | undefined {
  if (parsed.documents.some((document) => isMapping(document.data))) return undefined;
  const sections = [...family.kinds.map((kind) => kind.section), 'settings'].map((section) => `${section}:`);
  const expected = `expected a mapping with sections such as ${sections.join(', ')}`;
  const message = (why: string) => `not a wafctl configuration file: ${expected}, ${why}`;
  const first = parsed.documents[0];
  if (first !== undefined && parsed.problems.length === 0) {
    const { line, col } = first.locate([]);
    return { file: source.file, line, col, path: '', message: message(`got ${describeValue(first.data)}`) };
  }
  if (YAML_NAME.test(source.file)) return undefined;
  const problem = sortProblems(parsed.problems)[0];
  if (problem === undefined) return undefined;
  if (problem.message === EMPTY_FILE && source.text.trim() !== '') {
    return { ...problem, message: message('and it holds only comments (# lines)') };
  }
  const cause = problem.message.startsWith(INVALID_YAML)
    ? problem.message.slice(INVALID_YAML.length)
    : problem.message;
  return { ...problem, message: message(`and YAML cannot read it (${cause})`) };
}
