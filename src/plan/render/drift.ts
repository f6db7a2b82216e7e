/**
 * Drift reports: the same comparison as a plan, worded for a nightly job ("3 objects differ from
 * the configuration") rather than as actions to approve.
 */
import { driftToJson } from '../../core/drift-document.js';
import { type Change, driftCount, type Plan } from '../../core/model.js';
import { printable } from '../../core/text.js';
import { changedSuffix, whoChangedWhat } from './attribution.js';
import { enforcementLines } from './enforcement.js';
import { DRIFT_MARKDOWN_MARKER, type MarkdownOptions, renderMarkdownPlan } from './markdown.js';
import { codeSpan, markdownText } from './markdown-text.js';
import { DRIFT_IMPACT_TITLE, hasImpactSection, textImpactSection } from './security.js';
import { address, partialLine, problemLine, SYMBOL, unmanagedLine, warningLine } from './summary.js';
import { textTrustSection } from './trust.js';

const fields = (c: Pick<Change, 'fields'>): string => c.fields.map(printable).join(', ');

/** Drift's words for what differs, in the text report's lines and the markdown report's summaries. */
const DESCRIBE: Record<Change['action'], (c: Change) => string> = {
  create: () => 'missing from the firewall',
  update: (c) => `${fields(c)} ${c.fields.length === 1 ? 'differs' : 'differ'}`,
  replace: (c) => `${fields(c)} differ (apply would replace it)`,
  delete: (c) =>
    c.action === 'delete' && c.duplicate_of !== undefined
      ? `a duplicate of id ${printable(c.duplicate_of)} (apply would delete it)`
      : 'not in the configuration (apply would delete it)',
};

/**
 * The drift report's first line: no drift, or how many objects differ from the configuration and
 * how many managed rules are not enforced.
 */
export function driftHeadline(plan: Plan): string {
  if (driftCount(plan) === 0) return 'No drift: the firewall matches the configuration.';
  const n = driftCount(plan) - (plan.enforcement?.length ?? 0);
  const m = plan.enforcement?.length ?? 0;
  const parts = [
    ...(n > 0 ? [`${n} ${n === 1 ? 'object differs' : 'objects differ'} from the configuration`] : []),
    ...(m > 0 ? [`${m} managed ${m === 1 ? 'rule is' : 'rules are'} not enforced`] : []),
  ];
  return `Drift detected: ${parts.join('; ')}.`;
}

/** Drift's words for a change, with who changed it and when where the record says. */
const described = (change: Change): string => `${DESCRIBE[change.action](change)}${changedSuffix(change)}`;

/** At most this many lines of "Who changed what"; the report's entries say the rest. */
export const WHO_CHANGED_WHAT_LINES = 25;

/**
 * The markdown report's opening (issue 44): each entry whose record says who changed it or when,
 * newest first (`- alice, 2026-11-27 08:02 UTC: ` and the address as code), at most
 * WHO_CHANGED_WHAT_LINES.
 */
export function whoChangedWhatLines(plan: Plan): string[] {
  const entries = whoChangedWhat([...plan.changes, ...(plan.read_only ?? []), ...(plan.enforcement ?? [])]);
  if (entries.length === 0) return [];
  const items = entries.slice(0, WHO_CHANGED_WHAT_LINES).map(({ by, at, address }) => {
    const who = [by, at].filter((part) => part !== undefined).join(', ');
    return `- ${markdownText(who)}: ${codeSpan(address)}`;
  });
  const more = entries.length - items.length;
  if (more > 0) items.push(`- _and ${more} more: see each entry below, or the JSON report._`);
  return ['#### Who changed what', '', ...items, ''];
}

/** The drift report as text: the headline, its warnings and sections, one line per drifted object. */
export function renderTextDrift(
  plan: Plan,
  /** The command that shows the full diff (the same PATHs and environment); default `wafctl plan`. */
  { planCommand = 'wafctl plan' }: { planCommand?: string } = {},
): string {
  const out = [driftHeadline(plan)];
  // Right after the headline, as in the plan: apply refuses these without --force.
  const partial = partialLine(plan, 'drift report');
  if (partial !== undefined) out.push(`Warning: ${partial}`);
  for (const warning of plan.warnings) out.push(`Warning: ${warningLine(warning)}`);
  for (const line of textTrustSection(plan).filter((line) => line !== '')) out.push(line);
  if (hasImpactSection(plan)) {
    for (const line of textImpactSection(plan, (_klass, text) => text, DRIFT_IMPACT_TITLE)) out.push(line);
  }
  for (const change of plan.changes) {
    out.push(`  ${SYMBOL[change.action].padStart(3)} ${address(change)}: ${described(change)}`);
  }
  for (const entry of plan.read_only ?? []) {
    out.push(
      `  ! ${address(entry)}: ${fields(entry)} ${entry.fields.length === 1 ? 'differs' : 'differ'} (read-only: wafctl cannot change it; review it by hand)${changedSuffix(entry)}`,
    );
  }
  for (const entry of enforcementLines(plan)) out.push(`  ! ${entry.address}: ${entry.text}`);
  for (const problem of plan.problems) out.push(`Error: ${problemLine(problem)}`);
  const unmanaged = unmanagedLine(plan);
  if (unmanaged) out.push(unmanaged);
  // A rule not enforced has no diff: the plan shows only what differs.
  if (plan.changes.length + (plan.read_only?.length ?? 0) > 0) {
    out.push(`Run \`${printable(planCommand)}\` for the full diff.`);
  }
  return `${out.join('\n')}\n`;
}

/** The drift comment has its own sticky marker: a nightly drift report never overwrites a plan comment. */
export function renderMarkdownDrift(
  plan: Plan,
  options: Pick<MarkdownOptions, 'maxChars'> & { environment?: string } = {},
): string {
  const { environment, ...rest } = options;
  const where = environment === undefined ? '' : ` (${environment})`;
  return renderMarkdownPlan(plan, {
    ...rest,
    title: `wafctl drift${where}: ${driftHeadline(plan)}`,
    marker: DRIFT_MARKDOWN_MARKER,
    impactTitle: DRIFT_IMPACT_TITLE,
    // Drift's words, as in the text report: the title already says what differs, not what to apply.
    describe: described,
    opening: whoChangedWhatLines(plan),
    planLine: false,
    noun: 'drift report',
  });
}

/** The drift report as JSON, written through its schema (src/core/drift-document.ts). */
export function renderJsonDrift(plan: Plan): string {
  return `${JSON.stringify(driftToJson(plan), null, 2)}\n`;
}
