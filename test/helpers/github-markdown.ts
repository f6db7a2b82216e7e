/**
 * How GitHub would show a markdown document, for tests of what data can do in it: rendered by a GFM
 * renderer, then read as GitHub's filters read the result.
 *
 * The renderer is micromark with micromark-extension-gfm: CommonMark and GFM to the letter (the
 * extension follows cmark-gfm, GitHub's own, autolink literals included: `www.`, `http(s)://`,
 * e-mail addresses), with raw HTML kept (`<details>`, `<summary>`), as GitHub keeps it. Its HTML is
 * parsed by parse5 (the WHATWG HTML parser), so text nodes hold what a browser shows, entities
 * decoded.
 *
 * GitHub then links and notifies from the text nodes of that HTML, skipping those inside `pre`,
 * `code`, `a`, `style` and `script` (html-pipeline's MentionFilter and its kin: IGNORE_PARENTS).
 * `GITHUB_REFERENCES` models its patterns, looser than GitHub's (no word boundary asked), so a text
 * that passes it passes GitHub's.
 */
import { micromark } from 'micromark';
import { gfm, gfmHtml } from 'micromark-extension-gfm';
import { parseFragment } from 'parse5';

const GFM = { allowDangerousHtml: true, extensions: [gfm()], htmlExtensions: [gfmHtml()] };

/** A markdown document as GFM renders it to HTML. */
export function renderGfm(markdown: string): string {
  return micromark(markdown, GFM);
}

/**
 * What GitHub's filters turn into a mention, a reference or a link in a text node, as a looser
 * model: each pattern matches wherever GitHub's does (and in places it does not).
 */
export const GITHUB_REFERENCES: readonly { what: string; pattern: RegExp }[] = [
  // GitHub: (?<=^|\W)@[a-z0-9][a-z0-9-]* (users), the same then /team; GFM's e-mail autolink:
  // [\w.+-]+@[\w-]+(\.[\w-]+)+; a cross-repository commit: owner/repo@sha.
  { what: 'a mention (@user, @org/team), an e-mail address or owner/repo@sha', pattern: /@[\w-]/ },
  // GitHub: #123, owner/repo#123 (and GH-123, below), at a word boundary.
  { what: 'an issue reference (#1, owner/repo#1)', pattern: /#\d/ },
  { what: 'an issue reference (GH-1)', pattern: /gh-\d/i },
  // GFM's extended autolinks: http://, https:// (cmark-gfm: ftp:// too); any scheme here.
  { what: 'a URL (scheme://)', pattern: /:\/\// },
  { what: 'a www. link', pattern: /www\./i },
];

/** The mentions, references and links GITHUB_REFERENCES finds in `text`, each as `what: text`. */
export function referencesIn(text: string): string[] {
  return GITHUB_REFERENCES.filter(({ pattern }) => pattern.test(text)).map(({ what }) => `${what}: ${text}`);
}

/** A parse5 node, as far as these tests read it. */
interface HtmlNode {
  nodeName: string;
  value?: string;
  attrs?: { name: string; value: string }[];
  childNodes?: HtmlNode[];
}

/** Elements whose text GitHub's filters do not read (html-pipeline's IGNORE_PARENTS). */
const IGNORED_PARENTS = new Set(['pre', 'code', 'a', 'style', 'script']);

/** A text node of the HTML: its text, and whether GitHub's filters skip it (inside code, a link...). */
export interface TextNode {
  text: string;
  ignored: boolean;
}

function walk(node: HtmlNode, ignored: boolean, visit: (node: HtmlNode, ignored: boolean) => void): void {
  visit(node, ignored);
  const below = ignored || IGNORED_PARENTS.has(node.nodeName);
  for (const child of node.childNodes ?? []) walk(child, below, visit);
}

/** What the rendered HTML of a markdown document holds. */
export interface Rendered {
  html: string;
  /** The `href` of each `<a>`. */
  links: string[];
  texts: TextNode[];
  /** Each element, in document order: its name and its text content (all the text inside). */
  elements: { name: string; text: string }[];
}

const textContent = (node: HtmlNode): string =>
  node.nodeName === '#text' ? (node.value ?? '') : (node.childNodes ?? []).map(textContent).join('');

/** What the rendered HTML of `markdown` holds: its links (`<a>`), its text nodes. */
export function rendered(markdown: string): Rendered {
  const html = renderGfm(markdown);
  const links: string[] = [];
  const texts: TextNode[] = [];
  const elements: Rendered['elements'] = [];
  walk(parseFragment(html) as unknown as HtmlNode, false, (node, ignored) => {
    if (node.nodeName === 'a') links.push(node.attrs?.find((attr) => attr.name === 'href')?.value ?? '');
    if (node.nodeName === '#text') texts.push({ text: node.value ?? '', ignored });
    else if (!node.nodeName.startsWith('#')) elements.push({ name: node.nodeName, text: textContent(node) });
  });
  return { html, links, texts, elements };
}

/**
 * What GitHub would make of data in `markdown`: each `<a>` rendered (wafctl's documents have no
 * links of their own), and each mention, reference or link in text its filters read. Empty: inert.
 */
export function activeReferences(markdown: string | Rendered): string[] {
  const { links, texts } = typeof markdown === 'string' ? rendered(markdown) : markdown;
  return [
    ...links.map((href) => `a link: ${href}`),
    ...texts.filter((node) => !node.ignored).flatMap((node) => referencesIn(node.text)),
  ];
}

/** Zero-width characters: what makes data inert, and what nobody sees. */
export const withoutZeroWidth = (text: string): string =>
  text.replace(/\u200b|\u200c|\u200d|\u2060|\ufeff/g, '');

/** The text a reader sees in the rendered `markdown` (all text nodes, zero-width characters removed). */
export function visibleText(markdown: string | Rendered): string {
  const { texts } = typeof markdown === 'string' ? rendered(markdown) : markdown;
  return withoutZeroWidth(texts.map((node) => node.text).join(''));
}

/** The text of the rendered `markdown` that GitHub's filters skip (code, mostly), as it is. */
export function codeText(markdown: string): string {
  return rendered(markdown)
    .texts.filter((node) => node.ignored)
    .map((node) => node.text)
    .join('\n');
}
