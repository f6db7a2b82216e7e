/**
 * Markdown plan for a pull-request comment: a hidden marker so a bot can find and update one sticky
 * comment, a summary table, and one collapsible `diff` block per changed object.
 *
 * Data (names, keys, ids, messages) reaches the markdown only in five ways, each escaped so it can
 * neither start a line, nor add HTML, nor close what it sits in (markdown-text.ts): the `<summary>`
 * (HTML, escaped), its `<code>`, a code span whose backtick run is longer than any inside, a fenced
 * block whose fence is longer than any backtick run inside, and message text (HTML and inline
 * markdown syntax escaped). As text (the `<summary>`'s words, messages) it is also made inert: no
 * `@name`, `#1` or URL in it mentions, references or links anything on GitHub. Everything is
 * `printable` first, so no `\n` or control character from data ever reaches the output raw.
 */
import { CHANGES_TRUST, type Change, type Plan, type SafetyWarning } from '../../core/model.js';
import { markdownBehaviourSection } from './behaviour.js';
import { type BodyLine, changeBody } from './body.js';
import { enforcementHeadline, enforcementLines } from './enforcement.js';
import { codeSpan, cutToFit, escapeHtml, fence, htmlCode, markdownText } from './markdown-text.js';
import { readOnlyEntries, readOnlyHeadline } from './read-only.js';
import { hasImpactSection, impactEntries, impactSummary } from './security.js';
import {
  address,
  duplicatesLines,
  headline,
  NO_CHANGES,
  noteLine,
  partialLine,
  planLine,
  renamedFromText,
  SYMBOL,
  suggestionLine,
  unmanagedLine,
  warningLine,
} from './summary.js';
import { trustEntries, trustHeadline } from './trust.js';

/** The plan comment's sticky marker: a CI bot finds and updates the comment that starts with it. */
export const MARKDOWN_MARKER = '<!-- wafctl-plan -->';
/** The drift report's own marker, so a drift comment never overwrites a plan comment (or the reverse). */
export const DRIFT_MARKDOWN_MARKER = '<!-- wafctl-drift -->';

import { MARKDOWN_MAX_CHARS } from './markdown-limits.js';

export { MARKDOWN_MAX_CHARS, MARKDOWN_MIN_CHARS } from './markdown-limits.js';

export interface MarkdownOptions {
  /** Heading of the comment, e.g. "wafctl plan" or "wafctl drift". */
  title?: string;
  /** The sticky-comment marker on the first line; default MARKDOWN_MARKER. */
  marker?: string;
  /** The most characters the whole output may have; default MARKDOWN_MAX_CHARS. */
  maxChars?: number;
  /** Heading of the Security impact section; default "Security impact". */
  impactTitle?: string;
  /**
   * What each change's `<summary>` says after its address, as printable text; default the plan's
   * words (`will be destroyed`). A drift report passes its own (`not in the configuration ...`).
   */
  describe?: (change: Change) => string;
  /** Whether the bold `Plan: ...` line follows the title (a plan's words); default true. */
  planLine?: boolean;
  /** What the document is, in its partial warning (`--target`); default "plan". */
  noun?: string;
  /**
   * Markdown lines that open the summary, right after the counts (a drift report's "Who changed
   * what"); within the budget like the sections after them. Default none.
   */
  opening?: readonly string[];
}

/**
 * A body line in a `diff` block, which has no `~`: a changed scalar becomes a `-`/`+` pair, the
 * opening line of a changed block is context (its changes are on the lines inside it), and the
 * closing line of a block added or removed as a whole takes the block's sign, so the whole block
 * is coloured. Indented two spaces a level after the sign column, so nesting reads as in the text.
 */
function diffLines(line: BodyLine): string[] {
  const indent = '  '.repeat(line.depth);
  const note = line.note ? ` ${line.note}` : '';
  if (line.sign === '~' && line.old !== undefined && line.new !== undefined) {
    return [`- ${indent}${line.old}`, `+ ${indent}${line.new}${note}`];
  }
  const sign = line.sign === '~' ? ' ' : (line.closes ?? line.sign);
  return [`${sign} ${indent}${line.text}${note}`];
}

/** The plan's words for a change's `<summary>`: `will be destroyed (duplicate of 12)`. */
const planWords = (change: Change): string => headline(change).slice(address(change).length + 1);

function renderChange(
  change: Change,
  describe: (change: Change) => string,
  usernames?: Readonly<Record<string, string>>,
): string {
  const lines: string[] = [];
  for (const line of changeBody(change, usernames)) for (const shown of diffLines(line)) lines.push(shown);
  const content = lines.join('\n');
  const f = fence(content);
  const renamed = renamedFromText(change);
  const words = renamed === undefined ? describe(change) : `${describe(change)} (${renamed})`;
  const summary = `${htmlCode(`${SYMBOL[change.action]} ${address(change)}`)} ${escapeHtml(words)}`;
  return ['<details>', `<summary>${summary}</summary>`, '', `${f}diff`, content, f, '', '</details>'].join(
    '\n',
  );
}

/**
 * A markdown output that never exceeds `maxChars` (GitHub refuses comments over 65,536 characters):
 * parts are added while they fit, keeping room for the line that says what was left out. Counted in
 * UTF-16 code units, which is never less than the characters GitHub counts.
 */
class Budget {
  private readonly parts: string[] = [];
  private used = 0;

  constructor(private readonly maxChars: number) {}

  /** Adds `part` (a line or a block, then a line break) if it fits with `reserve` chars to spare. */
  tryAdd(part: string, reserve = 0): boolean {
    if (this.used + part.length + 1 + reserve > this.maxChars) return false;
    this.parts.push(part);
    this.used += part.length + 1;
    return true;
  }

  /** Adds `part` whatever its size: only for what the minimum budget guarantees room for. */
  add(part: string): void {
    this.parts.push(part);
    this.used += part.length + 1;
  }

  text(): string {
    return `${this.parts.join('\n').trimEnd()}\n`;
  }
}

const notShown = (n: number, what: string): string =>
  `_${n} more ${what} not shown (see the JSON plan / job log)._`;

/** A drift report's rules not enforced on a firewall (`enforcement`): a headline, one item each. */
function markdownEnforcement(plan: Plan): string[] {
  const headline = enforcementHeadline(plan);
  if (headline === undefined) return [];
  const items = enforcementLines(plan).map(
    (entry) => `- ${codeSpan(entry.address)}: ${markdownText(entry.text)}`,
  );
  return [`> **Not enforced:** ${markdownText(headline)}.`, '', ...items, ''];
}

/**
 * Lines that must come before the details: the Trust and Security impact sections, the Behaviour
 * section, problems, unmanaged objects.
 */
function frontLines(plan: Plan, impactTitle: string): string[] {
  const lines: string[] = [];
  if (plan.trust !== undefined) {
    lines.push('#### Trust', '', markdownText(trustHeadline(plan.trust)), '');
    const entries = trustEntries(plan.trust);
    for (const entry of entries)
      lines.push(`- **${CHANGES_TRUST}** ${codeSpan(entry.subject)}: ${markdownText(entry.change)}`);
    if (entries.length > 0) lines.push('');
  }
  if (hasImpactSection(plan)) {
    lines.push(`#### ${markdownText(impactTitle)}`, '', markdownText(impactSummary(plan)), '');
    const entries = impactEntries(plan);
    for (const entry of entries) {
      lines.push(`- **${entry.class}** ${codeSpan(entry.address)}: ${markdownText(entry.reason)}`);
    }
    if (entries.length > 0) lines.push('');
  }
  for (const line of markdownBehaviourSection(plan)) lines.push(line);
  const readOnly = readOnlyHeadline(plan);
  if (readOnly !== undefined) {
    lines.push(`> **Read-only:** ${markdownText(readOnly)}.`, '');
    for (const entry of readOnlyEntries(plan)) {
      const body = entry.lines.flatMap(diffLines).join('\n');
      const f = fence(body);
      const changed = entry.changed === undefined ? '' : ` (${markdownText(entry.changed)})`;
      lines.push(`${codeSpan(entry.address)}${changed}:`, '', `${f}diff`, body, f, '');
    }
  }
  for (const line of markdownEnforcement(plan)) lines.push(line);
  for (const problem of plan.problems)
    lines.push(`> **Error:** ${codeSpan(address(problem))}: ${markdownText(problem.message)}`, '');
  for (const note of plan.notes ?? []) lines.push(`> **Note:** ${markdownText(noteLine(note))}`, '');
  for (const line of duplicatesLines(plan)) lines.push(`> **Note:** ${markdownText(line)}`, '');
  for (const suggestion of plan.rename_suggestions ?? []) {
    lines.push(`> **Hint:** ${suggestionLine(suggestion, codeSpan)}`, '');
  }
  const unmanaged = unmanagedLine(plan, codeSpan);
  if (unmanaged) lines.push(`_${unmanaged}_`, '');
  return lines;
}

/** The one short line for the safety warnings that did not fit. */
const restOfWarnings = (rest: readonly SafetyWarning[]): string =>
  `> **Warning:** the plan deletes more ${rest.map((w) => w.kind).join(', ')} objects than the safety limit allows; apply refuses this without --force.\n`;

/**
 * The safety warnings, in the header that is always kept: apply refuses such a plan without --force,
 * which no truncation may hide. One line a kind while they fit with `reserve` to spare and room for
 * the short line of those after it, else that short line for the rest (at most one a kind, so the
 * least --max-chars always has room for it).
 */
function addWarnings(budget: Budget, warnings: readonly SafetyWarning[], reserve: number): void {
  const shown = warnings.findIndex((w, i) => {
    const after = i + 1 < warnings.length ? restOfWarnings(warnings.slice(i + 1)).length + 1 : 0;
    return !budget.tryAdd(`> **Warning:** ${warningLine(w)}\n`, reserve + after);
  });
  if (shown !== -1) budget.add(restOfWarnings(warnings.slice(shown)));
}

/**
 * The most characters, once escaped, of the data in the lines every budget keeps: the title (which
 * names the environment) and each flag the partial warning shows. Escaping lengthens data up to
 * eightfold (`@` is `@&#8203;`), so each is cut to fit, leaving room at MARKDOWN_MIN_CHARS for the
 * rest of the header, the safety warnings and the left-out lines (test/plan/render/header.test.ts).
 */
const titleChars = (maxChars: number): number => Math.max(160, Math.floor(maxChars / 20));
const flagChars = (maxChars: number): number => Math.max(12, Math.min(200, Math.floor(maxChars / 100)));

/** The plan as a pull-request comment in markdown, within `maxChars` characters. */
export function renderMarkdownPlan(plan: Plan, options: MarkdownOptions = {}): string {
  const s = plan.summary;
  const maxChars = options.maxChars ?? MARKDOWN_MAX_CHARS;
  const budget = new Budget(maxChars);
  const title = cutToFit(options.title ?? 'wafctl plan', markdownText, titleChars(maxChars));
  const header = [options.marker ?? MARKDOWN_MARKER, `### ${markdownText(title)}`, ''];
  if (options.planLine ?? true)
    header.push(`**${plan.changes.length > 0 ? planLine(plan) : NO_CHANGES}**`, '');
  header.push(
    '| create | update | replace | delete | unchanged | unmanaged |',
    '|---:|---:|---:|---:|---:|---:|',
    `| ${s.create} | ${s.update} | ${s.replace} | ${s.delete} | ${s.unchanged} | ${s.unmanaged} |`,
    '',
  );
  for (const line of header) budget.add(line);

  // The summary, the Security impact section and the problems come first and whole, or cut with a
  // count; room is always kept for the line that counts the changes whose details are left out.
  const front = [...(options.opening ?? []), ...frontLines(plan, options.impactTitle ?? 'Security impact')];
  const detailsReserve = notShown(plan.changes.length, 'changes').length + 2;
  const frontReserve = notShown(front.length, 'lines of this summary').length + 2 + detailsReserve;
  const partial = partialLine(plan, options.noun, (flag) =>
    cutToFit(flag, markdownText, flagChars(maxChars)),
  );
  if (partial !== undefined) budget.add(`> **Warning:** ${markdownText(partial)}\n`);
  addWarnings(budget, plan.warnings, frontReserve);
  const shownFront = front.findIndex((line) => !budget.tryAdd(line, frontReserve));
  if (shownFront !== -1) {
    budget.add(notShown(front.slice(shownFront).filter((l) => l !== '').length, 'lines of this summary'));
    budget.add('');
  }

  const describe = options.describe ?? planWords;
  const shownChanges = plan.changes.findIndex(
    (change) => !budget.tryAdd(`${renderChange(change, describe, plan.usernames)}\n`, detailsReserve),
  );
  if (shownChanges !== -1) budget.add(notShown(plan.changes.length - shownChanges, 'changes'));
  return budget.text();
}
