/**
 * A drift report's managed rules not enforced on a firewall (`enforcement`, src/plan/enforcement.ts):
 * one line each in the text and markdown reports, after what differs. Plans have none.
 */
import type { Plan } from '../../core/model.js';
import { printable } from '../../core/text.js';
import { changedSuffix } from './attribution.js';
import { address } from './summary.js';

/** The section's headline: how many, and that their fields may well match. */
export function enforcementHeadline(plan: Plan): string | undefined {
  const n = plan.enforcement?.length ?? 0;
  if (n === 0) return undefined;
  const one = n === 1;
  return `${n} managed ${one ? 'rule is' : 'rules are'} not enforced on ${one ? 'a firewall' : 'firewalls'}, whatever ${one ? 'its' : 'their'} fields: check the firewall's synchronization`;
}

/**
 * Each finding's address and printable text: its reasons (`not enforced on waf-eu-1: sync error`),
 * and who changed the rule last, when the record says.
 */
export function enforcementLines(plan: Plan): { address: string; text: string }[] {
  return (plan.enforcement ?? []).map((finding) => ({
    address: address(finding),
    text: `${printable(finding.impact.map((impact) => impact.reason).join('; '))}${changedSuffix(finding)}`,
  }));
}
