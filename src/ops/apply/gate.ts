/**
 * The apply gate: what apply does with a plan (fresh or rebuilt from a saved one) once it is shown,
 * decided from the plan and the flags alone. Pure: `applyGate` returns the verdict, and workflow.ts
 * carries it out (prints the refusal, asks, or applies).
 */
import { WafctlError } from '../../core/errors.js';
import type { Attributes, Change, FailOnClass, Plan } from '../../core/model.js';
import { containsSecret, redact } from '../../core/secrets.js';
import { plural } from '../../core/text.js';
import { failOnRefusal } from '../../plan/policy.js';
import { address } from '../../plan/render/summary.js';

export interface GateOptions {
  /** `--fail-on`: impact classes that refuse the whole apply (exit 3). */
  failOn: readonly FailOnClass[];
  /** `--allow-partial`: apply the changes of the objects that planned, though others could not be. */
  allowPartial: boolean;
  /** `--force`: apply even above the safety threshold. */
  force: boolean;
  /** A person approves at the terminal (no `--auto-approve`, no saved plan). */
  interactive: boolean;
  /** `settings.username`, sent with every rule created. */
  username: string;
}

export type ApplyVerdict =
  /** No change and no problem: nothing to ask or do (exit 0). */
  | { verdict: 'nothing' }
  /** Nothing is applied; the error says why (its code gives the exit code: 3 policy, 1 otherwise). */
  | { verdict: 'refuse'; error: WafctlError }
  /** Ask the person at the terminal; apply only on `yes`. */
  | { verdict: 'confirm' }
  | { verdict: 'apply' };

/**
 * The gate, in order: the policy (`--fail-on`) first, since its exit code (3) says why nothing was
 * applied; a secret the apply would send; objects that could not be planned (like Terraform, a plan
 * with errors is not applied, not even the parts that planned well, unless `allowPartial`); the
 * safety threshold; then the prompt, when there is a change to approve.
 */
export function applyGate(plan: Plan, options: GateOptions): ApplyVerdict {
  if (plan.changes.length === 0 && plan.problems.length === 0) return { verdict: 'nothing' };
  const error =
    failOnRefusal(plan, options.failOn, 'Nothing was applied.') ??
    secretRefusal(plan, options.username) ??
    problemsRefusal(plan, options.allowPartial) ??
    safetyRefusal(plan, options.force);
  if (error !== undefined) return { verdict: 'refuse', error };
  return options.interactive && plan.changes.length > 0 ? { verdict: 'confirm' } : { verdict: 'apply' };
}

function refusal(message: string): WafctlError {
  return new WafctlError('PLAN_REFUSED', message, { userFault: true });
}

/**
 * The whole object a change sends to the API, `after` (some kinds send only an update's changed
 * fields, but all of it is checked); none for a delete.
 */
const objectSent = (change: Change): Attributes | null => change.after;

const SHOWN = 5;

/**
 * Refuses the whole apply when a value it would send holds a registered secret (the API token, a
 * sign-in password), in any form `redact` knows: written to the firewall, it would be readable by
 * everyone who can read rules. Names the change and the field, never the value (nor a key holding it).
 */
export function secretRefusal(plan: Plan, username: string): WafctlError | undefined {
  const found: string[] = [];
  for (const change of plan.changes) {
    const sent = objectSent(change);
    if (sent === null) continue;
    for (const [field, value] of Object.entries(sent)) {
      if (containsSecret(JSON.stringify(value) ?? '')) found.push(`${redact(address(change))} ${field}`);
    }
  }
  const creates = plan.changes.some((c) => c.action === 'create' || c.action === 'replace');
  if (creates && containsSecret(username)) found.push('settings.username (sent with every rule created)');
  if (found.length === 0) return undefined;
  const more = found.length > SHOWN ? ` and ${found.length - SHOWN} more` : '';
  return refusal(
    `refusing to send the API token (or another secret wafctl holds) to the firewall: ${found.slice(0, SHOWN).join(', ')}${more} would carry it. Nothing was applied. Remove it from the configuration (or from the live object, when an update would send it back).`,
  );
}

/** Refuses a plan with objects that could not be planned, unless `allowPartial`. */
export function problemsRefusal(plan: Plan, allowPartial: boolean): WafctlError | undefined {
  const n = plan.problems.length;
  if (n === 0 || allowPartial) return undefined;
  return refusal(
    `${plural(n, 'object')} could not be planned (see the errors above): nothing was applied. Fix ${n === 1 ? 'it' : 'them'}, or pass --allow-partial to apply the changes of the others.`,
  );
}

/** Refuses deletes above the safety threshold (`settings.safety`) unless `force`. */
export function safetyRefusal(plan: Plan, force: boolean): WafctlError | undefined {
  if (plan.warnings.length === 0 || force) return undefined;
  const what = plan.warnings
    .map(
      (w) =>
        `${w.deletes - w.duplicates} of ${w.existing} ${w.kind} objects${w.duplicates > 0 ? ` (and ${w.duplicates} duplicates, not counted)` : ''} (limit ${w.max_delete_percent}%)`,
    )
    .join(', ');
  return refusal(
    `refusing to delete ${what}: above the safety threshold (settings.safety). Pass --force to apply anyway.`,
  );
}
