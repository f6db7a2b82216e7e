/**
 * Entry point of a measuring child process. One job per process, so that its peak RSS
 * (`process.resourceUsage().maxRSS` is a process-wide high-water mark) belongs to that job alone,
 * and so that the emulator, which runs in the harness process, is not part of it.
 */
import type { ChildMessage, Job, JobOutcome } from './jobs.js';

async function run(job: Job): Promise<JobOutcome> {
  // Job modules are imported here, so that each job loads only what it uses.
  switch (job.type) {
    case 'wafctl-plan':
      return (await import('./wafctl-jobs.js')).planJob(job);
    case 'wafctl-apply':
      return (await import('./wafctl-jobs.js')).applyJob(job);
    case 'baseline-refresh':
      return (await import('./baseline-jobs.js')).refreshJob(job);
    case 'baseline-create':
      return (await import('./baseline-jobs.js')).createJob(job);
    case 'baseline-update':
      return (await import('./baseline-jobs.js')).updateJob(job);
    case 'baseline-delete':
      return (await import('./baseline-jobs.js')).deleteJob(job);
    case 'planner':
      return (await import('./planner-job.js')).plannerJob(job);
    case 'rule-tests':
      return (await import('./rule-tests-job.js')).ruleTestsJob(job);
  }
}

/** Exits once the result is on its way: a lingering socket or timer must not keep the harness waiting. */
function reply(message: ChildMessage): void {
  process.send?.(message, () => process.exit(message.ok ? 0 : 1));
}

process.once('message', (job: Job) => {
  run(job).then(
    (outcome) => {
      const total = Object.values(outcome.phases).reduce((sum, ms) => sum + ms, 0);
      const wallMs =
        outcome.measuredPhase === undefined ? total : (outcome.phases[outcome.measuredPhase] ?? Number.NaN);
      const maxRssBytes = process.resourceUsage().maxRSS * 1024;
      reply({ ok: true, result: { ...outcome, wallMs, maxRssBytes } });
    },
    (error: unknown) => reply({ ok: false, message: error instanceof Error ? error.message : String(error) }),
  );
});
