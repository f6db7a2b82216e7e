/**
 * `${VAR}` and `${VAR:-default}` in string values, from the environment; `$${` is a literal `${`.
 * A default may itself hold references: `${A:-${B}}`, `${A:-${B:-x}}`, `${A:-pre-${B}-post}`.
 * Substituted values stay strings: a variable can never change a value's type or the file's
 * structure, so `destination_port: ${PORT}` is a type error, not a number.
 *
 * Only an allow-list the pipeline owns is read, as Terraform reads `TF_VAR_*`: variables the pipeline
 * exported under wafctl's prefix (`WAFCTL_VAR_*`), and the names the trusted ref's `variables:`
 * declares (`--trusted-ref`). A pull request writes the work tree, so a `variables:` list there
 * widens nothing: without a trusted ref it is refused (`undeclarable`), with one it is data that the
 * plan reports as a change of trust. A pull request that writes `${PGPASSWORD}` must not get the
 * secret printed in its plan comment, so any other name is an error, whether it is set or not, used
 * or not; no list of words is the defence. A credential (`credentialReason`: an environment's token
 * or URL variable, wafctl's own `WAF_*`) is never read, even when the trusted ref declares it; a
 * name that merely looks like one (`credentialWord`) only gets a warning.
 *
 * `${var.NAME}` (and `${var.NAME:-default}`) reads the `vars` of the environment being loaded
 * (wafctl.yaml `environments:`): only inside an environment's load (`withEnvironmentVars`); an
 * unknown name is an error like an unset variable, and outside an environment every `${var.` is one.
 */
import type { Document, Scalar } from 'yaml';
import { forEachStringValue, type YamlPath } from './yaml-path.js';

export type Environment = Readonly<Record<string, string | undefined>>;

/** The environment (wafctl.yaml `environments:`) a load reads `${var.NAME}` from. */
export interface EnvironmentVars {
  name: string;
  vars: Readonly<Record<string, string>>;
}

/**
 * Which `Environment` objects carry an environment's vars: kept beside the object rather than in it,
 * so that `var.` names can never be confused with (or leak into) process variables.
 */
const VARS_OF = new WeakMap<Environment, EnvironmentVars>();

/** A copy of `env` whose loads read `${var.NAME}` from `vars` (an environment's load). */
export function withEnvironmentVars(env: Environment, vars: EnvironmentVars): Environment {
  const copy: Environment = { ...env };
  VARS_OF.set(copy, vars);
  return copy;
}

/** The vars `${var.NAME}` reads in a load with `env`; undefined outside an environment's load. */
export function environmentVarsOf(env: Environment): EnvironmentVars | undefined {
  return VARS_OF.get(env);
}

const VAR_PREFIX = 'var.';

/** Environment variables with this prefix may be read without being declared (as Terraform's `TF_VAR_`). */
export const VARIABLE_PREFIX = 'WAFCTL_VAR_';

/**
 * Variables that say where wafctl connects and as whom, each with why it is one (`token_env of
 * environment production (wafctl.yaml)`): a pull request writes the configuration, so `${NAME}`
 * never reads one and `variables:` never declares one, whatever the allow-list says.
 */
export type CredentialVariables = ReadonlyMap<string, string>;

/** What decides which variables `${NAME}` may read. */
export interface VariableRules {
  /** Names `${NAME}` reads besides `WAFCTL_VAR_*` ones: the trusted ref's `variables:`. */
  declared: ReadonlySet<string>;
  /** Never read, declared or not (`credentialReason`). */
  credentials?: CredentialVariables | undefined;
}

/** What `${NAME}` may read: the environment, through the allow-list. */
export interface Variables extends VariableRules {
  env: Environment;
}

export const NO_VARIABLES: VariableRules = { declared: new Set() };

/** wafctl's own settings and credentials (`WAF_TOKEN`, `WAF_SIGNIN_PASSWORD`, `WAF_URL`, ...). */
const OWN_PREFIX = 'WAF_';

/**
 * Why `${name}` may never read this variable, nor `variables:` declare it; undefined when it may:
 * a credential of an environment (`credentials`), and wafctl's own `WAF_*` variables. Both are known
 * by construction (the project says which variables hold credentials), never guessed from a name.
 */
export function credentialReason(name: string, credentials?: CredentialVariables): string | undefined {
  const own = credentials?.get(name);
  if (own !== undefined) return `a credential variable (${own})`;
  if (name.startsWith(OWN_PREFIX)) return `one of wafctl's own variables (${OWN_PREFIX}*)`;
  return undefined;
}

/**
 * Words that name a credential, as whole `_`-separated parts of a variable's name (`CI_JOB_TOKEN`,
 * `AWS_SECRET_ACCESS_KEY`). Not a defence (`PGPASSWORD`, `SENTRY_DSN` pass it): only what makes the
 * trusted ref's `variables:` declaring such a name worth a warning.
 */
const CREDENTIAL_WORD =
  /(?:^|_)(TOKEN|PASSWORD|PASSWD|SECRETS?|CREDENTIALS?|APIKEY|(?:API|ACCESS|PRIVATE)_KEY|DSN)(?:_|$)/i;

/** The credential word in `name` (`TOKEN`), for a warning; undefined when it has none. */
export function credentialWord(name: string): string | undefined {
  return CREDENTIAL_WORD.exec(name)?.[1]?.toUpperCase();
}

/** The problem of `variables:` declaring a credential. */
export function cannotDeclare(name: string, reason: string): string {
  return `${name} cannot be declared: it is ${reason}, and \${NAME} never reads a credential (a value the configuration must hold comes from a ${VARIABLE_PREFIX}* variable)`;
}

/**
 * The problem of a work tree's `variables:` without a trusted ref: a pull request writes the list,
 * so it cannot decide what `${NAME}` reads; the pipeline exports the value under the prefix instead.
 */
export function undeclarable(name: string): string {
  return `${name} cannot be declared here: without a trusted ref, variables: would let a pull request read any variable of the job; export the value as ${VARIABLE_PREFIX}${name} and write \${${VARIABLE_PREFIX}${name}}, or pin the list with --trusted-ref REF`;
}

/** Whether `${name}` may read the variable: a `WAFCTL_VAR_*` or trusted-ref name, never a credential. */
export function isAllowedVariable(name: string, rules: VariableRules): boolean {
  if (credentialReason(name, rules.credentials) !== undefined) return false;
  return name.startsWith(VARIABLE_PREFIX) || rules.declared.has(name);
}

/** Why `${name}` is refused (never quoting a value: the variable is not read). */
function notAllowedMessage(name: string, credentials: CredentialVariables | undefined): string {
  const credential = credentialReason(name, credentials);
  if (credential !== undefined) {
    return `variable ${name} is not allowed: it is ${credential}, and \${NAME} never reads a credential`;
  }
  return `variable ${name} is not allowed: only environment variables named ${VARIABLE_PREFIX}* and names the trusted ref's "variables:" declares are read (export the value as ${VARIABLE_PREFIX}${name} and write \${${VARIABLE_PREFIX}${name}})`;
}

/**
 * Where the `variables:` allow-list of a load comes from (env.ts). Without one (no trusted ref), only
 * `WAFCTL_VAR_*` variables are read, and a `variables:` list in the files is refused.
 */
export type AllowList =
  /**
   * The trusted ref's list (`--trusted-ref`), for the work tree: its own `variables:` and `manage`
   * are data, compared with the trusted ref's (trust.ts) and never used or evaluated.
   */
  | { trustedRef: ReadonlySet<string> }
  /** The files are the trusted ref's own: their `variables:` is the list. */
  | 'own';

/** The names `${NAME}` reads besides `WAFCTL_VAR_*` ones, given what the files declare. */
export function allowedNames(
  allowList: AllowList | undefined,
  declared: ReadonlySet<string>,
): ReadonlySet<string> {
  if (allowList === undefined) return new Set();
  return allowList === 'own' ? declared : allowList.trustedRef;
}

/** Whether the load's own policy is not in force: a trusted ref's is (`AllowList`). */
export const policyPinned = (options: { allowList?: AllowList | undefined }): boolean =>
  typeof options.allowList === 'object';

/** A name `${NAME}` can refer to (also what `variables:` may declare). */
export const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface SubstitutionProblem {
  /** Index of the reference's `${` among the references of the value (0 = first), nested ones included. */
  reference: number;
  message: string;
}

const NAME = /[A-Za-z_][A-Za-z0-9_]*/y;

const EXPECTED = `expected \${NAME} or \${NAME:-default} (write $\${ for a literal \${)`;

const MAX_SHOWN = 60;

/** A malformed reference as quoted in a message: an unterminated one may run to the end of a long value. */
function shown(text: string): string {
  return JSON.stringify(text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}...` : text);
}

/** A `${` whose `}` has not been read yet. */
interface Open {
  /** Offset of its `${` in the value. */
  start: number;
  reference: number;
  /** Undefined for a malformed reference (kept open only to find its end). */
  name: string | undefined;
  /** Its default is the value (VAR unset or empty) and everything around it is used too. */
  used: boolean;
  /** Its value: VAR's, or what its default evaluated to so far. */
  out: string;
}

/**
 * One value's substitution under way: what is written so far, and the references open. One pass over
 * the value with an explicit stack (no recursion): nesting depth is bounded by the text alone.
 */
class Substitution {
  readonly problems: SubstitutionProblem[] = [];
  private readonly environment: EnvironmentVars | undefined;
  private readonly stack: Open[] = [];
  /** The value written outside every reference. */
  private top = '';
  private references = 0;
  /** Where the text not yet written starts. */
  private literalFrom = 0;

  constructor(
    private readonly value: string,
    private readonly variables: Variables,
  ) {
    this.environment = environmentVarsOf(variables.env);
  }

  /** The value with its references replaced; `problems` says what could not be. */
  run(): string {
    const value = this.value;
    let i = 0;
    while (i < value.length) {
      const c = value[i];
      if (c === '$' && value.startsWith('$${', i)) i = this.escape(i);
      else if (c === '$' && value.startsWith('${', i)) i = this.open(i);
      else if (c === '}' && this.stack.length > 0) i = this.close(i);
      else i++;
    }
    this.flush(i);
    this.closeUnclosed();
    this.problems.sort((a, b) => a.reference - b.reference);
    return this.top;
  }

  /** Whether what is read now is used: outside every reference, or in a default that is. */
  private used(): boolean {
    return this.stack.length === 0 || (this.stack.at(-1)?.used ?? false);
  }

  private emit(text: string): void {
    const open = this.stack.at(-1);
    if (open === undefined) this.top += text;
    else if (open.used) open.out += text;
  }

  /** Writes the text read since `literalFrom`, up to `to`. */
  private flush(to: number): void {
    if (to > this.literalFrom) this.emit(this.value.slice(this.literalFrom, to));
  }

  private unset(reference: number, name: string): void {
    const outer = this.stack.at(-1)?.name;
    const because = outer === undefined ? '' : `; it is needed because ${outer} is unset or empty`;
    const what =
      name.startsWith(VAR_PREFIX) && this.environment !== undefined
        ? `${name} is not in the vars of environment ${this.environment.name} (wafctl.yaml)`
        : `environment variable ${name} is not set`;
    this.problems.push({
      reference,
      message: `${what} (use \${${name}:-default} for a default)${because}`,
    });
  }

  /** The variable's value, or undefined when unset or not allowed (then said, used or not). */
  private read(reference: number, name: string): string | undefined {
    if (name.startsWith(VAR_PREFIX)) {
      if (this.environment !== undefined) {
        const key = name.slice(VAR_PREFIX.length);
        return Object.hasOwn(this.environment.vars, key) ? this.environment.vars[key] : undefined;
      }
      this.problems.push({
        reference,
        message: `\${${name}} reads the vars of an environment: only when an environment of wafctl.yaml is loaded (validate --env NAME)`,
      });
      return undefined;
    }
    if (isAllowedVariable(name, this.variables)) return this.variables.env[name];
    this.problems.push({ reference, message: notAllowedMessage(name, this.variables.credentials) });
    return undefined;
  }

  /** `$${` at `i`: a literal `${`. Returns where reading goes on. */
  private escape(i: number): number {
    this.flush(i);
    this.emit('${');
    this.literalFrom = i + 3;
    return this.literalFrom;
  }

  /** A reference's `${` at `i`: `${NAME}` is replaced, `${NAME:-` and a malformed one stay open. */
  private open(i: number): number {
    const value = this.value;
    this.flush(i);
    const reference = this.references++;
    NAME.lastIndex = i + 2;
    let name = NAME.exec(value)?.[0];
    let after = name === undefined ? i + 2 : i + 2 + name.length;
    if (name === 'var' && value[after] === '.') {
      // `${var.NAME}`: an environment's var.
      NAME.lastIndex = after + 1;
      const own = NAME.exec(value)?.[0];
      name = own === undefined ? undefined : `${VAR_PREFIX}${own}`;
      after = own === undefined ? after : after + 1 + own.length;
    }
    let next: number;
    if (name !== undefined && value[after] === '}') {
      const allowed = name.startsWith(VAR_PREFIX)
        ? this.environment !== undefined
        : isAllowedVariable(name, this.variables);
      const current = this.read(reference, name);
      if (current !== undefined) this.emit(current);
      else if (allowed && this.used()) this.unset(reference, name);
      next = after + 1;
    } else if (name !== undefined && value.startsWith(':-', after)) {
      const current = this.read(reference, name);
      // A set variable's default is still read (malformed references in it are reported), not used.
      if (current !== undefined && current !== '')
        this.stack.push({ start: i, reference, name, used: false, out: current });
      else this.stack.push({ start: i, reference, name, used: this.used(), out: '' });
      next = after + 2;
    } else {
      // Malformed: read on to its `}`. References inside it are numbered, and reported if malformed.
      this.stack.push({ start: i, reference, name: undefined, used: false, out: '' });
      next = i + 2;
    }
    this.literalFrom = next;
    return next;
  }

  /** The `}` at `i` closes the innermost open reference: its value, or a malformed one's text. */
  private close(i: number): number {
    this.flush(i);
    const open = this.stack.pop() as Open;
    this.literalFrom = i + 1;
    if (open.name === undefined) {
      const text = this.value.slice(open.start, i + 1);
      this.problems.push({
        reference: open.reference,
        message: `invalid variable reference ${shown(text)}: ${EXPECTED}`,
      });
      this.emit(text);
    } else this.emit(open.out);
    return i + 1;
  }

  /** A reference left open at the end of the value is malformed: written as it is, from its `${`. */
  private closeUnclosed(): void {
    const unclosed = this.stack[0];
    if (unclosed === undefined) return;
    const text = this.value.slice(unclosed.start);
    this.problems.push({
      reference: unclosed.reference,
      message: `invalid variable reference ${shown(text)}: no closing }; ${EXPECTED}`,
    });
    this.top += text;
  }
}

/**
 * Replaces the references in `value`. `${VAR:-default}` uses the default when VAR is unset or empty
 * (as in sh); the default runs to the first `}` that does not close a reference inside it. A default
 * is evaluated only when it is used: `${A:-${B}}` with A set needs no B. Malformed references are
 * reported whether used or not.
 */
export function substituteVariables(
  value: string,
  variables: Variables,
): { value: string; problems: SubstitutionProblem[] } {
  const substitution = new Substitution(value, variables);
  return { value: substitution.run(), problems: substitution.problems };
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
export function substituteInDocument(
  doc: Document,
  source: string,
  variables: Variables,
): PositionedProblem[] {
  const problems: PositionedProblem[] = [];
  forEachStringValue(doc, (scalar: Scalar<string>, path) => {
    if (!scalar.value.includes('${')) return;
    const result = substituteVariables(scalar.value, variables);
    scalar.value = result.value;
    const [start = 0, end = start] = scalar.range ?? [];
    for (const problem of result.problems) {
      const inSource = referenceOffset(source.slice(start, end), problem.reference);
      problems.push({ offset: start + (inSource ?? 0), path, message: problem.message });
    }
  });
  return problems;
}
