/**
 * What `wafctl pull` says it did, where a pull request shows it: the summary on stdout (text) and a
 * pull-request body (markdown), both built on the report document (report-document.ts, the JSON
 * format), so the three formats say the same. Beside the counts, they name each changed file other
 * environments read (the change applies to them too), and each change kept in the environment's own
 * path instead of such a file (decide.ts).
 *
 * In markdown, data (file names, addresses, names, reasons) reaches the output as a code span longer
 * than any backtick run inside, or as text with HTML and inline markdown escaped, after `printable`:
 * it cannot start a line, add HTML or close what it sits in, and as text it mentions, references and
 * links nothing (`@octo-org/security` in a record's `changed_by` notifies no one): as in
 * plan/render/markdown-text.ts.
 */
import { plural, printable } from '../../core/text.js';
import { utcMinute } from '../../plan/render/attribution.js';
import { codeSpan, markdownText as escapedText } from '../../plan/render/markdown-text.js';
import { address } from '../../plan/render/summary.js';
import type { KeptChange } from './decide.js';
import type { PullResult } from './pull.js';
import { type PullReportJson, type PullReportMeta, pullReportDocument } from './report-document.js';

/** How data is shown: as plain text (text), or escaped and in code spans (markdown). */
interface Style {
  /** A file, an address, a flag. */
  code: (text: string) => string;
  /** Names and reasons. */
  text: (text: string) => string;
}

/** A code span of the printable text, delimited by more backticks than any run inside. */
const markdownCode = (text: string): string => codeSpan(printable(text));

/** Data as markdown text, as the plan writes it but with `"` left as is. */
const markdownText = (text: string): string => escapedText(text, { quotes: false });

const TEXT: Style = { code: printable, text: printable };
const MARKDOWN: Style = { code: markdownCode, text: markdownText };

const names = (list: readonly string[], style: Style): string => list.map(style.text).join(', ');

const objectCount = (report: PullReportJson): number =>
  report.objects.updated + report.objects.removed + report.objects.adopted;

/** `Pulled 2 objects (1 updated, 1 removed) into 2 files.`, `Would pull ...` with `--dry-run`. */
function countsLine(report: PullReportJson): string {
  const { updated, removed, adopted } = report.objects;
  const counts = [
    updated > 0 ? `${updated} updated` : '',
    removed > 0 ? `${removed} removed` : '',
    adopted > 0 ? `${adopted} adopted` : '',
  ].filter((part) => part !== '');
  const verb = report.dry_run ? 'Would pull' : 'Pulled';
  return `${verb} ${plural(objectCount(report), 'object')} (${counts.join(', ')}) into ${plural(report.files.length, 'file')}.`;
}

/**
 * `Hand changes by alice (2026-11-27 08:02 UTC), bob.`: each person a pulled record names, newest
 * first, with the time of their latest change when the record gives it; undefined when none is named.
 */
function creditsLine(report: PullReportJson, style: Style): string | undefined {
  const latest = new Map<string, string | undefined>();
  // The credits are newest first: a person's first one is their latest.
  for (const credit of report.credits ?? []) {
    if (credit.changed_by !== undefined && !latest.has(credit.changed_by)) {
      latest.set(credit.changed_by, credit.changed_at);
    }
  }
  if (latest.size === 0) return undefined;
  const people = [...latest].map(
    ([who, at]) => `${style.text(who)}${at === undefined ? '' : ` (${style.text(utcMinute(at))})`}`,
  );
  return `Hand changes by ${people.join(', ')}.`;
}

/** The markdown list of the credits, newest first: the address, then `alice, 2026-11-27 08:02 UTC`. */
function markdownCredits(report: PullReportJson): string[] {
  const credits = report.credits ?? [];
  if (credits.length === 0) return [];
  const items = credits.map((credit) => {
    const who = credit.changed_by === undefined ? [] : [markdownText(credit.changed_by)];
    // A time the record gives is shown as it is when no date can hold it (utcMinute): escaped too.
    const when = credit.changed_at === undefined ? [] : [markdownText(utcMinute(credit.changed_at))];
    return `- ${markdownCode(credit.address)}: ${[...who, ...when].join(', ')}`;
  });
  return ['**Hand changes** (who last changed each object, as the firewall records it):', items.join('\n')];
}

/** A changed file other environments read: `base/rules.yaml is read by environment staging too: ...`. */
function sharedFileText(file: PullReportJson['files'][number], style: Style): string {
  const one = file.shared_with.length === 1;
  const whom = `${one ? 'environment' : 'environments'} ${names(file.shared_with, style)}`;
  return `${style.code(file.file)} is read by ${whom} too: this change applies to ${one ? 'it' : 'them'}.`;
}

/** A change kept in the environment's own path: where it went, what, and the shared file it stayed out of. */
function keptText(kept: KeptChange, report: PullReportJson, style: Style): string {
  const verb = report.dry_run ? 'Would keep in' : 'Kept in';
  const own = `environment ${style.text(report.environment ?? '')}'s own path`;
  const what = `${style.code(address(kept))} ${names(kept.fields, style)}`;
  const shared = `${style.code(kept.insteadOf)} is shared with ${names(kept.sharedWith, style)}`;
  return `${verb} ${style.code(kept.file)} (${own}): ${what}; ${shared} (${style.code('--write-shared')} writes there).`;
}

/**
 * The summary on stdout: the counts (or that there was nothing to pull), who made the hand changes,
 * then one line per changed file other environments read, then one per change kept in the
 * environment's own path.
 */
export function pullSummaryLines(result: PullResult, meta: PullReportMeta): string[] {
  const report = pullReportDocument(result, meta);
  const lines: string[] = [];
  if (report.files.length === 0 && report.conflicts.length === 0) {
    lines.push('Nothing to pull: the files match the firewall.');
  } else if (report.files.length > 0) lines.push(countsLine(report));
  const credits = report.files.length > 0 ? creditsLine(report, TEXT) : undefined;
  if (credits !== undefined) lines.push(credits);
  for (const file of report.files) {
    if (file.shared_with.length > 0) lines.push(`Warning: ${sharedFileText(file, TEXT)}`);
  }
  for (const kept of result.decision.kept) lines.push(keptText(kept, report, TEXT));
  return lines;
}

/** `### wafctl pull (production): 2 objects into 2 files`. */
function markdownTitle(report: PullReportJson): string {
  const command = report.dry_run ? 'wafctl pull --dry-run' : 'wafctl pull';
  const environment = report.environment === null ? '' : ` (${markdownText(report.environment)})`;
  const what =
    report.files.length > 0
      ? `${plural(objectCount(report), 'object')} into ${plural(report.files.length, 'file')}`
      : report.conflicts.length > 0
        ? 'nothing pulled'
        : 'nothing to pull';
  return `### ${command}${environment}: ${what}`;
}

function markdownConflicts(report: PullReportJson): string[] {
  if (report.conflicts.length === 0) return [];
  const items = report.conflicts.map(
    (c) =>
      `- ${markdownCode(`${c.file}:${c.line}:${c.col}`)} ${markdownCode(c.address)}: ${markdownText(c.reason)}`,
  );
  return ['**Conflicts** (nothing was pulled for these objects):', items.join('\n')];
}

function markdownFiles(report: PullReportJson): string[] {
  if (report.files.length === 0) return [];
  const items = report.files.map((file) => {
    const notes = [
      ...(file.created ? ['new'] : []),
      ...(file.shared_with.length > 0 ? [`read by ${names(file.shared_with, MARKDOWN)} too`] : []),
    ];
    return `- ${markdownCode(file.file)}${notes.length > 0 ? ` (${notes.join('; ')})` : ''}`;
  });
  return ['**Files:**', items.join('\n')];
}

/**
 * A pull-request body: the title, the counts and who made the hand changes, the shared-file
 * warnings, the changes kept in the environment's own path, each hand change's author and time, the
 * conflicts, then the files. No diff: the pull request shows it.
 */
export function pullMarkdown(result: PullResult, meta: PullReportMeta): string {
  const report = pullReportDocument(result, meta);
  const paragraphs = [markdownTitle(report)];
  if (report.files.length > 0) paragraphs.push(countsLine(report));
  const credits = report.files.length > 0 ? creditsLine(report, MARKDOWN) : undefined;
  if (credits !== undefined) paragraphs.push(credits);
  for (const file of report.files) {
    if (file.shared_with.length > 0) paragraphs.push(`> **Warning:** ${sharedFileText(file, MARKDOWN)}`);
  }
  const kept = result.decision.kept.map((entry) => `- ${keptText(entry, report, MARKDOWN)}`);
  if (kept.length > 0) paragraphs.push(kept.join('\n'));
  const pulled = report.files.length > 0 ? markdownCredits(report) : [];
  for (const paragraph of [...pulled, ...markdownConflicts(report), ...markdownFiles(report)])
    paragraphs.push(paragraph);
  return `${paragraphs.join('\n\n')}\n`;
}
