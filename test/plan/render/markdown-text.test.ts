/**
 * The one escaping of data in markdown (src/plan/render/markdown-text.ts): what it writes for the
 * patterns GitHub links, and, over random strings made of the characters that matter, that text it
 * escapes renders, with a GFM renderer, as no link, no mention and no reference, and as exactly the
 * data's printable characters once the zero-width spaces it adds are taken out. The strings are
 * drawn from a fixed seed, so a failure replays; its message is the string that failed.
 */
import { describe, expect, it } from 'vitest';
import { printable } from '../../../src/core/text.js';
import { mulberry32 } from '../../../src/emulator/faults.js';
import { markdownSummaryTable } from '../../../src/plan/render/environments.js';
import {
  codeSpan,
  cutToFit,
  escapeHtml,
  fence,
  htmlCode,
  markdownText,
} from '../../../src/plan/render/markdown-text.js';
import { activeReferences, rendered, visibleText, withoutZeroWidth } from '../../helpers/github-markdown.js';

describe('markdownText and escapeHtml', () => {
  it.each([
    ['@octo-org/security', '@&#8203;octo-org/security'],
    ['x@evil.example', 'x@&#8203;evil.example'],
    ['#1, octo/repo#12 and GH-3, gh-4', '#&#8203;1, octo/repo#&#8203;12 and GH-&#8203;3, gh-&#8203;4'],
    ['https://evil.example/x ftp://a', 'https:&#8203;//evil.example/x ftp:&#8203;//a'],
    ['www.evil.example WWW.A', 'www&#8203;.evil.example WWW&#8203;.A'],
    ['<https://evil.example>', '&lt;https:&#8203;//evil.example&gt;'],
    // Its own entity, in data, is shown as written: the `#8` after `&amp;` is broken too.
    ['&#8203;', '&amp;#&#8203;8203;'],
    // What links nothing is left as it is.
    [
      '# heading, #x, GH-x, a: //b, www, 2026-11-27 08:02 UTC',
      '# heading, #x, GH-x, a: //b, www, 2026-11-27 08:02 UTC',
    ],
  ])('writes %j as %j', (data, written) => {
    expect(markdownText(data)).toBe(written);
    expect(escapeHtml(data)).toBe(written);
  });

  it('leaves code verbatim: a code span, <code> and a fence hold the data as it is', () => {
    expect(codeSpan('@octo-org/security #1 https://evil.example')).toBe(
      '`@octo-org/security #1 https://evil.example`',
    );
    expect(htmlCode('<@a #1>')).toBe('<code>&lt;@a #1&gt;</code>');
    const block = `${fence('x')}\n@a #1 www.evil.example\n${fence('x')}`;
    expect(activeReferences(block)).toEqual([]);
    expect(rendered(block).texts.find((node) => node.ignored)?.text).toBe('@a #1 www.evil.example\n');
  });
});

describe('cutToFit', () => {
  it('keeps the longest start whose escaped form fits, cutting the data, never an entity', () => {
    expect(cutToFit('@alice', markdownText, 100)).toBe('@alice');
    // `@&#8203;a…` is 10 characters, `@&#8203;al…` 11.
    expect(cutToFit('@alice', markdownText, 10)).toBe('@a…');
    expect(markdownText(cutToFit('a"bc', markdownText, 8))).toBe('a&quot;…');
    expect(cutToFit('a"bc', markdownText, 7)).toBe('a…');
    expect(cutToFit('ab😀c', (text) => text, 4)).toBe('ab…');
    expect(cutToFit('abc', (text) => text, 0)).toBe('');
  });
});

/**
 * What the strings are made of: the starts of mentions, references and links, markdown and HTML
 * syntax, entities (the one the escaping adds among them), whitespace, controls, and characters
 * beyond ASCII.
 */
const PIECES = [
  ...['@', '#', '1', '42', 'GH-', 'gh-', '://', ':', '/', 'http', 'https', 'ftp', 'mailto:', 'xmpp:'],
  ...['www', 'WWW', '.', 'example', 'evil', 'a', 'Z', '-', '_', 'octo-org/security', 'x@y.example'],
  ...['<', '>', '&', ';', '"', "'", '`', '``', '*', '**', '~', '~~', '[', ']', '(', ')', '!', '\\'],
  ...['|', '=', '+', '$', '%', '^', '{', '}', '?', '&#8203;', '#8203;', '&#64;', '&amp;', '&lt;'],
  ...[' ', '  ', '\u00a0', '\n', '\t', '\u001b', '\u200b', 'é', '😀', '<https://a.example>', '<!--'],
];

function randomString(next: () => number): string {
  let text = '';
  for (let n = Math.floor(next() * 24); n > 0; n--) text += PIECES[Math.floor(next() * PIECES.length)];
  return text;
}

const SAMPLES = 600;

/** Each sample: the string, and the markdown it is put in. */
function samples(seed: number, document: (data: string) => string): [string, string][] {
  const next = mulberry32(seed);
  return Array.from({ length: SAMPLES }, () => {
    const data = randomString(next);
    return [data, document(data)];
  });
}

/** What a reader must see of `data`: its printable form, without zero-width characters. */
const seen = (data: string): string => withoutZeroWidth(printable(data));

describe('escaped text, rendered, over random strings', () => {
  it('as markdown text (a list item): links nothing, and shows every character', () => {
    for (const [data, markdown] of samples(50_4, (data) => `- **x** ${markdownText(data)} .\n`)) {
      const view = rendered(markdown);
      expect(activeReferences(view), JSON.stringify(data)).toEqual([]);
      expect(visibleText(view).trim(), JSON.stringify(data)).toBe(`x ${seen(data)} .`);
    }
  });

  it('as HTML text (a <summary>): links nothing, and shows every character', () => {
    const summary = (data: string) =>
      `<details>\n<summary>${escapeHtml(printable(data))}</summary>\n\n</details>\n`;
    for (const [data, markdown] of samples(50_5, summary)) {
      const view = rendered(markdown);
      expect(activeReferences(view), JSON.stringify(data)).toEqual([]);
      const shown = view.elements.find((element) => element.name === 'summary')?.text;
      expect(withoutZeroWidth(shown ?? ''), JSON.stringify(data)).toBe(seen(data));
    }
  });

  it('in a table cell: links nothing, and shows every character', () => {
    const table = (data: string) =>
      markdownSummaryTable([{ name: data, summary: { result: 'ok', count: 0, impact: null, error: null } }]);
    for (const [data, markdown] of samples(50_6, table)) {
      const view = rendered(markdown);
      expect(activeReferences(view), JSON.stringify(data)).toEqual([]);
      // The row's first cell: GFM trims the spaces around a cell's text (printable leaves no tab).
      const cell = view.elements.find((element) => element.name === 'td')?.text;
      expect(withoutZeroWidth(cell ?? ''), JSON.stringify(data)).toBe(seen(data).replace(/^ +| +$/g, ''));
    }
  });
});
