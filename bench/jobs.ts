/**
 * What one child process measures, and what it reports back. Jobs are plain data: they travel to
 * the child over the IPC channel. The API token never does: it is passed in the WAF_TOKEN variable,
 * as a user would pass it to wafctl.
 */
import type { SeededIds } from './firewall.js';

export type Job =
  /** `wafctl plan DIR`: load the configuration, refresh, plan, render. */
  | { type: 'wafctl-plan'; url: string; configDir: string }
  /** `wafctl apply --auto-approve DIR`: the same, then apply and render the report. */
  | { type: 'wafctl-apply'; url: string; configDir: string }
  /** Per-resource refresh: one GET per object whose id the state file holds. */
  | { type: 'baseline-refresh'; url: string; ids: SeededIds }
  /** Per-resource creates: one POST per rule (nothing in state, so nothing to refresh). */
  | { type: 'baseline-create'; url: string; count: number }
  /** Per-resource updates: refresh each rule by id, then one PUT per rule. */
  | { type: 'baseline-update'; url: string; ids: string[]; priority: string }
  /** Per-resource deletes: refresh each rule by id, then one DELETE per rule. */
  | { type: 'baseline-delete'; url: string; ids: string[] }
  /** The pure planner on synthetic objects, no HTTP. */
  | { type: 'planner'; objects: number }
  /** The rule evaluator on synthetic rules and requests, beside the naive loop on a sample. */
  | { type: 'rule-tests'; rules: number; requests: number };

export interface JobOutcome {
  /** Wall time of the phases, in order (module loading included where the job loads modules). */
  phases: Record<string, number>;
  /** What the job did, checked by the harness so that a broken run is never reported as a fast one. */
  counts: Record<string, number>;
  /** The phase that is the measured wall time; all phases together when absent. */
  measuredPhase?: string;
}

export interface JobResult extends JobOutcome {
  /** The measured wall time: every phase, or only `measuredPhase`. */
  wallMs: number;
  /** `process.resourceUsage().maxRSS` of the child at the end of the job, in bytes. */
  maxRssBytes: number;
}

export type ChildMessage = { ok: true; result: JobResult } | { ok: false; message: string };

/** Times consecutive phases of a job. */
export function phaseClock() {
  const phases: Record<string, number> = {};
  let last = performance.now();
  return {
    phases,
    /** Ends the current phase under `name`. */
    lap(name: string): void {
      const now = performance.now();
      phases[name] = (phases[name] ?? 0) + (now - last);
      last = now;
    },
  };
}
