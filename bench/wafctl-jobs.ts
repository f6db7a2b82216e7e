/**
 * wafctl's side of a scenario: the functions `wafctl plan` and `wafctl apply --auto-approve` run,
 * with the CLI's defaults, in the CLI's order (modules loaded lazily, configuration loaded before
 * any request, the plan and the report rendered as text and discarded instead of printed).
 */

import type { Io } from '../src/cli/io.js';
import { DEFAULT_BATCH_SIZE, DEFAULT_PARALLELISM, HYDRATION_CONCURRENCY } from '../src/ops/defaults.js';
import type { JobOutcome } from './jobs.js';
import { phaseClock } from './jobs.js';

/** The process's own streams and environment, as main.ts hands them to a command; no signal handling. */
const benchIo: Io = {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  cwd: process.cwd(),
  onSignal: () => () => undefined,
  exit: (code) => process.exit(code),
};

export async function planJob(job: { url: string; configDir: string }): Promise<JobOutcome> {
  const clock = phaseClock();
  const { loadDesiredState } = await import('../src/config/load.js');
  const { withApiClient } = await import('../src/cli/connection.js');
  const { refreshAndPlan } = await import('../src/ops/refresh.js');
  const { renderTextPlan } = await import('../src/plan/render/text.js');
  clock.lap('modules');
  const config = await loadDesiredState([job.configDir], { cwd: benchIo.cwd, env: benchIo.env });
  clock.lap('config');
  const plan = await withApiClient(benchIo, { url: job.url }, (api) =>
    refreshAndPlan(config, api, { concurrency: HYDRATION_CONCURRENCY }),
  );
  clock.lap('refresh+plan');
  const text = renderTextPlan(plan, { color: false });
  clock.lap('render');
  return {
    phases: clock.phases,
    counts: { changes: plan.changes.length, unchanged: plan.summary.unchanged, output: text.length },
  };
}

export async function applyJob(job: { url: string; configDir: string }): Promise<JobOutcome> {
  const clock = phaseClock();
  const { loadDesiredState } = await import('../src/config/load.js');
  const { withApiClient } = await import('../src/cli/connection.js');
  const { refreshAndPlan } = await import('../src/ops/refresh.js');
  const { renderTextPlan } = await import('../src/plan/render/text.js');
  const { applyPlan } = await import('../src/ops/apply/applier.js');
  const { renderApplyReport } = await import('../src/ops/apply/report.js');
  clock.lap('modules');
  const config = await loadDesiredState([job.configDir], { cwd: benchIo.cwd, env: benchIo.env });
  clock.lap('config');
  const counts = await withApiClient(benchIo, { url: job.url }, async (api) => {
    // As `wafctl apply`: the refresh runs with the --parallelism value (default 8).
    const plan = await refreshAndPlan(config, api, { concurrency: DEFAULT_PARALLELISM });
    clock.lap('refresh+plan');
    const planText = renderTextPlan(plan, { color: false });
    clock.lap('render');
    const report = await applyPlan(plan, api, {
      parallelism: DEFAULT_PARALLELISM,
      batchSize: DEFAULT_BATCH_SIZE,
      username: config.state.settings.username,
    });
    clock.lap('apply');
    const reportText = renderApplyReport(report);
    clock.lap('render');
    const done = report.results.filter((r) => r.outcome.status === 'done').length;
    return { changes: plan.changes.length, done, output: planText.length + reportText.length };
  });
  return { phases: clock.phases, counts };
}
