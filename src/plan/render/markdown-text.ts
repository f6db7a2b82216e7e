/**
 * Data in markdown, escaped so it can neither start a line, nor add HTML, nor close what it sits in,
 * nor mention, reference or link anything: as HTML text, as markdown text, in a code span, in HTML
 * `<code>`, or in a fenced block. Shared by every markdown wafctl writes: the plan, drift and compare
 * comments (markdown.ts), the summary of several environments (environments.ts, cli/), and the
 * pull-request body of `wafctl pull` (ops/pull/summary.ts).
 *
 * GitHub makes links and notifications out of the text of a rendered comment: `@name` and
 * `@org/team` notify, `#123`, `GH-123` and `owner/repo#123` link an issue (and say so on it), and
 * bare URLs (`https://...`, `www.`...), e-mail addresses and `<...>` autolinks become links. A
 * record's `changed_by` or a rule's description is anyone's text, so as text (`markdownText`,
 * `escapeHtml`) each of those gets a zero-width space (`&#8203;`, as Renovate does) where it would
 * start: after every `@`, between `#` or `GH-` and the digits, inside `://` and after `www`. It
 * shows as the same characters, and nothing reads a reference or a link there any more. An entity
 * that decodes back to the same character (`&#64;`) would not do: GitHub's mention and reference
 * filters run on the rendered HTML's text, after entities are decoded; and GitHub's markdown
 * (cmark-gfm) finds autolinks in the decoded text as well. Code is left as it is: GitHub finds no
 * autolink in a code span or fenced block, and its filters skip text inside `code` and `pre`
 * elements, so `codeSpan`, `htmlCode` and `fence` content stays verbatim, and can be copied as it is.
 * test/plan/render/github-references.test.ts renders these documents with a GFM renderer and checks
 * their text against a model of GitHub's patterns.
 */
import { printable } from '../../core/text.js';

export interface EscapeOptions {
  /** Whether `"` becomes `&quot;`; default true. */
  quotes?: boolean;
}

/** `&`, `<`, `>` and (unless `quotes` is false) `"` as entities: HTML that shows `s` literally. */
function htmlEntities(s: string, options: EscapeOptions = {}): string {
  const escaped = s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return options.quotes === false ? escaped : escaped.replace(/"/g, '&quot;');
}

/** U+200B as an entity: invisible, and plain to see in the markdown source. */
const ZERO_WIDTH_SPACE = '&#8203;';

/**
 * Where a mention, an issue reference or an autolink would start, GitHub's patterns (and GFM's
 * autolink literals) read: every `@` (a mention, a team, `owner/repo@sha`, an e-mail address,
 * `mailto:`), `#` before a digit (`#1`, `owner/repo#1`), `GH-` before a digit, the `:` of `://`
 * (any scheme), and `www` before a dot. Entity-escaped text holds none of these but where the data
 * had them (`&amp;`, `&lt;`, `&gt;`, `&quot;` have no digit, `@` or `:`), and the replacement is one
 * pass, so the `#8203` it adds is never matched again.
 */
const REFERENCE_START = /@|#(?=\d)|gh-(?=\d)|:(?=\/\/)|www(?=\.)/gi;

/** Entity-escaped text with a zero-width space after whatever would start a mention, reference or link. */
const inert = (escaped: string): string => escaped.replace(REFERENCE_START, `$&${ZERO_WIDTH_SPACE}`);

/**
 * `s` as HTML text (a `<summary>`): `&`, `<`, `>` and (unless `quotes` is false) `"` as entities,
 * and made inert (no mention, reference or link).
 */
export const escapeHtml = (s: string, options: EscapeOptions = {}): string => inert(htmlEntities(s, options));

/** `s` in an HTML `<code>` element, verbatim: escaped for HTML only, as GitHub links nothing in code. */
export const htmlCode = (s: string): string => `<code>${htmlEntities(s)}</code>`;

/**
 * Data as markdown text: HTML escaped, the characters that open inline markdown (code spans,
 * emphasis, strikethrough, links and images, backslash escapes) backslash-escaped, so it renders as
 * the literal text it is, and made inert (no mention, reference or link).
 */
export const markdownText = (s: string, options: EscapeOptions = {}): string =>
  inert(htmlEntities(printable(s), options).replace(/[\\`*_[\]~]/g, '\\$&'));

/**
 * The longest start of `text`, ended with `…` when cut, whose `escaped` form has at most `max`
 * characters (`text` itself when it fits; empty when not even `…` does). Escaping lengthens text
 * unevenly (`@` is `@&#8203;`, `"` is `&quot;`), so the raw text is cut, never the escaped one: an
 * entity is never cut in half, and what the cut leaves is escaped (made inert) as a whole.
 */
export function cutToFit(text: string, escaped: (text: string) => string, max: number): string {
  if (escaped(text).length <= max) return text;
  const cut = (n: number) => `${text.slice(0, n)}…`;
  if (escaped(cut(0)).length > max) return '';
  // The escaped length grows with the start kept: the longest that fits, by bisection.
  let fits = 0;
  let over = text.length;
  while (over - fits > 1) {
    const middle = Math.floor((fits + over) / 2);
    if (escaped(cut(middle)).length <= max) fits = middle;
    else over = middle;
  }
  // Never half of a surrogate pair.
  const end = /[\ud800-\udbff]/.test(text.charAt(fits - 1)) ? fits - 1 : fits;
  return cut(end);
}

const longestBacktickRun = (content: string): number =>
  (content.match(/`+/g) ?? []).reduce((max, run) => Math.max(max, run.length), 0);

/** A fence longer than any run of backticks inside, so content can never close it early. */
export function fence(content: string): string {
  return '`'.repeat(Math.max(3, longestBacktickRun(content) + 1));
}

/**
 * A code span delimited by more backticks than any run inside, so `text` can never close it; padded
 * with a space (which markdown strips) when `text` starts or ends with a backtick or a space.
 */
export function codeSpan(text: string): string {
  const ticks = '`'.repeat(longestBacktickRun(text) + 1);
  const pad = /^[` ]|[` ]$/.test(text) ? ' ' : '';
  return `${ticks}${pad}${text}${pad}${ticks}`;
}
