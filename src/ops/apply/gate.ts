/**
 * The apply gate's refusals that read only the plan (fresh or rebuilt from a saved one): pure, each
 * returns the error to throw or undefined. src/cli/apply.ts runs them, in order, before any write.
 */
import { WafctlError } from '../../core/errors.js';
import type { Attributes, Change, Plan } from '../../core/model.js';
import { containsSecret, redact } from '../../core/secrets.js';
import { address } from '../../plan/render/summary.js';

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

/** Refuses deletes above the safety threshold (`settings.safety`) unless `force`. */
export function safetyRefusal(plan: Plan, force: boolean): WafctlError | undefined {
  if (plan.warnings.length === 0 || force) return undefined;
  const what = plan.warnings
    .map(
      (w) =>
        `${w.deletes} of ${w.existing} ${w.kind} objects${w.duplicates > 0 ? ` (${w.duplicates} of them duplicates)` : ''} (limit ${w.maxDeletePercent}%)`,
    )
    .join(', ');
  return refusal(
    `refusing to delete ${what}: above the safety threshold (settings.safety). Pass --force to apply anyway.`,
  );
}
