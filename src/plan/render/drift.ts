/**
 * Drift reports: the same comparison as a plan, worded for a nightly job ("3 objects differ from
 * the configuration") rather than as actions to approve.
 */
import { driftToJson } from '../../core/drift-document.js';
import { type Change, driftCount, type Plan } from '../../core/model.js';
import { printable } from '../../core/text.js';
import { DRIFT_MARKDOWN_MARKER, type MarkdownOptions, renderMarkdownPlan } from './markdown.js';
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

/** The drift report's first line: no drift, or how many objects differ from the configuration. */
export function driftHeadline(plan: Plan): string {
  const n = driftCount(plan);
  if (n === 0) return 'No drift: the firewall matches the configuration.';
  return `Drift detected: ${n} ${n === 1 ? 'object differs' : 'objects differ'} from the configuration.`;
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
    out.push(`  ${SYMBOL[change.action].padStart(3)} ${address(change)}: ${DESCRIBE[change.action](change)}`);
  }
  for (const entry of plan.read_only ?? []) {
    out.push(
      `  ! ${address(entry)}: ${fields(entry)} ${entry.fields.length === 1 ? 'differs' : 'differ'} (read-only: wafctl cannot change it; review it by hand)`,
    );
  }
  for (const problem of plan.problems) out.push(`Error: ${problemLine(problem)}`);
  const unmanaged = unmanagedLine(plan);
  if (unmanaged) out.push(unmanaged);
  if (driftCount(plan) > 0) out.push(`Run \`${printable(planCommand)}\` for the full diff.`);
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
    describe: (change) => DESCRIBE[change.action](change),
    planLine: false,
    noun: 'drift report',
  });
}

/** The drift report as JSON, written through its schema (src/core/drift-document.ts). */
export function renderJsonDrift(plan: Plan): string {
  return `${JSON.stringify(driftToJson(plan), null, 2)}\n`;
}
