/**
 * Markdown plan for a pull-request comment: a hidden marker so a bot can find and update one sticky
 * comment, a summary table, and one collapsible `diff` block per changed object.
 */
import type { Change, Plan } from '../model.js';
import { type BodyLine, changeBody } from './body.js';
import { address, headline, NO_CHANGES, planLine, SYMBOL, unmanagedLine, warningLine } from './summary.js';

export const MARKDOWN_MARKER = '<!-- wafctl-plan -->';

export interface MarkdownOptions {
  /** Heading of the comment, e.g. "wafctl plan" or "wafctl drift". */
  title?: string;
}

const escapeHtml = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A fence longer than any run of backticks inside, so content can never close it early. */
function fence(content: string): string {
  const longest = (content.match(/`+/g) ?? []).reduce((max, run) => Math.max(max, run.length), 0);
  return '`'.repeat(Math.max(3, longest + 1));
}

function diffLines(line: BodyLine): string[] {
  const indent = '  '.repeat(line.depth);
  const note = line.note ? ` ${line.note}` : '';
  if (line.sign === '~' && line.old !== undefined && line.new !== undefined) {
    return [`- ${indent}${line.old}`, `+ ${indent}${line.new}${note}`];
  }
  return [`${line.sign === '~' ? ' ' : line.sign} ${indent}${line.text}${note}`];
}

function renderChange(change: Change): string {
  const body = changeBody(change);
  const lines = body.lines.flatMap(diffLines);
  if (body.hidden > 0)
    lines.push(`  # (${body.hidden} unchanged attribute${body.hidden === 1 ? '' : 's'} hidden)`);
  const content = lines.join('\n');
  const f = fence(content);
  const summary = `<code>${escapeHtml(`${SYMBOL[change.action]} ${address(change)}`)}</code> ${escapeHtml(headline(change).slice(address(change).length + 1))}`;
  return ['<details>', `<summary>${summary}</summary>`, '', `${f}diff`, content, f, '', '</details>'].join(
    '\n',
  );
}

export function renderMarkdownPlan(plan: Plan, options: MarkdownOptions = {}): string {
  const s = plan.summary;
  const out = [
    MARKDOWN_MARKER,
    `### ${options.title ?? 'wafctl plan'}`,
    '',
    `**${plan.changes.length > 0 ? planLine(plan) : NO_CHANGES}**`,
    '',
    '| create | update | replace | delete | unchanged | unmanaged |',
    '|---:|---:|---:|---:|---:|---:|',
    `| ${s.create} | ${s.update} | ${s.replace} | ${s.delete} | ${s.unchanged} | ${s.unmanaged} |`,
    '',
  ];
  for (const problem of plan.problems)
    out.push(`> **Error:** \`${address(problem)}\`: ${escapeHtml(problem.message)}`, '');
  for (const warning of plan.warnings) out.push(`> **Warning:** ${warningLine(warning)}`, '');
  const unmanaged = unmanagedLine(plan);
  if (unmanaged) out.push(`_${unmanaged}_`, '');
  for (const change of plan.changes) out.push(renderChange(change), '');
  return `${out.join('\n').trimEnd()}\n`;
}
