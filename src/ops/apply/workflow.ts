/**
 * The apply workflow: plan, show the plan, gate, confirm, apply, report. `applyToFirewall` applies
 * to one firewall (the PATHs', one environment's, or a saved plan's); `applyToEnvironments` to
 * several environments at once. The workflow talks to each firewall through the client it is given
 * and to people through the `ApplyIo` it is given, so it reads no process state and prints nothing
 * itself: the CLI (cli/apply.ts) and a library call it alike.
 *
 * Several environments (`--env all`, or `--env` repeated) are all or nothing at the gate:
 *
 * 1. Every environment's configuration is loaded first: a problem in any, and nothing is read from
 *    any firewall.
 * 2. Each environment is planned against its own firewall (`--concurrency` at a time, default two, each with its own client
 *    and secrets), and every plan is shown under `== Environment: NAME ==`.
 * 3. The gate, per environment, as a single apply judges it (`--fail-on`, the safety threshold,
 *    objects that could not be planned, a secret). If any environment could not be planned or was
 *    refused, nothing is applied to any: one merge is one change, and applying half of it would leave
 *    the environments diverged. (Independent applies are one run, or one CI job, per environment.)
 * 4. One prompt approves every environment (none with `--auto-approve`), then each is applied, two
 *    at a time, through the session it was planned on. One interrupt stops them all cleanly; an
 *    environment whose apply fails does not stop the others (they were approved together).
 *
 * Progress lines name their environment; the reports follow the plans, one section each. The exit
 * code is the worst of the environments' (ops/environments.ts), or the signal's when one stopped
 * the writes.
 */

import type { ApiClient } from '../../api/index.js';
import type { LoadedConfig } from '../../config/validate-sources.js';
import { exitCodeFor } from '../../core/errors.js';
import { worstImpact } from '../../core/fleet-summary.js';
import type { Plan, PlanTrust } from '../../core/model.js';
import { mapLimited } from '../../kinds/normalize.js';
import type { SummaryRow } from '../../plan/render/environments.js';
import {
  environmentHeading,
  failedSummary,
  resultOf,
  textSections,
  textSummaryTable,
} from '../../plan/render/environments.js';
import { renderTextPlan } from '../../plan/render/text.js';
import type { Selection } from '../../plan/targets.js';
import { concurrencyOf, type Settled, settle, worse } from '../environments.js';
import { refreshAndPlan, withTrust } from '../refresh.js';
import { type ApplyOptions, applyPlan } from './applier.js';
import { type ApplyVerdict, applyGate, type GateOptions } from './gate.js';
import { type ApplyReport, applyExitCode, type CallEvent } from './model.js';
import { type BehaviourTests, replanSavedPlan } from './replan.js';
import { renderApplyReport, renderEnforcement, waitingLine } from './report.js';
import { type ApplyReportJson, applyReportDocument, unappliedReportDocument } from './report-document.js';
import type { PlanPolicy, SavedPlan } from './saved-plan.js';
import { type WaitTimer, waitClock, waitForEnforcement, writtenRules } from './wait.js';

/** How a run judges and writes its changes: the gate's options and the applier's, from the flags. */
export interface ApplySettings
  extends Omit<GateOptions, 'username'>,
    Pick<ApplyOptions, 'parallelism' | 'batchSize'> {
  /** `--target`, `--exclude`, `--kind`: a fresh plan holds only the selected changes. */
  selection?: Selection | undefined;
  /** Whether the text plan is shown in colour. */
  color: boolean;
  /**
   * `--wait`: after the writes, wait up to `timeoutMs` until the rules written are enforced
   * (wait.ts); an action not synced by then, or in error, makes the exit code 1.
   */
  wait?: { timeoutMs: number } | undefined;
  /** `--concurrency N`: environments planned, and applied, at once (default ENVIRONMENT_CONCURRENCY). */
  concurrency?: number | undefined;
}

/** Environments by name, with their reports (`null`: not planned) and the errors of those that failed. */
export interface EnvironmentReports {
  documents: readonly (readonly [string, ApplyReportJson | null])[];
  errors?: readonly (readonly [string, unknown])[];
}

/** Where the workflow's output goes: text for people, and the JSON apply report for machines. */
export interface ApplyReporter {
  /** Text for people: the plans and the apply reports. */
  show(text: string): void;
  /** Whether a JSON report is wanted at all (else building one is skipped). */
  readonly wanted: boolean;
  /** One firewall's report. */
  report(document: ApplyReportJson): Promise<void>;
  /** Several environments' reports, in order (`null` for one that could not be planned). */
  reportEnvironments(reports: EnvironmentReports): Promise<void>;
}

/** What the progress of the calls to one firewall is told. */
export interface Progress {
  onCall(event: CallEvent): void;
  /** The apply is over (a live line is cleared). */
  finish(): void;
}

/** How the writes are stopped: `signal` is aborted by an interrupt. */
export interface Interruption {
  signal: AbortSignal;
  /** The exit code of the first signal received, if one was. */
  exitCode(): number | undefined;
  /** Removes the handlers: signals take their default effect again. */
  dispose(): void;
}

/** Everything the workflow shows, asks and reports through, and how it is stopped: the caller's I/O. */
export interface ApplyIo {
  output: ApplyReporter;
  /** A line for people beside the output: why nothing was applied to several environments. */
  tell(line: string): void;
  /** A note of the refresh (the run goes on), naming the environment when there is one. */
  note(line: string, environment: string | undefined): void;
  /** Asks a person to approve: undefined when they did, else the exit code (declined, cancelled). */
  confirm(): Promise<number | undefined>;
  /** The progress of the calls to one firewall; `environment` names it when several apply at once. */
  progress(environment?: string): Progress;
  /** Until it is disposed, an interrupt stops the writes cleanly instead of ending the run. */
  interrupt(): Interruption;
  /** Milliseconds on the run's clock. */
  now(): number;
  /** Waits `ms` on the run's clock (`apply --wait`); absent: Node's timers. */
  sleep?: ((ms: number) => Promise<void>) | undefined;
  /** The run's clock's timer (`apply --wait`'s deadline, wait.ts); absent: Node's timers. */
  timer?: WaitTimer | undefined;
  /** Reports an environment's failure (`Error: NAME: ...`) and gives its exit code. */
  failed(error: unknown, environment: string): number;
}

/** A configuration to plan, with the trusted ref's Trust section when there is one. */
export interface ConfigToPlan {
  config: LoadedConfig;
  trust?: PlanTrust | undefined;
}

/**
 * What one firewall's apply plans from: a configuration, or a saved plan (rebuilt from the live
 * objects, judged by the policy in force, and with `tests` by the configuration's rule tests: its
 * Behaviour section); `environment` names the environment selected, if any.
 */
export type ApplySource = { environment?: string | undefined } & (
  | ({ from: 'config' } & ConfigToPlan)
  | {
      from: 'saved';
      saved: SavedPlan;
      policy: PlanPolicy;
      trust?: PlanTrust | undefined;
      tests?: BehaviourTests | undefined;
    }
);

/** A client, and the end of its session. */
export interface Session {
  api: ApiClient;
  close(): Promise<void>;
}

/** One of several environments, loaded: its configuration, and how to open a session with its firewall. */
export interface LoadedEnvironment extends ConfigToPlan {
  connect(): Promise<Session>;
}

/** Applies a configuration or a saved plan to one firewall; returns the exit code. */
export async function applyToFirewall(
  source: ApplySource,
  api: ApiClient,
  settings: ApplySettings,
  io: ApplyIo,
): Promise<number> {
  const { plan, username } = await planOf(source, api, settings, io);
  const heading = environmentHeading(source.environment);
  if (heading !== undefined) io.output.show(heading);
  io.output.show(renderTextPlan(plan, { color: settings.color }));

  const gate = applyGate(plan, { ...settings, username });
  const notApplied = async (reason: string, exitCode: number) => {
    if (io.output.wanted)
      await io.output.report(unappliedReportDocument(plan, reason, { exit_code: exitCode, duration_ms: 0 }));
    return exitCode;
  };
  if (gate.verdict === 'nothing') return notApplied('no changes', 0);
  if (gate.verdict === 'refuse') {
    await notApplied(gate.error.message, exitCodeFor(gate.error));
    throw gate.error;
  }
  if (gate.verdict === 'confirm') {
    const declined = await io.confirm();
    if (declined !== undefined) return notApplied('declined at the prompt', declined);
  }
  return applyApproved(plan, api, username, settings, io);
}

/** The plan to apply, and the user name rules are created with. */
async function planOf(
  source: ApplySource,
  api: ApiClient,
  settings: ApplySettings,
  io: ApplyIo,
): Promise<{ plan: Plan; username: string }> {
  if (source.from === 'config') {
    const warn = (line: string) => io.note(line, source.environment);
    const plan = await freshPlan(source, api, settings, warn);
    return { plan, username: source.config.state.settings.username };
  }
  // A saved plan is rebuilt from the live objects and its intent: nothing it says about what a
  // change does (fields, before/after, impact, warnings, behaviour) is believed.
  const { saved, policy, tests } = source;
  const plan = await replanSavedPlan(saved, api, settings.parallelism, policy, tests);
  return { plan: withTrust(plan, source.trust), username: saved.username };
}

/** A fresh plan of the configuration: its selected changes, with its Trust section. */
function freshPlan(
  { config, trust }: ConfigToPlan,
  api: ApiClient,
  settings: ApplySettings,
  warn: (line: string) => void,
): Promise<Plan> {
  const { parallelism: concurrency, selection } = settings;
  return refreshAndPlan(config, api, { concurrency, warn, selection, trust });
}

/** Carries out an approved plan, showing its progress and its report; returns the exit code. */
async function applyApproved(
  plan: Plan,
  api: ApiClient,
  username: string,
  settings: ApplySettings,
  io: ApplyIo,
): Promise<number> {
  const progress = io.progress();
  // Until the report is out: a signal stops the apply cleanly instead of killing it mid-way.
  const interruption = io.interrupt();
  try {
    const started = io.now();
    const { signal } = interruption;
    const applied = await applyPlan(plan, api, { ...settings, username, onCall: progress.onCall, signal });
    progress.finish();
    io.output.show(`\n${renderApplyReport(applied)}`);
    const report = await waitIfAsked(applied, api, settings, io, { signal, tell: io.output.show });
    if (report.enforcement !== undefined) io.output.show(`\n${renderEnforcement(report.enforcement)}`);
    const exitCode = interruption.exitCode() ?? applyExitCode(report);
    if (io.output.wanted) {
      await io.output.report(
        applyReportDocument(report, { exit_code: exitCode, duration_ms: io.now() - started }),
      );
    }
    return exitCode;
  } finally {
    interruption.dispose();
  }
}

/**
 * With `--wait`, `report` with the enforcement of the rules it wrote (wait.ts), after `tell`ing that
 * it waits; else `report` as it is. Reads as many at once, and as many per listing, as the writes.
 */
async function waitIfAsked(
  report: ApplyReport,
  api: ApiClient,
  settings: ApplySettings,
  io: ApplyIo,
  { signal, tell }: { signal: AbortSignal; tell: (line: string) => void },
): Promise<ApplyReport> {
  if (settings.wait === undefined) return report;
  const rules = writtenRules(report);
  const { timeoutMs } = settings.wait;
  const waiting = waitingLine(rules.length, timeoutMs);
  if (waiting !== '') tell(waiting);
  const enforcement = await waitForEnforcement(api, rules, {
    timeoutMs,
    concurrency: settings.parallelism,
    batchSize: settings.batchSize,
    clock: waitClock(io.now, io.sleep, io.timer),
    signal,
  });
  return { ...report, enforcement };
}

/** One environment, planned: its open session, its plan, and the gate's verdict on it. */
interface PlannedEnvironment {
  session: Session;
  plan: Plan;
  username: string;
  gate: ApplyVerdict;
}

/**
 * Applies to several environments, all or nothing at the gate (see the module comment); `load`
 * loads one by name. Returns the worst exit code.
 */
export async function applyToEnvironments(
  names: readonly string[],
  load: (name: string) => Promise<LoadedEnvironment>,
  settings: ApplySettings,
  io: ApplyIo,
): Promise<number> {
  const loaded = await Promise.all(names.map((name) => settle(name, () => load(name))));
  if (loaded.some(({ error }) => error !== undefined)) {
    const code = reportFailures(loaded, io);
    io.tell('Nothing was read from any firewall, and nothing was applied.');
    if (io.output.wanted) await io.output.reportEnvironments(environmentReports(loaded));
    return code;
  }
  const environments = loaded.flatMap(({ name, value }) => (value === undefined ? [] : [{ name, value }]));
  const sessions: Session[] = [];
  try {
    const planned = await mapLimited(
      environments,
      concurrencyOf(settings.concurrency),
      ({ name, value: environment }) =>
        settle(name, async () => {
          const session = await environment.connect();
          sessions.push(session);
          const plan = await freshPlan(environment, session.api, settings, (line) => io.note(line, name));
          const username = environment.config.state.settings.username;
          return { session, plan, username, gate: applyGate(plan, { ...settings, username }) };
        }),
    );
    return await gateEnvironments(names, planned, settings, io);
  } finally {
    await Promise.all(sessions.map((session) => session.close()));
  }
}

/** An environment's row in the table that opens a fleet apply: its plan, or why it stops the apply. */
function gateRow({ name, value, error }: Settled<PlannedEnvironment>): SummaryRow {
  if (value === undefined) return { name, summary: failedSummary(error) };
  if (value.gate.verdict === 'refuse')
    return { name, summary: { ...failedSummary(value.gate.error), result: 'refused' } };
  const count = value.plan.changes.length;
  return {
    name,
    summary: {
      result: resultOf('plan', count),
      count,
      impact: worstImpact(value.plan.summary.impact),
      error: null,
    },
  };
}

/**
 * Shows every plan, then applies nothing when any environment could not be planned or was refused,
 * asks once when a change needs approval, and applies the environments with changes.
 */
async function gateEnvironments(
  names: readonly string[],
  planned: readonly Settled<PlannedEnvironment>[],
  settings: ApplySettings,
  io: ApplyIo,
): Promise<number> {
  const plans = planned.map(({ value }) => value && renderTextPlan(value.plan, { color: settings.color }));
  io.output.show(`${textSummaryTable(planned.map(gateRow))}${textSections(names, plans, 'No plan')}`);

  const refusals = planned.map(({ name, value, error }) => ({
    name,
    error: value?.gate.verdict === 'refuse' ? value.gate.error : error,
  }));
  const blocked = refusals.filter(({ error }) => error !== undefined).map(({ name }) => name);
  if (blocked.length > 0) {
    const code = reportFailures(refusals, io);
    const why = `${blocked.join(', ')} could not be applied, and several environments are applied all or nothing`;
    io.tell(`Nothing was applied to any environment: ${why} (apply one with --env NAME to apply it alone).`);
    return reportPlanned(planned, code, io, (plan, name) => {
      const own = refusals.find((refusal) => refusal.name === name)?.error;
      const reason = own instanceof Error ? own.message : why;
      return unappliedReportDocument(plan, reason, { exit_code: code, duration_ms: 0 });
    });
  }
  const approved = planned.flatMap(({ name, value }) =>
    value !== undefined && value.gate.verdict !== 'nothing' ? [{ name, ...value }] : [],
  );
  if (approved.length === 0) return reportPlanned(planned, 0, io);
  if (approved.some(({ gate }) => gate.verdict === 'confirm')) {
    const declined = await io.confirm();
    if (declined !== undefined) {
      return reportPlanned(planned, declined, io, (plan) =>
        unappliedReportDocument(plan, 'declined at the prompt', { exit_code: declined, duration_ms: 0 }),
      );
    }
  }
  return applyApprovedEnvironments(approved, planned, settings, io);
}

/**
 * Applies each approved environment through the session it was planned on, two at a time, then
 * shows the reports; one interrupt stops every environment's writes cleanly.
 */
async function applyApprovedEnvironments(
  approved: readonly (PlannedEnvironment & { name: string })[],
  planned: readonly Settled<PlannedEnvironment>[],
  settings: ApplySettings,
  io: ApplyIo,
): Promise<number> {
  // Until the reports are out: a signal stops every environment's writes cleanly.
  const interruption = io.interrupt();
  try {
    const applied = await mapLimited(
      approved,
      concurrencyOf(settings.concurrency),
      ({ name, plan, session, username }) =>
        settle(name, async () => {
          const started = io.now();
          const { onCall } = io.progress(name);
          const { signal } = interruption;
          const applied = await applyPlan(plan, session.api, { ...settings, username, onCall, signal });
          const tell = (line: string) => io.tell(`${name}: ${line.trim()}`);
          const report = await waitIfAsked(applied, session.api, settings, io, { signal, tell });
          return { report, durationMs: io.now() - started };
        }),
    );
    const reports = applied.map(({ value }) => value && renderApplyReport(value.report));
    io.output.show(
      `\n${textSections(
        applied.map(({ name }) => name),
        reports,
        'No report',
      )}`,
    );
    const code =
      interruption.exitCode() ??
      applied.reduce(
        (worst, { value }) => worse(worst, value === undefined ? 0 : applyExitCode(value.report)),
        reportFailures(applied, io),
      );
    return reportPlanned(planned, code, io, (plan, name) => {
      const done = applied.find((one) => one.name === name)?.value;
      return done === undefined
        ? unappliedReportDocument(plan, 'no changes', { exit_code: code, duration_ms: 0 })
        : applyReportDocument(done.report, { exit_code: code, duration_ms: done.durationMs });
    });
  } finally {
    interruption.dispose();
  }
}

/**
 * The JSON reports (when wanted) of the planned environments: `document` of each one's plan, `null`
 * for one that could not be planned. Returns `exitCode`.
 */
async function reportPlanned(
  planned: readonly Settled<PlannedEnvironment>[],
  exitCode: number,
  io: ApplyIo,
  document: (plan: Plan, name: string) => ApplyReportJson = (plan) =>
    unappliedReportDocument(plan, 'no changes', { exit_code: exitCode, duration_ms: 0 }),
): Promise<number> {
  if (!io.output.wanted) return exitCode;
  await io.output.reportEnvironments(
    environmentReports(planned, (value, name) => document(value.plan, name)),
  );
  return exitCode;
}

/**
 * The environments' reports: `document` of each one's value (none: `null`, as for environments none
 * of which was planned), `null` for one that failed, and the errors of those that failed.
 */
function environmentReports<T>(
  outcomes: readonly Settled<T>[],
  document: (value: T, name: string) => ApplyReportJson | null = () => null,
): EnvironmentReports {
  return {
    documents: outcomes.map(
      ({ name, value }) => [name, value === undefined ? null : document(value, name)] as const,
    ),
    errors: outcomes.flatMap(({ name, error }) => (error === undefined ? [] : [[name, error] as const])),
  };
}

/** Reports each failure (`Error: NAME: ...`); returns the worst exit code (0 when none failed). */
function reportFailures(outcomes: readonly { name: string; error?: unknown }[], io: ApplyIo): number {
  let code = 0;
  for (const { name, error } of outcomes) {
    if (error !== undefined) code = worse(code, io.failed(error, name));
  }
  return code;
}
