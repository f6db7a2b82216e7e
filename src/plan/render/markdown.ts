/**
 * Markdown plan for a pull-request comment: a hidden marker so a bot can find and update one sticky
 * comment, a summary table, and one collapsible `diff` block per changed object.
 *
 * Data (names, keys, ids, messages) reaches the markdown only in four ways, each escaped so it can
 * neither start a line, nor add HTML, nor close what it sits in: the `<summary>` (HTML, escaped), a
 * code span whose backtick run is longer than any inside, a fenced block whose fence is longer than
 * any backtick run inside, and message text (HTML and inline markdown syntax escaped). Everything is
 * `printable` first, so no `\n` or control character from data ever reaches the output raw.
 */
import { printable } from '../../text.js';
import type { Change, Plan } from '../model.js';
import { type BodyLine, changeBody } from './body.js';
import { address, headline, NO_CHANGES, planLine, SYMBOL, unmanagedLine, warningLine } from './summary.js';

/** The plan comment's sticky marker: a CI bot finds and updates the comment that starts with it. */
export const MARKDOWN_MARKER = '<!-- wafctl-plan -->';
/** The drift report's own marker, so a drift comment never overwrites a plan comment (or the reverse). */
export const DRIFT_MARKDOWN_MARKER = '<!-- wafctl-drift -->';

export interface MarkdownOptions {
  /** Heading of the comment, e.g. "wafctl plan" or "wafctl drift". */
  title?: string;
  /** The sticky-comment marker on the first line; default MARKDOWN_MARKER. */
  marker?: string;
}

const escapeHtml = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * Data as markdown text: HTML escaped, and the characters that open inline markdown (code spans,
 * emphasis, strikethrough, links and images, backslash escapes) backslash-escaped, so it renders as
 * the literal text it is.
 */
const markdownText = (s: string): string => escapeHtml(printable(s)).replace(/[\\`*_[\]~]/g, '\\$&');

const longestBacktickRun = (content: string): number =>
  (content.match(/`+/g) ?? []).reduce((max, run) => Math.max(max, run.length), 0);

/** A fence longer than any run of backticks inside, so content can never close it early. */
function fence(content: string): string {
  return '`'.repeat(Math.max(3, longestBacktickRun(content) + 1));
}

/**
 * A code span delimited by more backticks than any run inside, so `text` can never close it; padded
 * with a space (which markdown strips) when `text` starts or ends with a backtick or a space.
 */
function codeSpan(text: string): string {
  const ticks = '`'.repeat(longestBacktickRun(text) + 1);
  const pad = /^[` ]|[` ]$/.test(text) ? ' ' : '';
  return `${ticks}${pad}${text}${pad}${ticks}`;
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
    options.marker ?? MARKDOWN_MARKER,
    `### ${markdownText(options.title ?? 'wafctl plan')}`,
    '',
    `**${plan.changes.length > 0 ? planLine(plan) : NO_CHANGES}**`,
    '',
    '| create | update | replace | delete | unchanged | unmanaged |',
    '|---:|---:|---:|---:|---:|---:|',
    `| ${s.create} | ${s.update} | ${s.replace} | ${s.delete} | ${s.unchanged} | ${s.unmanaged} |`,
    '',
  ];
  for (const problem of plan.problems)
    out.push(`> **Error:** ${codeSpan(address(problem))}: ${markdownText(problem.message)}`, '');
  for (const warning of plan.warnings) out.push(`> **Warning:** ${warningLine(warning)}`, '');
  const unmanaged = unmanagedLine(plan);
  if (unmanaged) out.push(`_${unmanaged}_`, '');
  for (const change of plan.changes) out.push(renderChange(change), '');
  return `${out.join('\n').trimEnd()}\n`;
}
