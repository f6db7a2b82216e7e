/**
 * `${VAR}` and `${VAR:-default}` in string values, from the environment; `$${` is a literal `${`.
 * Substituted values stay strings: a variable can never change a value's type or the file's
 * structure, so `destination_port: ${PORT}` is a type error, not a number.
 */
import type { Document, Scalar } from 'yaml';
import { forEachStringValue, type YamlPath } from './yaml-path.js';

export type Environment = Readonly<Record<string, string | undefined>>;

export interface SubstitutionProblem {
  /** Index of the reference's `${` among the references of the value (0 = first). */
  reference: number;
  message: string;
}

const REFERENCE = /^([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?$/s;

/**
 * Replaces the references in `value`. `${VAR:-default}` uses the default when VAR is unset or empty
 * (as in sh); the default is literal text up to the first `}` (no nesting).
 */
export function substituteVariables(
  value: string,
  env: Environment,
): { value: string; problems: SubstitutionProblem[] } {
  let out = '';
  const problems: SubstitutionProblem[] = [];
  let reference = 0;
  let i = 0;
  while (i < value.length) {
    if (value.startsWith('$${', i)) {
      out += '${';
      i += 3;
    } else if (value.startsWith('${', i)) {
      const end = value.indexOf('}', i + 2);
      const body = end === -1 ? undefined : value.slice(i + 2, end);
      const match = body === undefined ? null : REFERENCE.exec(body);
      if (end === -1 || !match) {
        const text = end === -1 ? value.slice(i) : value.slice(i, end + 1);
        problems.push({
          reference,
          message: `invalid variable reference ${JSON.stringify(text)}: expected \${NAME} or \${NAME:-default} (write $\${ for a literal \${)`,
        });
        out += text;
        i = end === -1 ? value.length : end + 1;
      } else {
        const [, name = '', fallback] = match;
        const current = env[name];
        if (fallback !== undefined && (current === undefined || current === '')) out += fallback;
        else if (current !== undefined) out += current;
        else
          problems.push({
            reference,
            message: `environment variable ${name} is not set (use \${${name}:-default} for a default)`,
          });
        i = end + 1;
      }
      reference++;
    } else {
      out += value[i];
      i++;
    }
  }
  return { value: out, problems };
}

/** Offset of the n-th `${` reference (escapes skipped) in a scalar's source text, if it is there. */
function referenceOffset(source: string, n: number): number | undefined {
  let seen = 0;
  for (let i = 0; i < source.length; i++) {
    if (source.startsWith('$${', i)) i += 2;
    else if (source.startsWith('${', i)) {
      if (seen === n) return i;
      seen++;
    }
  }
  return undefined;
}

export interface PositionedProblem {
  offset: number;
  path: YamlPath;
  message: string;
}

/**
 * Substitutes in place in every string value of `doc` (never in keys). A problem is placed at the
 * `${` of its reference when the scalar's source text shows it (plain, quoted and block scalars
 * alike), else at the scalar's start.
 */
export function substituteInDocument(doc: Document, source: string, env: Environment): PositionedProblem[] {
  const problems: PositionedProblem[] = [];
  forEachStringValue(doc, (scalar: Scalar<string>, path) => {
    if (!scalar.value.includes('${')) return;
    const result = substituteVariables(scalar.value, env);
    scalar.value = result.value;
    const [start = 0, end = start] = scalar.range ?? [];
    for (const problem of result.problems) {
      const inSource = referenceOffset(source.slice(start, end), problem.reference);
      problems.push({ offset: start + (inSource ?? 0), path, message: problem.message });
    }
  });
  return problems;
}
