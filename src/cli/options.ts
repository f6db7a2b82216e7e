/** Option sets shared by several commands, declared once so their help text never drifts apart. */
import { type Command, InvalidArgumentError, Option } from 'commander';
import { DEFAULT_TIMEOUT_SECONDS, MAX_TIMEOUT_SECONDS } from '../api/timeouts.js';
import {
  CHANGES_TRUST,
  FAIL_ON_CLASSES,
  FAILS_TESTS,
  type FailOnClass,
  IMPACT_CLASSES,
} from '../core/model.js';
import { didYouMean } from '../core/suggest.js';
import { printable } from '../core/text.js';
import { ENVIRONMENT_CONCURRENCY } from '../ops/environments.js';
import { readShard, type Shard } from '../ops/shard.js';
import { MARKDOWN_MAX_CHARS, MARKDOWN_MIN_CHARS } from '../plan/render/markdown-limits.js';

/**
 * Options of every command that talks to the API. The token and the sign-in password are never
 * flags: argv shows in `ps`. They come from the environment or from a file.
 */
export interface ConnectionFlags {
  url?: string;
  tokenFile?: string;
  /** With WAF_SIGNIN_USERNAME and no token: the password, read from this file (trimmed). */
  passwordFile?: string;
  emulatorState?: string;
  /** `--timeout SECONDS`, checked; when absent, WAF_TIMEOUT, then DEFAULT_TIMEOUT_SECONDS. */
  timeout?: number;
}

/** A repeatable option's values, in the order given. */
const repeated = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

/**
 * `--env NAME` on every command that reads wafctl.yaml (environments.ts): one environment of it; and
 * `--trusted-ref REF`, which says where its connections and the policy are read from.
 */
export function addEnvironmentOption(
  command: Command,
  description = 'work on this environment of wafctl.yaml at the configuration root: its paths, vars, URL and credentials',
): Command {
  return addTrustOption(
    command.addOption(new Option('--env <NAME>', description).argParser(repeated).default([])),
  );
}

/** The flags of a command that runs a fleet of environments (`addFleetOptions`). */
export interface FleetFlags {
  /** `--exclude-env GLOB`, repeated: removed from what `--env` selects. */
  excludeEnv?: string[] | undefined;
  /** `--shard K/N`; WAFCTL_SHARD when absent (cli/environments.ts). */
  shard?: Shard | undefined;
  /** `--concurrency N`: how many environments run at once (default ENVIRONMENT_CONCURRENCY). */
  concurrency?: number | undefined;
  /**
   * Set on the flags of one environment's run inside a fleet run (`environmentFlags`): the fleet's
   * selection is made, so WAFCTL_SHARD is not read again.
   */
  withinFleet?: boolean | undefined;
}

/**
 * `--env` as commands that run several environments take it (names, `all`, globs, repeated), with
 * `--exclude-env`, `--shard` and `--concurrency` (docs/environments.md, Fleets). Commands that take
 * one environment (get, pull, compare) use `addEnvironmentOption` alone.
 */
export function addFleetOptions(
  command: Command,
  description = "work on these environments of wafctl.yaml at the configuration root (each with its paths, vars, URL and credentials): a name, a glob ('prod-*': * any run, ? one character) or all; repeatable",
): Command {
  return addEnvironmentOption(command, description)
    .addOption(
      new Option(
        '--exclude-env <GLOB>',
        'leave out the environments this name or glob matches, of those --env selects (repeatable)',
      ).argParser(repeated),
    )
    .addOption(
      new Option(
        '--shard <K/N>',
        `run only the K-th of N disjoint parts of the selected environments, assigned by a stable hash of each name (env: ${SHARD_VARIABLE})`,
      ).argParser(parseShard),
    )
    .addOption(
      new Option('--concurrency <N>', 'how many environments run at once')
        .argParser(parsePositiveInt('--concurrency'))
        .default(ENVIRONMENT_CONCURRENCY),
    );
}

/** The variable a CI matrix or a Kubernetes Indexed Job sets instead of `--shard`. */
export const SHARD_VARIABLE = 'WAFCTL_SHARD';

/** For commander, which quotes the value itself. */
function parseShard(value: string): Shard {
  const read = readShard('--shard', value);
  if ('problem' in read) throw new InvalidArgumentError(`${read.problem}.`);
  return read;
}

/** `--url`, `--token-file`, `--password-file`, `--emulator-state` and `--timeout`: where and as whom to connect. */
export function addConnectionOptions(command: Command): Command {
  return command
    .option('--url <URL>', "API base URL, or 'embedded' for an in-process emulator (env: WAF_URL)")
    .option('--token-file <FILE>', 'read the API token from FILE (default: env WAF_TOKEN)')
    .option(
      '--password-file <FILE>',
      'without a token: sign in as WAF_SIGNIN_USERNAME with the password in FILE (default: env WAF_SIGNIN_PASSWORD)',
    )
    .option('--emulator-state <FILE>', "with --url embedded: the emulator's state file (loaded and saved)")
    .option(
      '--timeout <SECONDS>',
      `give up on an API request not answered in full (headers and body) within SECONDS, e.g. 30 or 0.5 (default: ${DEFAULT_TIMEOUT_SECONDS}, env: WAF_TIMEOUT)`,
      parseTimeout('--timeout'),
    );
}

/** A positive decimal number: `60`, `0.5`, `.5`, `1.`; no sign, exponent, `Infinity` or hex. */
const DECIMAL = /^(?:\d+(?:\.\d*)?|\.\d+)$/;

/**
 * The seconds of a `--timeout` / `WAF_TIMEOUT` value (`source` names which), or why it is refused:
 * anything but a positive decimal number of seconds within what a timer can hold.
 */
export function readTimeout(source: string, value: string): { seconds: number } | { problem: string } {
  const text = value.trim();
  const seconds = Number(text);
  if (!DECIMAL.test(text) || !(seconds > 0)) {
    return { problem: `${source} must be a positive number of seconds (e.g. 60 or 0.5)` };
  }
  if (seconds > MAX_TIMEOUT_SECONDS) {
    return { problem: `${source} must be at most ${MAX_TIMEOUT_SECONDS} seconds (about 24 days)` };
  }
  return { seconds };
}

/** For commander, which quotes the value itself: `option '--timeout <SECONDS>' argument 'abc' is invalid.` */
export function parseTimeout(source: string) {
  return (value: string): number => {
    const read = readTimeout(source, value);
    if ('problem' in read) throw new InvalidArgumentError(`${read.problem}.`);
    return read.seconds;
  };
}

/** `"abc"`, quoted and escaped: an environment value may hold anything. */
export function quoteValue(value: string): string {
  return printable(JSON.stringify(value));
}

/** For commander: an integer of at least 1, or `NAME must be a positive integer.` */
export function parsePositiveInt(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`${name} must be a positive integer.`);
    return n;
  };
}

export const FORMATS = ['text', 'markdown', 'json'] as const;

/**
 * `--fail-on CLASS[,CLASS]`, repeatable: the classes (FAIL_ON_CLASSES) that make plan, drift and apply
 * exit 3 (apply then writes nothing). Underscores or dashes, any case.
 */
export function parseFailOn(value: string, previous: FailOnClass[] = []): FailOnClass[] {
  const classes = [...previous];
  for (const raw of value.split(',')) {
    const name = raw.trim().toLowerCase().replaceAll('-', '_');
    if (name === '') continue;
    if (!(FAIL_ON_CLASSES as readonly string[]).includes(name)) {
      const hint = didYouMean(name, FAIL_ON_CLASSES);
      throw new InvalidArgumentError(
        `unknown class "${raw.trim()}"${hint === undefined ? '' : ` (did you mean "${hint}"?)`}; expected ${FAIL_ON_CLASSES.join(', ')}.`,
      );
    }
    if (!classes.includes(name as FailOnClass)) classes.push(name as FailOnClass);
  }
  if (classes.length === 0) throw new InvalidArgumentError(`expected ${FAIL_ON_CLASSES.join(', ')}.`);
  return classes;
}

/** `--max-chars N` of a markdown plan or drift report: at most GitHub's limit, at least room for the summary. */
export function parseMaxChars(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < MARKDOWN_MIN_CHARS || n > MARKDOWN_MAX_CHARS) {
    throw new InvalidArgumentError(
      `--max-chars must be an integer from ${MARKDOWN_MIN_CHARS} to ${MARKDOWN_MAX_CHARS}.`,
    );
  }
  return n;
}

/**
 * The policy and size options shared by plan, drift and compare; `behaviour`: the command has a
 * Behaviour section (plan), so `--fail-on` offers its class (drift and compare refuse it).
 */
export function addReviewOptions(command: Command, { behaviour = false } = {}): Command {
  const tests = behaviour ? `; or ${FAILS_TESTS}: a rule test does not pass after the plan` : '';
  return command
    .option(
      '--fail-on <CLASS,...>',
      `exit 3 when a change has one of these security impact classes: ${IMPACT_CLASSES.join(', ')}; or ${CHANGES_TRUST}: the work tree changes what --trusted-ref pins${tests}`,
      parseFailOn,
    )
    .option(
      '--max-chars <N>',
      `with --format markdown: the most characters the output may have (default ${MARKDOWN_MAX_CHARS}, GitHub's limit for a comment)`,
      parseMaxChars,
    );
}

/**
 * `--trusted-ref REF` on every command that reads configuration (src/cli/workspace.ts): the
 * connections, the `variables` allow-list, the policy settings and `manage` are read from git at REF.
 */
export function addTrustOption(command: Command): Command {
  return command.option(
    '--trusted-ref <REF>',
    "read wafctl.yaml's connections, the variables allow-list, settings.firewall_actions, settings.safety, manage and the rule tests that judge a plan from this git ref (e.g. origin/main), not from the work tree (env: WAFCTL_TRUSTED_REF)",
  );
}

/** `--target`, `--exclude` and `--kind` (src/plan/targets.ts), each repeatable. */
export interface SelectionFlags {
  target: string[];
  exclude: string[];
  kind: string[];
}

const repeatable = (flags: string, description: string): Option =>
  new Option(flags, description)
    .argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value])
    .default([]);

/** Targeted runs on plan, apply and drift: the plan holds only the matching changes. */
export function addSelectionOptions(command: Command): Command {
  return command
    .addOption(
      repeatable(
        '--target <ADDRESS>',
        'only changes to this address, as plans print it (KIND.KEY; * matches any characters), e.g. application_rule.shop.example.com/*; repeatable',
      ),
    )
    .addOption(
      repeatable('--exclude <ADDRESS>', 'leave out changes to this address (as --target); repeatable'),
    )
    .addOption(repeatable('--kind <KIND>', `only changes of this kind: ${FAMILIES}; repeatable`));
}

/**
 * Where a command's help lists the families: filled in from the registry (src/kinds/) when that
 * command runs or shows its help, so the list is never written out here, and `wafctl --version` does
 * not load the families' schemas.
 */
export const FAMILIES = '{families}';

/** `groups, application-rules, ...`: the registry's sections as `--kind` and `get` spell them. */
async function familyList(): Promise<string> {
  const [{ KINDS }, { cliName }] = await Promise.all([
    import('../kinds/index.js'),
    import('../kinds/kind.js'),
  ]);
  return KINDS.map(cliName).join(', ');
}

/** Fills in `FAMILIES` in a command's option and argument texts. */
export async function describeFamilies(command: Command): Promise<void> {
  const texts = [...command.options, ...command.registeredArguments];
  if (!texts.some((item) => item.description.includes(FAMILIES))) return;
  const families = await familyList();
  for (const item of texts) item.description = item.description.replaceAll(FAMILIES, families);
}
