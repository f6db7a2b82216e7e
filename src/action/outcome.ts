/** What a run of wafctl comes to (pure): has-changes, and the step's own exit code. */

/**
 * Whether a saved plan (plan --out: the JSON plan of the contract plus context) has changes, from
 * its summary. A text that is not such a plan has none we know of: wafctl itself reports why.
 */
export function savedPlanHasChanges(text: string | undefined): boolean {
  if (text === undefined) return false;
  try {
    const { summary: s } = JSON.parse(text) as {
      summary?: { create?: number; update?: number; replace?: number; delete?: number };
    };
    return (s?.create ?? 0) + (s?.update ?? 0) + (s?.replace ?? 0) + (s?.delete ?? 0) > 0;
  } catch {
    return false;
  }
}

/**
 * has-changes of plan and drift, from wafctl's exit code: 2 is changes (or drift), and 3 is a
 * change (or drifted object) that --fail-on refused, so there is one. 1: no complete plan.
 */
export function exitHasChanges(code: number): boolean {
  return code === 2 || code === 3;
}

/** The step's own exit code: 2 (changes, drift) is a result, not a failure. */
export function stepExitCode(code: number): number {
  return code === 2 ? 0 : code;
}
