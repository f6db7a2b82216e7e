/**
 * Read-only objects that differ from what the configuration expects of them (the built-in `admins`
 * group: `read_only` in the plan). wafctl never changes them, so they are no action of the plan: they
 * are shown as what was done by hand (expected -> live), in their own section, after the changes.
 */
import { type Plan, readOnlyAsChange } from '../../core/model.js';
import { changedText } from './attribution.js';
import { type BodyLine, changeBody } from './body.js';
import { address } from './summary.js';

/** The section's headline: how many, and that they are for a person to fix. */
export function readOnlyHeadline(plan: Plan): string | undefined {
  const n = plan.read_only?.length ?? 0;
  if (n === 0) return undefined;
  return `${n} read-only ${n === 1 ? 'object differs' : 'objects differ'} from what the configuration expects; wafctl cannot change ${n === 1 ? 'it' : 'them'}: review by hand`;
}

/**
 * Each entry's address and body lines (the expected values, then the live ones), and who changed it
 * when a drift report's record says (`changed 2026-11-27 08:02 UTC`).
 */
export function readOnlyEntries(
  plan: Plan,
): { address: string; lines: BodyLine[]; changed: string | undefined }[] {
  return (plan.read_only ?? []).map((entry) => ({
    address: address(entry),
    lines: changeBody(readOnlyAsChange(entry), plan.usernames).slice(1),
    changed: changedText(entry),
  }));
}
