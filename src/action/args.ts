/** wafctl's argument list for each step of a run (pure): what the runner, run.ts, starts wafctl with. */
import type { Invocation } from './invocation.js';

/** `wafctl plan PATHS --detailed-exitcode --format markdown` (its stdout is the markdown file). */
export function planArgs(run: Invocation): string[] {
  return [
    'plan',
    ...run.paths,
    ...run.common,
    ...run.envFlags,
    '--detailed-exitcode',
    '--format',
    'markdown',
  ];
}

/** `wafctl drift PATHS --format markdown --report FILE`. */
export function driftArgs(run: Invocation, report: string): string[] {
  return ['drift', ...run.paths, ...run.common, ...run.envFlags, '--format', 'markdown', '--report', report];
}

/** `wafctl plan PATHS --out FILE`: the plan apply then applies exactly. */
export function savedPlanArgs(run: Invocation, out: string): string[] {
  return ['plan', ...run.paths, ...run.common, ...run.envFlags, '--out', out];
}

/**
 * `wafctl apply --plan FILE PATHS`: judged by the policy of the configuration at PATHS; with the
 * `wait` input, `--wait` (and `--report REPORT`, whose `enforcement` the job summary shows).
 */
export function applyArgs(run: Invocation, file: string, report?: string): string[] {
  const reported = report === undefined ? [] : ['--report', report];
  const waits = run.waitFlags.length === 0 ? [] : [...run.waitFlags, ...reported];
  return ['apply', '--plan', file, ...run.paths, ...run.common, ...run.envFlags, ...waits];
}

/** `wafctl pull PATHS --adopt`: writes the live changes back into the files (no --fail-on). */
export function pullArgs(run: Invocation): string[] {
  const trusted = run.trustedRef.ref === '' ? [] : ['--trusted-ref', run.trustedRef.ref];
  return [
    'pull',
    ...run.paths,
    ...(run.url === '' ? [] : ['--url', run.url]),
    ...trusted,
    ...run.envFlags,
    '--adopt',
  ];
}
