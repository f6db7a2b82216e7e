/**
 * Data in markdown, escaped so it can neither start a line, nor add HTML, nor close what it sits in:
 * as HTML text, as markdown text, in a code span, or in a fenced block. Shared by the plan comment
 * (markdown.ts) and the pull-request body of `wafctl pull` (ops/pull/summary.ts).
 */
import { printable } from '../../core/text.js';

export interface EscapeOptions {
  /** Whether `"` becomes `&quot;`; default true. */
  quotes?: boolean;
}

/** `s` as HTML text: `&`, `<`, `>` and (unless `quotes` is false) `"` as entities. */
export function escapeHtml(s: string, options: EscapeOptions = {}): string {
  const escaped = s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return options.quotes === false ? escaped : escaped.replace(/"/g, '&quot;');
}

/**
 * Data as markdown text: HTML escaped, and the characters that open inline markdown (code spans,
 * emphasis, strikethrough, links and images, backslash escapes) backslash-escaped, so it renders as
 * the literal text it is.
 */
export const markdownText = (s: string, options: EscapeOptions = {}): string =>
  escapeHtml(printable(s), options).replace(/[\\`*_[\]~]/g, '\\$&');

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
