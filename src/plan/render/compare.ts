/**
 * `wafctl compare A B` as text, markdown and JSON: each difference is the change from A to B of a
 * comparison plan (src/ops/compare/compare.ts), worded as where the object is (`only in B`) or which
 * fields differ, not as an action to approve.
 */
import { type ComparedEnvironments, compareToJson } from '../../core/compare-document.js';
import { type Change, driftCount, type Plan, readOnlyAsChange } from '../../core/model.js';
import { printable } from '../../core/text.js';
import { changeBody } from './body.js';
import { renderMarkdownPlan } from './markdown.js';
import { hasImpactSection, textImpactSection } from './security.js';
import { address, problemLine } from './summary.js';

/** The compare comment's sticky marker: never overwrites a plan or drift comment. */
export const COMPARE_MARKDOWN_MARKER = '<!-- wafctl-compare -->';

/** `live staging -> production: 2 differences`. */
export function compareHeadline(plan: Plan, { from, to, live }: ComparedEnvironments): string {
  const n = driftCount(plan);
  return `${live ? 'live ' : ''}${from} -> ${to}: ${n === 0 ? 'no differences' : `${n} ${n === 1 ? 'difference' : 'differences'}`}`;
}

const impactTitle = ({ from, to }: ComparedEnvironments): string => `Security impact of ${from} -> ${to}`;

/** A difference in words: where the object is, or which fields differ. */
function describe(change: Change, { from, to }: ComparedEnvironments): string {
  const fields = change.fields.map(printable).join(', ');
  switch (change.action) {
    case 'create':
      return `only in ${to}`;
    case 'delete':
      return `only in ${from}`;
    case 'update':
      return `differs (${fields})`;
    case 'replace':
      return `differs (${fields}; applying it would replace the object)`;
  }
}

const SIGN: Record<Change['action'], string> = { create: '+', delete: '-', update: '~', replace: '~' };

/** The text comparison: the headline, the Security impact section, each difference, the problems. */
export function renderTextCompare(plan: Plan, compared: ComparedEnvironments): string {
  const out = [`Compare ${compareHeadline(plan, compared)}`];
  if (hasImpactSection(plan)) {
    // The reviewer's first question, before the details.
    for (const line of textImpactSection(plan, (_klass, text) => text, impactTitle(compared))) out.push(line);
    out.push('');
    // A read-only object (the built-in admins group) differs as it is: neither side's wafctl changes it.
    const readOnly = (plan.read_only ?? []).map((entry) => ({ ...readOnlyAsChange(entry), readOnly: true }));
    for (const change of [...plan.changes, ...readOnly]) {
      const what =
        'readOnly' in change ? `${change.fields.join(', ')} differ (read-only)` : describe(change, compared);
      out.push(`  ${SIGN[change.action]} ${address(change)}: ${what}`);
      for (const line of changeBody(change)) {
        const note = line.note ? ` ${line.note}` : '';
        out.push(`      ${'    '.repeat(line.depth)}${line.sign} ${line.text}${note}`);
      }
      out.push('');
    }
  }
  for (const problem of plan.problems) out.push(`Error: ${problemLine(problem)}`);
  return `${out.join('\n')}\n`;
}

/** The markdown comparison (a pull-request comment), within `maxChars` when given. */
export function renderMarkdownCompare(plan: Plan, compared: ComparedEnvironments, maxChars?: number): string {
  return renderMarkdownPlan(plan, {
    title: `wafctl compare: ${compareHeadline(plan, compared)}`,
    marker: COMPARE_MARKDOWN_MARKER,
    impactTitle: impactTitle(compared),
    describe: (change) => describe(change, compared),
    planLine: false,
    ...(maxChars === undefined ? {} : { maxChars }),
  });
}

/** The JSON comparison: the plan document, after what was compared (`compared`: live or desired). */
export function renderJsonCompare(plan: Plan, compared: ComparedEnvironments): string {
  return `${JSON.stringify(compareToJson(plan, compared), null, 2)}\n`;
}
