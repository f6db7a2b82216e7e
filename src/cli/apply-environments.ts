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
 * stopped the writes.
 */
import { mapLimited } from '../kinds/normalize.js';
import { type ApplyFlags, applyChanges, askToApply, gateOptions } from './apply.js';
import type { ApiSession } from './connection.js';
import type { Io } from './io.js';
import { ENVIRONMENT_CONCURRENCY, reportEnvironmentError, textSections, worse } from './multi-environment.js';
import { colorEnabled, writeErr, writeOut } from './output.js';

type Settled<T> = { value: T; error?: undefined } | { value?: undefined; error: unknown };

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
  interactive: boolean,
): Promise<number> {
  const { loadSelected, noteWriter } = await import('./planning.js');
  const { openApiClient } = await import('./connection.js');
  const { refreshAndPlan } = await import('../ops/refresh.js');
  const { renderTextPlan } = await import('../plan/render/text.js');
  const { applyGate } = await import('../ops/apply/gate.js');
  const { renderApplyReport } = await import('../ops/apply/report.js');
  const { applySucceeded } = await import('../ops/apply/model.js');
  const { progressReporter } = await import('./progress.js');
  const { interruptOnSignals } = await import('./interrupt.js');

  const roots = paths.length > 0 ? paths : ['.'];
  const loaded = await Promise.all(
    names.map((name) => settle(name, () => loadSelected(io, roots, { ...flags, env: [name] }, 'apply'))),
  );
  if (loaded.some(({ error }) => error !== undefined)) {
    const code = reportFailures(io, loaded);
    writeErr(io, 'Nothing was read from any firewall, and nothing was applied.');
    return code;
  }
  const environments = loaded.flatMap(({ name, value }) => (value === undefined ? [] : [{ name, ...value }]));

  const sessions: ApiSession[] = [];
  try {
    const planned = await mapLimited(
      environments,
      ENVIRONMENT_CONCURRENCY,
      ({ name, config, flags: connection }) =>
        settle(name, async () => {
          const session = await openApiClient(io, connection);
          sessions.push(session);
          const plan = await refreshAndPlan(config, session.api, {
            concurrency: flags.parallelism,
            warn: noteWriter(io, connection),
          });
          const username = config.state.settings.username;
          const gate = applyGate(plan, gateOptions(flags, interactive, username));
          return { session, plan, username, gate };
        }),
    );
    const color = colorEnabled(io, flags.color);
    writeOut(
      io,
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
      writeErr(
        io,
        `Nothing was applied to any environment: ${blocked.join(', ')} could not be applied, and several environments are applied all or nothing (apply one with --env NAME to apply it alone).`,
      );
      return code;
    }
    const approved = planned.flatMap(({ name, value }) =>
      value !== undefined && value.gate.verdict !== 'nothing' ? [{ name, ...value }] : [],
    );
    if (approved.length === 0) return 0;
    if (approved.some(({ gate }) => gate.verdict === 'confirm')) {
      const declined = await askToApply(io);
      if (declined !== undefined) return declined;
    }

    // Until the reports are out: a signal stops every environment's writes cleanly.
    const interruption = interruptOnSignals(io);
    try {
      const applied = await mapLimited(
        approved,
        ENVIRONMENT_CONCURRENCY,
        ({ name, plan, session, username }) =>
          settle(name, () =>
            applyChanges(plan, session.api, flags, {
              username,
              onCall: progressReporter(undefined, (line) => writeErr(io, `${name}: ${line}`)).onCall,
              signal: interruption.signal,
            }),
          ),
      );
      writeOut(
        io,
        `\n${textSections(
          applied.map(({ name }) => name),
          applied.map(({ value }) => value && renderApplyReport(value)),
          'No report',
        )}`,
      );
      const code = applied.reduce(
        (worst, { value }) => worse(worst, value === undefined || applySucceeded(value) ? 0 : 1),
        reportFailures(io, applied),
      );
      return interruption.exitCode() ?? code;
    } finally {
      interruption.dispose();
    }
  } finally {
    await Promise.all(sessions.map((session) => session.close()));
  }
}
