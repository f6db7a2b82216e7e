/**
 * The library's public types (docs/library.md). They are declared here, structurally, and import
 * nothing from the layers below: the package ships them as they are (dist/types/, scripts/build.mjs),
 * so a consumer type-checks them with no zod, yaml or Node types of ours installed. Where an
 * internal type must agree with one of these, src/library/ checks it at compile time.
 */

/**
 * Where the firewall's API is and how to authenticate: a token, or a sign-in that obtains one for the
 * call (the `WAF_SIGNIN_*` of the CLI). Nothing is read from the environment for it.
 */
export type FirewallConnection = TokenConnection | SignInConnection;

/** The API's base URL and a token, as `--url` and `WAF_TOKEN` give them. */
export interface TokenConnection {
  /** `http(s)://host[:port][/prefix]`. */
  url: string;
  token: string;
  /** Whole-response deadline of each request attempt, in seconds (default 60, as `--timeout`). */
  timeoutSeconds?: number | undefined;
}

/** The API's base URL and a user who signs in (`POST /api/v1/signin`) once per call. */
export interface SignInConnection {
  url: string;
  username: string;
  password: string;
  timeoutSeconds?: number | undefined;
}

/** Time and randomness of the API client (retries, deadlines): the system's when absent. */
export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
  /** Uniform in [0, 1). */
  random(): number;
}

/** An `AbortSignal` (Node's or the DOM's), declared structurally so that no DOM or Node types are needed. */
export interface AbortSignalLike {
  readonly aborted: boolean;
  readonly reason?: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** The I/O of a call, injected as the CLI's `Io` injects it into a command: nothing is read from `process`. */
export interface RunOptions {
  /** What relative paths are relative to (the CLI's current directory). */
  cwd: string;
  /**
   * The variables configuration files may read (`${VAR}`, `variables:`); none when absent. Pass
   * `process.env` to read them as the CLI does.
   */
  env?: Readonly<Record<string, string | undefined>> | undefined;
  /** Stops the call: loading configuration stops between files; an apply starts no new write. */
  signal?: AbortSignalLike | undefined;
  /** The API client's timers. */
  clock?: Partial<Clock> | undefined;
  /** Notes the CLI writes on stderr as `Note: ...` (a family the server lacks, ...): one line each. */
  onNote?: ((line: string) => void) | undefined;
  /** Debug lines (one per request, one per configuration file), as the CLI writes with WAFCTL_DEBUG=1. */
  onDebug?: ((line: string) => void) | undefined;
}

/**
 * Where the configuration is: files or directories of YAML, as the CLI's `[PATH...]`, or one
 * environment of the root's wafctl.yaml (`--env NAME`).
 */
export interface ConfigurationOptions extends RunOptions {
  /** Relative to `cwd`; default `['.']`. With environments declared, the root alone (or none). */
  paths?: readonly string[] | undefined;
  /**
   * The environment of wafctl.yaml at the configuration root to work on, as `--env NAME`: its paths,
   * overlays and vars, and for the calls that talk to a firewall its URL and credentials, read from
   * `env` (`url_env`, `token_env`, the sign-in variables). Required when the root declares
   * environments; one per call (a fleet makes one call per environment).
   */
  environment?: string | undefined;
}

/** What `validate` takes: the configuration, and whether the rule lint's warnings make it invalid. */
export interface ValidateOptions extends ConfigurationOptions {
  /** As `--strict`: a configuration with warnings is `valid: false`, its warnings also its problems. */
  strict?: boolean | undefined;
}

/**
 * The firewall a call talks to: the one `connection` names, or the one `environment` declares in
 * wafctl.yaml (its URL and credentials); with an environment, `connection` may only set the timeout.
 */
export type FirewallTarget =
  | { connection: FirewallConnection; environment?: undefined }
  | { environment: string; connection?: ConnectionSettings | undefined };

/** How a call talks to the firewall an environment declares (which says where, and as whom). */
export interface ConnectionSettings {
  /** Whole-response deadline of each request attempt, in seconds (default 60, as `--timeout`). */
  timeoutSeconds?: number | undefined;
  /** The environment says where and as whom: a connection's URL and credentials are refused with it. */
  url?: undefined;
  token?: undefined;
  username?: undefined;
  password?: undefined;
}

/** `--target ADDRESS` (glob `*`), `--exclude ADDRESS` and `--kind KIND`: only the selected changes. */
export interface SelectionOptions {
  target?: readonly string[] | undefined;
  exclude?: readonly string[] | undefined;
  kind?: readonly string[] | undefined;
}

/** What `plan` and `drift` take: the configuration, the firewall and the selection. */
export type PlanOptions = ConfigurationOptions & FirewallTarget & SelectionOptions;

/** A security impact class, `changes_trust` or `fails_tests`: what `--fail-on` names. */
export type FailOnClass =
  | 'weakens_protection'
  | 'broadens_access'
  | 'reduces_audit'
  | 'changes_trust'
  | 'fails_tests';

/** What `apply` takes: a plan's options, and how its changes are judged, approved and written. */
export type ApplyOptions = PlanOptions & ApplyChoices;

/** How `apply` judges, approves and writes the changes. */
export interface ApplyChoices {
  /**
   * Asked before anything is written when the plan has changes and passes the gate, with the plan
   * as the CLI shows it (text): `true` approves, as `yes` at the CLI's prompt. Without it, the plan
   * is applied as with `--auto-approve`.
   */
  confirm?: ((plan: string) => boolean | Promise<boolean>) | undefined;
  /** `--fail-on`: refuse the whole apply (exit code 3) when a change has one of these classes. */
  failOn?: readonly FailOnClass[] | undefined;
  /** `--force`: apply even when deletes exceed the safety threshold. */
  force?: boolean | undefined;
  /** `--allow-partial`: apply the other objects' changes when some could not be planned. */
  allowPartial?: boolean | undefined;
  /** `--parallelism`: write calls in flight (default 8). */
  parallelism?: number | undefined;
  /** `--batch-size`: objects per bulk call (default 100). */
  batchSize?: number | undefined;
  /**
   * `--wait`: after the writes, wait until every action of the application rules created, replaced
   * or updated is synced to its firewall; the report's `enforcement` says what was found, and its
   * `exit_code` is 1 when an action is in sync error or not synced by the timeout.
   */
  wait?: boolean | undefined;
  /** `--wait-timeout`, in seconds (default 300); implies `wait`. */
  waitTimeoutSeconds?: number | undefined;
  /** The text the CLI shows: the plan, then the apply report. */
  onText?: ((text: string) => void) | undefined;
}

/**
 * What `exportState` takes: the firewall (an `environment` of wafctl.yaml in `cwd`, as `export --env
 * NAME` reads it from the current directory) and what to export.
 */
export type ExportOptions = RunOptions & FirewallTarget & ExportChoices;

/** What to export, and where. */
export interface ExportChoices {
  /** `--kind`: only these families (any spelling `export --kind` takes); every one when absent. */
  kind?: readonly string[] | undefined;
  /**
   * `--dir DIR`, relative to `cwd`: where the files are meant to go, which their schema line points
   * from; `cwd` when absent. Written there only with `write`.
   */
  dir?: string | undefined;
  /** Write the files into `dir`, as `export --dir` does (replacing only files export wrote, unless `force`). */
  write?: boolean | undefined;
  /** `--force`: with `write`, also replace files in `dir` that export did not write. */
  force?: boolean | undefined;
  /** `--redact-secrets`: write `[REDACTED]` where the live state holds the API token (else refused). */
  redactSecrets?: boolean | undefined;
}

/** One file of an export: `groups.yaml`, `application-rules.yaml`, ... and its YAML. */
export interface ExportedFile {
  name: string;
  text: string;
}

/** An object the export left out, and why (the CLI warns `Warning: KIND ID (KEY) left out: REASON.`). */
export interface LeftOutObject {
  kind: string;
  id: string;
  key: string;
  reason: string;
}

/** What `exportState` gives: the files `export --dir` writes, one per family, in plan order. */
export interface ExportedState {
  files: ExportedFile[];
  leftOut: LeftOutObject[];
  /** Files over the 5 MiB a configuration file may hold: wafctl could not load them back. */
  oversized: string[];
}

/** The families of the configuration, as its YAML sections name them. */
export type FamilySection =
  | 'groups'
  | 'application_rules'
  | 'notifications'
  | 'schedules'
  | 'network_rule_settings';

/** The stable codes of the errors the library throws (`error.code`; docs/library.md). */
export type ErrorCode =
  | 'USAGE'
  | 'CONFIG_INVALID'
  | 'CONNECTION'
  | 'API_ERROR'
  | 'API_RESPONSE_INVALID'
  | 'API_NETWORK'
  | 'API_REDIRECT'
  | 'INCOMPLETE_LISTING'
  | 'EMULATOR_STATE'
  | 'PLAN_REFUSED'
  | 'POLICY_REFUSED';

/** An error of wafctl's own (`isWafctlError`): anything else thrown is a bug or the caller's. */
export interface WafctlErrorLike extends Error {
  readonly code: ErrorCode;
  /** True when the input is at fault (configuration, options), false when the system failed. */
  readonly userFault: boolean;
}

/**
 * What `test` takes: the configuration (one environment's, with `environment`), and with `live`
 * the firewall whose application rules the cases run against (a `connection`, or the environment's);
 * without it, the configuration's own rules, offline.
 */
export type TestOptions = ConfigurationOptions & TestTarget;

/** Offline (the configuration's rules), or `live: true` with the firewall to read the rules from. */
export type TestTarget =
  | { live?: false | undefined; connection?: undefined }
  | ({ live: true } & FirewallTarget);

/** An outcome of a rule test: the deciding rule's `firewall_action` (or `none`), the rule and its firewall. */
export interface TestOutcome {
  action: string;
  /** The deciding rule's key, `RQ_HOST/DESCRIPTION` (expected: only when the case names one). */
  rule?: string;
  /** The firewall of the action (expected: only when the case names one). */
  firewall?: string;
}

/** One case of a rule-test report. */
export interface TestCaseReport {
  name: string;
  /** Where the case is declared. */
  file: string;
  line: number;
  col: number;
  status: 'pass' | 'fail' | 'error';
  expected: TestOutcome;
  /** What happened; absent when the case could not be evaluated (`error`). */
  actual?: TestOutcome;
  /** One line: what decided (pass), why not as expected (fail), why it could not be evaluated (error). */
  reason: string;
  /**
   * For a failure: the closest rule that did not apply, its first condition that did not match
   * (0-based; null when none failed: the rule is disabled, for another host, or came second), and why.
   */
  closest?: { rule: string; condition: number | null; why: string };
}

/** What `test` gives: `wafctl test --format json` (schemas/test-report.schema.json). */
export interface TestReport {
  format_version: 1;
  source: 'configuration' | 'live';
  /** The environment tested, null without one. */
  environment: string | null;
  /** How many application rules the cases ran against. */
  rules: number;
  /** Whether every case passed. */
  passed: boolean;
  summary: { total: number; passed: number; failed: number; errors: number };
  /** Every case, in the order the configuration declares them. */
  cases: TestCaseReport[];
}
