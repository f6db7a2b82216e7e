/**
 * `apply` with several environments (`--env all`, or `--env` repeated): all or nothing at the gate.
 *
 * 1. Every environment's configuration is loaded first: a problem in any, and nothing is read from
 *    any firewall.
 * 2. Each environment is planned against its own firewall (two at a time, each with its own client
 *    and secrets), and every plan is printed under `== Environment: NAME ==`.
 * 3. The gate, per environment, as a single apply judges it (`--fail-on`, the safety threshold,
 *    objects that could not be planned, a secret). If any environment could not be planned or was
 *    refused, nothing is applied to any: one merge is one change, and applying half of it would leave
 *    the environments diverged. (Independent applies are one run, or one CI job, per environment.)
 * 4. One prompt approves every environment (none with `--auto-approve`), then each is applied, two
 *    at a time, through the session it was planned on. One interrupt stops them all cleanly; an
 *    environment whose apply fails does not stop the others (they were approved together).
 *
 * Progress lines on stderr name their environment; the reports follow the plans, one section each.
 * The exit code is the worst of the environments' (multi-environment.ts), or 130/143 when a signal
 * stopped the writes. Loaded only when several environments are applied (apply.ts imports it lazily).
 */

import type { Plan } from '../core/model.js';
import { mapLimited } from '../kinds/normalize.js';
import { applyGate } from '../ops/apply/gate.js';
import { applySucceeded } from '../ops/apply/model.js';
import { renderApplyReport } from '../ops/apply/report.js';
import {
  type ApplyReportJson,
  applyReportDocument,
  unappliedReportDocument,
} from '../ops/apply/report-document.js';
import { renderTextPlan } from '../plan/render/text.js';
import type { Selection } from '../plan/targets.js';
import { type ApplyFlags, applyChanges, askToApply, freshPlan, gateOptions, now } from './apply.js';
import type { ApplyOutput, EnvironmentReports } from './apply-output.js';
import { type ApiSession, openApiClient } from './connection.js';
import { interruptOnSignals } from './interrupt.js';
import type { Io } from './io.js';
import { ENVIRONMENT_CONCURRENCY, reportEnvironmentError, textSections, worse } from './multi-environment.js';
import { colorEnabled, writeErr } from './output.js';
import { loadSelected, withTrust } from './planning.js';
import { progressReporter } from './progress.js';

type Settled<T> = { value: T; error?: undefined } | { value?: undefined; error: unknown };

/**
 * The environments' reports: `document` of each one's value (none: `null`, as for environments none
 * of which was planned), `null` for one that failed, and the errors of those that failed.
 */
function environmentReports<T>(
  outcomes: readonly (Settled<T> & { name: string })[],
  document: (value: T, name: string) => ApplyReportJson | null = () => null,
): EnvironmentReports {
  return {
    documents: outcomes.map(
      ({ name, value }) => [name, value === undefined ? null : document(value, name)] as const,
    ),
    errors: outcomes.flatMap(({ name, error }) => (error === undefined ? [] : [[name, error] as const])),
  };
}

/** What `work` gave for one environment, or the error it threw. */
async function settle<T>(name: string, work: () => Promise<T>): Promise<Settled<T> & { name: string }> {
  try {
    return { name, value: await work() };
  } catch (error) {
    return { name, error };
  }
}

/** Prints each failure as `Error: NAME: ...`; returns the worst exit code (0 when none failed). */
function reportFailures(io: Io, outcomes: readonly { name: string; error?: unknown }[]): number {
  let code = 0;
  for (const { name, error } of outcomes) {
    if (error !== undefined) code = worse(code, reportEnvironmentError(io, error, name));
  }
  return code;
}

export async function applyEnvironments(
  io: Io,
  paths: readonly string[],
  names: readonly string[],
  flags: ApplyFlags,
  {
    interactive,
    selection,
    output,
  }: { interactive: boolean; selection: Selection | undefined; output: ApplyOutput },
): Promise<number> {
  const roots = paths.length > 0 ? paths : ['.'];
  const loaded = await Promise.all(
    names.map((name) => settle(name, () => loadSelected(io, roots, { ...flags, env: [name] }, 'apply'))),
  );
  if (loaded.some(({ error }) => error !== undefined)) {
    const code = reportFailures(io, loaded);
    writeErr(io, 'Nothing was read from any firewall, and nothing was applied.');
    if (output.wanted) await output.reportEnvironments(environmentReports(loaded));
    return code;
  }
  const environments = loaded.flatMap(({ name, value }) => (value === undefined ? [] : [{ name, ...value }]));

  const sessions: ApiSession[] = [];
  try {
    const planned = await mapLimited(
      environments,
      ENVIRONMENT_CONCURRENCY,
      ({ name, config, flags: connection, trust }) =>
        settle(name, async () => {
          const session = await openApiClient(io, connection);
          sessions.push(session);
          const fresh = await freshPlan(config, session.api, {
            io,
            connection,
            concurrency: flags.parallelism,
            selection,
          });
          const plan = withTrust(fresh, trust);
          const username = config.state.settings.username;
          const gate = applyGate(plan, gateOptions(flags, interactive, username));
          return { session, plan, username, gate };
        }),
    );
    /** The JSON reports (when wanted): every environment's, `null` for one that could not be planned. */
    const reportAll = async (
      exitCode: number,
      document: (plan: Plan, name: string) => ApplyReportJson = (plan) =>
        unappliedReportDocument(plan, 'no changes', { exitCode, durationMs: 0 }),
    ) => {
      if (!output.wanted) return exitCode;
      await output.reportEnvironments(
        environmentReports(planned, (value, name) => document(value.plan, name)),
      );
      return exitCode;
    };
    const color = colorEnabled(io, flags.color);
    output.show(
      textSections(
        names,
        planned.map(({ value }) => value && renderTextPlan(value.plan, { color })),
        'No plan',
      ),
    );

    const refusals = planned.map(({ name, value, error }) => ({
      name,
      error: value?.gate.verdict === 'refuse' ? value.gate.error : error,
    }));
    const blocked = refusals.filter(({ error }) => error !== undefined).map(({ name }) => name);
    if (blocked.length > 0) {
      const code = reportFailures(io, refusals);
      const why = `${blocked.join(', ')} could not be applied, and several environments are applied all or nothing`;
      writeErr(
        io,
        `Nothing was applied to any environment: ${why} (apply one with --env NAME to apply it alone).`,
      );
      return reportAll(code, (plan, name) => {
        const own = refusals.find((refusal) => refusal.name === name)?.error;
        const reason = own instanceof Error ? own.message : why;
        return unappliedReportDocument(plan, reason, { exitCode: code, durationMs: 0 });
      });
    }
    const approved = planned.flatMap(({ name, value }) =>
      value !== undefined && value.gate.verdict !== 'nothing' ? [{ name, ...value }] : [],
    );
    if (approved.length === 0) return reportAll(0);
    if (approved.some(({ gate }) => gate.verdict === 'confirm')) {
      const declined = await askToApply(io, output.prompt);
      if (declined !== undefined) {
        return reportAll(declined, (plan) =>
          unappliedReportDocument(plan, 'declined at the prompt', { exitCode: declined, durationMs: 0 }),
        );
      }
    }

    // Until the reports are out: a signal stops every environment's writes cleanly.
    const interruption = interruptOnSignals(io);
    try {
      const applied = await mapLimited(
        approved,
        ENVIRONMENT_CONCURRENCY,
        ({ name, plan, session, username }) =>
          settle(name, async () => {
            const started = now(io);
            const report = await applyChanges(plan, session.api, flags, {
              username,
              onCall: progressReporter(undefined, (line) => writeErr(io, `${name}: ${line}`)).onCall,
              signal: interruption.signal,
            });
            return { report, durationMs: now(io) - started };
          }),
      );
      output.show(
        `\n${textSections(
          applied.map(({ name }) => name),
          applied.map(({ value }) => value && renderApplyReport(value.report)),
          'No report',
        )}`,
      );
      const code =
        interruption.exitCode() ??
        applied.reduce(
          (worst, { value }) => worse(worst, value === undefined || applySucceeded(value.report) ? 0 : 1),
          reportFailures(io, applied),
        );
      return reportAll(code, (plan, name) => {
        const done = applied.find((one) => one.name === name)?.value;
        return done === undefined
          ? unappliedReportDocument(plan, 'no changes', { exitCode: code, durationMs: 0 })
          : applyReportDocument(done.report, { exitCode: code, durationMs: done.durationMs });
      });
    } finally {
      interruption.dispose();
    }
  } finally {
    await Promise.all(sessions.map((session) => session.close()));
  }
}
