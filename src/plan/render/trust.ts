/**
 * The Trust section (`--trusted-ref`, src/cli/workspace.ts): where the plan's connections, variables
 * allow-list and policy were read, and what the work tree (the pull request) changes in them, which
 * the plan did not use. Shared by the text, markdown and drift renderers; it comes before the
 * Security impact section, since it says what that section was judged by.
 */
import { CHANGES_TRUST, type Plan } from '../../core/model.js';
import { printable } from '../../core/text.js';

/** `origin/main (1a2b3c4)`. */
function source(trust: NonNullable<Plan['trust']>): string {
  return `${printable(trust.ref)} (${printable(trust.commit.slice(0, 12))})`;
}

/** The section's first line: said even when nothing changed, so a reviewer knows trust was pinned. */
export function trustHeadline(trust: NonNullable<Plan['trust']>): string {
  const n = trust.changes.length;
  const from = `connections, variables and policy read from the trusted ref ${source(trust)}`;
  if (n === 0) return `${from}; the work tree changes none of them.`;
  return `${from}; the work tree changes ${n === 1 ? 'one of them' : `${n} of them`}, not used for this plan:`;
}

/** `subject: change`, escaped. */
export function trustEntries(trust: NonNullable<Plan['trust']>): { subject: string; change: string }[] {
  return trust.changes.map((change) => ({
    subject: printable(change.subject),
    change: printable(change.change),
  }));
}

/** The text section, or nothing without a trusted ref. */
export function textTrustSection(plan: Plan): string[] {
  const { trust } = plan;
  if (trust === undefined) return [];
  return [
    `Trust: ${trustHeadline(trust)}`,
    ...trustEntries(trust).map((entry) => `  ! ${CHANGES_TRUST}  ${entry.subject}: ${entry.change}`),
    '',
  ];
}
