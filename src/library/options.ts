/**
 * The library's options, checked at each entry point before any work (issue 50): a JavaScript
 * caller, or a TypeScript one with `any`, may pass anything, and a wrong type must be a `USAGE` error
 * naming the option by its path and what it expected (`plan: options.connection.token: expected a
 * string, got a number`), not a `TypeError` from deep inside. One schema per option, shared by every
 * function that takes it, built from the rules the CLI's flags follow (the timeout's bound, the
 * `--fail-on` classes, positive integers); the CLI parses text with commander and keeps zod out of
 * its start-up, so it shares the rules, not these schemas.
 *
 * A value is shown only where it is no secret and says what is wrong with it (a number out of range,
 * an unknown class); credentials (`token`, `password`) and the variables of `env` are described by
 * their type alone. A name no function takes is refused (with the nearest name); a name another
 * function takes is not read, so one options object can serve `plan` and then `apply`.
 *
 * Internal: nothing here is in the library's declarations (zod types would break them).
 */
import * as z from 'zod';
import { MAX_TIMEOUT_SECONDS } from '../api/timeouts.js';
import { usageError, type WafctlError } from '../core/errors.js';
import { FAIL_ON_CLASSES } from '../core/model.js';
import { didYouMean } from '../core/suggest.js';
import { printable } from '../core/text.js';
import { connectionError } from '../ops/connection.js';
import type { Same } from './context.js';
import type { ApplyOptions, ExportOptions, PlanOptions, TestOptions, ValidateOptions } from './types.js';

const string = (what = 'a string') => z.string({ error: what });
const flag = z.boolean({ error: 'true or false' }).optional();
const callback = (what: string) =>
  z.custom<(...args: never[]) => unknown>((value) => typeof value === 'function', { error: what });
const hook = callback('a function').optional();
const strings = (what: string, item = 'a string') => z.array(string(item), { error: what }).optional();
const positiveInteger = z
  .number({ error: 'a positive integer' })
  .int({ error: 'a positive integer' })
  .min(1, { error: 'a positive integer' })
  .optional();

/** As `--timeout` (cli/options.ts `readTimeout`): positive, and within what a timer can hold. */
const TIMEOUT = `a positive number of seconds, at most ${MAX_TIMEOUT_SECONDS}`;
const timeoutSeconds = z
  .number({ error: TIMEOUT })
  .positive({ error: TIMEOUT })
  .max(MAX_TIMEOUT_SECONDS, { error: TIMEOUT })
  .optional();

/** Structurally an AbortSignal: what `abortSignalOf` (context.ts) reads of it. */
function isAbortSignalLike(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const signal = value as Record<string, unknown>;
  return (
    typeof signal.aborted === 'boolean' &&
    typeof signal.addEventListener === 'function' &&
    typeof signal.removeEventListener === 'function'
  );
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `process.env` is an exotic object zod's records refuse: checked by hand, each variable a string. */
const variables = z
  .custom<Record<string, unknown>>(isRecord, { error: 'a record of variables (string values)' })
  .superRefine((env, context) => {
    for (const [name, value] of Object.entries(env)) {
      if (value !== undefined && typeof value !== 'string') {
        context.addIssue({ code: 'custom', message: 'a string', path: [name], input: value });
      }
    }
  })
  .optional();

const clock = z
  .looseObject(
    { now: hook, sleep: hook, random: hook },
    { error: 'a clock (an object of now, sleep and random)' },
  )
  .optional();

const CONNECTION = 'a connection ({url, token} or {url, username, password})';
const connection = z
  .strictObject(
    {
      url: string().optional(),
      token: string().optional(),
      username: string().optional(),
      password: string().optional(),
      timeoutSeconds,
    },
    { error: CONNECTION },
  )
  .optional();

/** Every option, once: what each function takes is a pick of these. */
const OPTIONS = {
  cwd: string('a directory (a string)').min(1, { error: 'a directory (a non-empty string)' }),
  env: variables,
  signal: z.custom(isAbortSignalLike, { error: 'an AbortSignal (aborted, addEventListener)' }).optional(),
  clock,
  onNote: hook,
  onDebug: hook,
  paths: strings('a list of paths (string[])', 'a path (a string)'),
  environment: string('the name of an environment (a string)')
    .min(1, { error: 'the name of an environment (a non-empty string)' })
    .optional(),
  strict: flag,
  connection,
  target: strings('a list of addresses (string[])'),
  exclude: strings('a list of addresses (string[])'),
  kind: strings('a list of families (string[])'),
  confirm: callback('a function (plan) => boolean').optional(),
  failOn: z
    .array(z.enum(FAIL_ON_CLASSES, { error: `one of ${FAIL_ON_CLASSES.join(', ')}` }), {
      error: 'a list of classes (string[])',
    })
    .optional(),
  force: flag,
  allowPartial: flag,
  parallelism: positiveInteger,
  batchSize: positiveInteger,
  wait: flag,
  waitTimeoutSeconds: z
    .number({ error: 'a positive number of seconds' })
    .positive({ error: 'a positive number of seconds' })
    .optional(),
  onText: hook,
  dir: string('a directory (a string)').optional(),
  write: flag,
  redactSecrets: flag,
  live: flag,
};

type Name = keyof typeof OPTIONS;
const pick = <const N extends readonly Name[]>(...names: N): N => names;

const RUN = pick('cwd', 'env', 'signal', 'clock', 'onNote', 'onDebug');
const CONFIGURATION = [...RUN, ...pick('paths', 'environment')] as const;
const PLAN = [...CONFIGURATION, ...pick('connection', 'target', 'exclude', 'kind')] as const;
const APPLY = [
  ...PLAN,
  ...pick('confirm', 'failOn', 'force', 'allowPartial', 'parallelism', 'batchSize', 'wait'),
  ...pick('waitTimeoutSeconds', 'onText'),
] as const;

/** The names each function takes, as its options type declares them (checked below). */
const TAKES = {
  validate: [...CONFIGURATION, ...pick('strict')],
  plan: PLAN,
  drift: PLAN,
  apply: APPLY,
  exportState: [
    ...RUN,
    ...pick('environment', 'connection', 'kind', 'dir', 'write', 'force', 'redactSecrets'),
  ],
  test: [...CONFIGURATION, ...pick('live', 'connection')],
} as const;

// Each function checks every option its type declares, and no other: an option added to types.ts
// and not here (or the other way round) fails to compile.
type Takes<F extends keyof typeof TAKES> = (typeof TAKES)[F][number];
const sameNames: [
  Same<Takes<'validate'>, keyof ValidateOptions>,
  Same<Takes<'plan'>, keyof PlanOptions>,
  Same<Takes<'apply'>, keyof ApplyOptions>,
  Same<Takes<'exportState'>, keyof ExportOptions>,
  Same<Takes<'test'>, keyof TestOptions>,
] = [true, true, true, true, true];
void sameNames;

export type Entry = keyof typeof TAKES;

const SCHEMAS = Object.fromEntries(
  Object.entries(TAKES).map(([entry, names]) => [
    entry,
    z.object(Object.fromEntries(names.map((name) => [name, OPTIONS[name]])), {
      error: 'an object of options',
    }),
  ]),
) as Record<Entry, z.ZodObject>;

const ALL_NAMES = Object.keys(OPTIONS);

/** Fields whose values are never shown, whatever is wrong with them (and every variable of `env`). */
const SECRET_FIELDS = new Set(['token', 'password']);
const isSecret = (path: readonly PropertyKey[]): boolean =>
  path[0] === 'env' || path.some((part) => SECRET_FIELDS.has(String(part)));

/** `options.connection.token`, `options.paths[1]`, `options.env.HOME`. */
function pathText(path: readonly PropertyKey[]): string {
  let text = 'options';
  for (const part of path) {
    text += typeof part === 'number' ? `[${part}]` : `.${printable(String(part)).slice(0, 80)}`;
  }
  return text;
}

/** A value's type, as a message says it: `a number`, `an array`, `null`, `an empty string`. */
function typeOf(value: unknown): string {
  if (value === undefined || value === null) return String(value);
  if (Array.isArray(value)) return 'an array';
  if (value === '') return 'an empty string';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * What was given instead: its type; or, where the type is right and the value wrong and no secret,
 * the value (a number out of range, `NaN`, an unknown class).
 */
function given(issue: z.core.$ZodIssue): string {
  const input: unknown = 'input' in issue ? issue.input : undefined;
  if (isSecret(issue.path)) return typeOf(input);
  const received = 'received' in issue ? issue.received : undefined;
  if (typeof received === 'string') return received; // NaN, Infinity: zod gives no input for them
  // Out of range, not one of the values, or a number that is no integer: the type is right.
  const rightType =
    ['too_small', 'too_big', 'invalid_value'].includes(issue.code) ||
    (issue.code === 'invalid_type' && issue.expected === 'int');
  if (rightType && typeof input === 'number') return String(input);
  if (rightType && typeof input === 'string' && input !== '') {
    return printable(JSON.stringify(input.slice(0, 80)));
  }
  return typeOf(input);
}

/** `options.tagret: unknown option (did you mean "target"?)`, else what may be there. */
function unknownOption(path: readonly PropertyKey[], takes: readonly string[], where: string): string {
  const name = String(path[path.length - 1]);
  const hint = didYouMean(name, takes) ?? (path.length === 1 ? didYouMean(name, ALL_NAMES) : undefined);
  if (hint !== undefined) return `${pathText(path)}: unknown option (did you mean "${hint}"?)`;
  return `${pathText(path)}: unknown option; ${where} takes ${takes.join(', ')}`;
}

/** One issue as problems: the option's path, what it expected and what it got. */
function problemsOf(issue: z.core.$ZodIssue): string[] {
  if (issue.code === 'unrecognized_keys') {
    // The connection is the one strict object: a misspelt credential or timeout is no other option.
    const takes = Object.keys(connection.unwrap().shape);
    return issue.keys.map((key) => unknownOption([...issue.path, key], takes, pathText(issue.path)));
  }
  const input = 'input' in issue ? issue.input : undefined;
  const values = issue.code === 'invalid_value' ? issue.values.map(String) : [];
  const hint = typeof input === 'string' ? didYouMean(input, values) : undefined;
  const suggestion = hint === undefined ? '' : ` (did you mean "${hint}"?)`;
  return [`${pathText(issue.path)}: expected ${issue.message}, got ${given(issue)}${suggestion}`];
}

/** At most this many problems in the one line of the error. */
const MAX_PROBLEMS = 5;

/** The error of `problems`: one line, `plan: options.x: ...; options.y: ...`. */
function optionsError(entry: Entry, problems: readonly string[]): WafctlError {
  const shown = problems.slice(0, MAX_PROBLEMS);
  const more = problems.length - shown.length;
  return usageError(`${entry}: ${shown.join('; ')}${more > 0 ? ` (and ${more} more)` : ''}`);
}

/**
 * `options`, checked for `entry` (the function called): a `USAGE` error naming each wrong option and
 * each name no function takes, and for a call that talks to a firewall an error saying what its
 * connection lacks. Gives the caller's own object (its signal, clock and hooks as given).
 */
export function checkedOptions<T>(entry: Entry, options: T): T {
  if (!isRecord(options)) {
    throw optionsError(entry, [`options: expected an object of options, got ${typeOf(options)}`]);
  }
  const takes = [...TAKES[entry]];
  const unknown = Object.keys(options).filter((name) => !ALL_NAMES.includes(name));
  const parsed = SCHEMAS[entry].safeParse(options, { reportInput: true });
  const problems = [
    ...unknown.map((name) => unknownOption([name], takes, entry)),
    ...(parsed.error?.issues.flatMap(problemsOf) ?? []),
  ];
  if (problems.length > 0) throw optionsError(entry, problems);
  checkFirewall(entry, options);
  return options;
}

/** Whether the call talks to a firewall: all but `validate`, and `test` only with `live`. */
function talksToFirewall(entry: Entry, options: Record<string, unknown>): boolean {
  if (entry === 'validate') return false;
  return entry !== 'test' || options.live === true;
}

/**
 * What a firewall's connection needs when no `environment` gives it: a URL, and a token or a
 * sign-in (as the CLI's WAF_URL, WAF_TOKEN and WAF_SIGNIN_*, an empty value is none; a token wins
 * over a sign-in). `test` offline reads no connection: one given is refused, not ignored.
 */
function checkFirewall(entry: Entry, options: Record<string, unknown>): void {
  const settings = options.connection as z.output<typeof connection>;
  if (!talksToFirewall(entry, options)) {
    if (entry === 'test' && settings !== undefined) {
      throw usageError(
        "test: options.connection is read only with live: true (offline, the configuration's own rules are tested)",
      );
    }
    return;
  }
  if (options.environment !== undefined) return;
  if (settings === undefined) {
    throw connectionError(
      `${entry}: no firewall: give options.connection ({url, token} or {url, username, password}), or options.environment.`,
    );
  }
  if (!settings.url) {
    throw connectionError(`${entry}: no API URL: give options.connection.url, or options.environment.`);
  }
  if (settings.token) return;
  const { username, password } = settings;
  if (!username && !password) {
    throw connectionError(
      `${entry}: no API token: give options.connection.token, or a sign-in (options.connection.username and password).`,
    );
  }
  if (!username || !password) {
    const [has, lacks] = username ? ['username', 'password'] : ['password', 'username'];
    throw usageError(
      `${entry}: options.connection.${has} is given but no ${lacks}: give options.connection.${lacks} (or a token).`,
    );
  }
}
