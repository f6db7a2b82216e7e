/**
 * The source side of the YAML text editor: the text by lines, its parse with source tokens, where
 * nodes and their indicators are, the nodes on a path, and whether a value is written literally
 * (valueOrigin). A `Source` parses its text once, on first use: `pull` asks one `Source` per file
 * for every value's origin and for the edits.
 */
import {
  type Document,
  isAlias,
  isMap,
  isNode,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  parseAllDocuments,
  visit,
  type YAMLMap,
  type YAMLSeq,
} from 'yaml';
import { SCHEMA_OPTIONS } from '../../config/parse-yaml.js';
import { formatPath, keyString } from '../../config/yaml-path.js';
import { WafctlError } from '../../core/errors.js';
import type { NodePath, ValueOrigin } from './model.js';

/** An edit that cannot be applied; `line`/`col` (1-based) are in the edited file. */
export class YamlEditError extends WafctlError {
  constructor(
    readonly line: number,
    readonly col: number,
    reason: string,
  ) {
    super('USAGE', `${line}:${col}: ${reason}`, { userFault: true });
  }
}

/** Where a node sits in its parent: what replacing it needs to know. */
export interface Place {
  flow: boolean;
  seqItem: boolean;
  /** Column of the mapping's keys or of the sequence's `-`. */
  col: number;
  /** Just after the `:` or `-`, and after the node's anchor or tag if any. */
  after: number;
}

/** The source text by lines (0-based here; errors add 1). Offsets are UTF-16 indexes, as yaml's. */
export class Source {
  readonly lineCounter = new LineCounter();
  readonly eol: string;
  private parsed?: Document.Parsed[];

  constructor(readonly text: string) {
    // The first line end decides: a CRLF file gets CRLF lines.
    const first = text.indexOf('\n');
    this.eol = first > 0 && text[first - 1] === '\r' ? '\r\n' : '\n';
  }

  /** Filled by yaml while parsing (the LineCounter is passed to parseAllDocuments). */
  private get starts(): number[] {
    return this.lineCounter.lineStarts.length > 0 ? this.lineCounter.lineStarts : [0];
  }
  get lineCount(): number {
    return this.starts.length;
  }
  lineOf(offset: number): number {
    return this.lineCounter.linePos(offset).line - 1;
  }
  col(offset: number): number {
    return offset - this.start(this.lineOf(offset));
  }
  start(line: number): number {
    return this.starts[line] ?? this.text.length;
  }
  /** Offset of the next line's start, or the end of the text. */
  next(line: number): number {
    return this.starts[line + 1] ?? this.text.length;
  }
  /** Offset of the line's end, before its `\n` or `\r\n`. */
  end(line: number): number {
    const next = this.next(line);
    if (next > this.start(line) && this.text[next - 1] === '\n') {
      return this.text[next - 2] === '\r' ? next - 2 : next - 1;
    }
    return next;
  }
  line(line: number): string {
    return this.text.slice(this.start(line), this.end(line));
  }
  /** Not the empty "line" after a final line break: it is no blank line of the file. */
  isBlank(line: number): boolean {
    return line >= 0 && this.start(line) < this.text.length && this.line(line).trim() === '';
  }
  blanksAbove(line: number): number {
    let n = 0;
    while (this.isBlank(line - 1 - n)) n++;
    return n;
  }
  blanksBelow(line: number): number {
    let n = 0;
    while (this.isBlank(line + 1 + n)) n++;
    return n;
  }
  /** The whole lines `first..last`; at an unterminated end, the line break before them instead. */
  lineSpan(first: number, last: number): { from: number; to: number } {
    const to = this.next(last);
    const unterminated = to === this.text.length && !this.text.endsWith('\n') && first > 0;
    return { from: unterminated ? this.end(first - 1) : this.start(first), to };
  }
  isComment(line: number): boolean {
    return line >= 0 && line < this.lineCount && this.line(line).trimStart().startsWith('#');
  }
  indentOf(line: number): number {
    const text = this.line(line);
    return text.length - text.trimStart().length;
  }
  /** Just after the last non-blank character before `offset` (node ranges may end past a line end). */
  contentEnd(offset: number): number {
    let at = offset;
    while (at > 0 && /\s/.test(this.text[at - 1] ?? '')) at--;
    return at;
  }
  /** The line that holds the last character of a node whose range ends at `offset`. */
  lastLine(offset: number, from: number): number {
    return this.lineOf(Math.max(from, this.contentEnd(offset) - 1));
  }
  /** Lines to insert at `offset` (a line start, or the end of a line without its line break yet). */
  insertion(offset: number, body: string): string {
    // At the end of an unterminated last line: break it, and leave the text unterminated as it was.
    return offset > 0 && this.text[offset - 1] !== '\n' ? this.eol + body : body + this.eol;
  }
  /** `lines` placed at `column`: the first line starts where the splice does, the rest are indented. */
  place(lines: readonly string[], column: number, indentFirst = false): string {
    const pad = ' '.repeat(column);
    // An empty line stays empty (a block scalar's blank line needs no indentation).
    return lines.map((l, i) => ((i > 0 || indentFirst) && l !== '' ? pad + l : l)).join(this.eol);
  }

  fail(offset: number, reason: string): never {
    const { line, col } = this.lineCounter.linePos(Math.min(offset, this.text.length));
    throw new YamlEditError(line, col, reason);
  }
  /** After the indicator at `offset` (`:` or `-`), skipping spaces and `&anchor`/`!tag` props. */
  afterProps(offset: number): number {
    let at = offset;
    for (;;) {
      let i = at;
      while (this.text[i] === ' ' || this.text[i] === '\t') i++;
      if (this.text[i] !== '&' && this.text[i] !== '!') return at;
      while (i < this.text.length && !/\s/.test(this.text[i] ?? '')) i++;
      at = i;
    }
  }
  /** Where item `index` of `parent` sits: its indicator's column and what follows it. */
  placeOf(parent: YAMLMap | YAMLSeq, index: number): Place {
    const flow = Boolean(parent.flow);
    if (isSeq(parent)) {
      if (flow) return { flow, seqItem: true, col: 0, after: 0 };
      const dash = dashes(parent)[index] ?? 0;
      return { flow, seqItem: true, col: this.col(dash), after: this.afterProps(dash + 1) };
    }
    const [, keyEnd] = rangeOf(parent.items[index]?.key);
    const colon = this.text.indexOf(':', keyEnd);
    return { flow, seqItem: false, col: this.col(rangeOf(parent)[0]), after: this.afterProps(colon + 1) };
  }
  /**
   * The text's documents with their source tokens, parsed on first use (the line counter with them);
   * read only (an editor splices the text, never the tree).
   */
  get documents(): Document.Parsed[] {
    if (this.parsed === undefined) {
      const options = { ...SCHEMA_OPTIONS, keepSourceTokens: true, lineCounter: this.lineCounter };
      this.parsed = parseAllDocuments(this.text, options) as unknown as Document.Parsed[];
    }
    return this.parsed;
  }
}

/** The start and end offsets of `node` in the text ([0, 0] for no node). */
export function rangeOf(node: unknown): [number, number] {
  const [start = 0, end = start] = isNode(node) ? (node.range ?? []) : [];
  return [start, end];
}

export interface Step {
  node: Node;
  index: number;
  place?: Place;
}

/** The nodes from the root to `path`; `missing` is a last key that the last node (a mapping) lacks. */
export function locate(s: Source, doc: Document, path: NodePath): { steps: Step[]; missing?: string } {
  let node = doc.contents as Node;
  const steps: Step[] = [{ node, index: 0 }];
  for (const [i, segment] of path.entries()) {
    const here = formatPath(path.slice(0, i)) || 'the document';
    if (isAlias(node)) s.fail(rangeOf(node)[0], `${here} is an alias (*${node.source}), not written here`);
    let index = -1;
    if (isMap(node) && typeof segment === 'string') {
      index = node.items.findIndex((pair) => keyString(pair.key) === segment);
      if (index < 0 && i === path.length - 1) return { steps, missing: segment };
      if (index < 0) s.fail(rangeOf(node)[0], `${here} has no key "${segment}"`);
    } else if (isSeq(node) && typeof segment === 'number') {
      index = Number.isInteger(segment) && segment >= 0 && segment < node.items.length ? segment : -1;
      if (index < 0) s.fail(rangeOf(node)[0], `${here} has no item ${segment} (${node.items.length} items)`);
    } else s.fail(rangeOf(node)[0], `${here} is not a ${typeof segment === 'number' ? 'list' : 'mapping'}`);
    const parent = node as YAMLMap | YAMLSeq;
    const child = isMap(parent) ? parent.items[index]?.value : parent.items[index];
    if (!isNode(child)) s.fail(rangeOf(node)[0], `${formatPath(path.slice(0, i + 1))} has no value`);
    node = child;
    steps.push({ node, index, place: s.placeOf(parent, index) });
  }
  return { steps };
}

/** The `-` offsets of a block sequence's items, from the CST (comment-only entries skipped). */
export function dashes(seq: YAMLSeq): number[] {
  const token = seq.srcToken;
  if (token?.type !== 'block-seq') throw new Error('yaml-edit: a block sequence without its CST token');
  return token.items.flatMap((item) =>
    item.start.filter((t) => t.type === 'seq-item-ind').map((t) => t.offset),
  );
}

/** Offset of the first `${` that is not the `$${` escape, as the loader reads it (env.ts). */
function referenceAt(text: string): number | undefined {
  for (let i = 0; i < text.length; i++) {
    if (text.startsWith('$${', i)) i += 2;
    else if (text.startsWith('${', i)) return i;
  }
  return undefined;
}

/**
 * Whether the value at `path` is not written literally: checked on every node from the document's
 * root to it, then inside it. A missing path is `undefined` (a field left to its default) unless a
 * node on the way is an alias or a shared anchor: adding the field there would change the other place.
 */
export function valueOrigin(
  text: string | Source,
  document: number,
  path: NodePath,
): ValueOrigin | undefined {
  const s = typeof text === 'string' ? new Source(text) : text;
  const source = s.text;
  const doc = s.documents[document];
  if (!doc) return undefined;
  const shared = new Set<string>();
  visit(doc, { Alias: (_, alias) => void shared.add(alias.source) });
  const at = (origin: ValueOrigin['origin'], offset: number): ValueOrigin => ({
    origin,
    ...s.lineCounter.linePos(offset),
  });
  const check = (node: unknown): ValueOrigin | undefined => {
    const [start, end] = rangeOf(node);
    if (isAlias(node)) return at('alias', start);
    if (isNode(node) && node.anchor && shared.has(node.anchor)) {
      return at('anchor', source.lastIndexOf(`&${node.anchor}`, start));
    }
    const reference =
      isScalar(node) && typeof node.value === 'string' ? referenceAt(source.slice(start, end)) : undefined;
    return reference === undefined ? undefined : at('variable', start + reference);
  };
  const inside = (node: unknown): ValueOrigin | undefined => {
    const found = check(node);
    if (found || isAlias(node)) return found;
    const children = isMap(node) ? node.items.map((pair) => pair.value) : isSeq(node) ? node.items : [];
    for (const child of children) {
      const origin = inside(child);
      if (origin) return origin;
    }
    return undefined;
  };
  let node: unknown = doc.contents;
  for (const segment of path) {
    const found = check(node);
    if (found) return found;
    if (isMap(node) && typeof segment === 'string') {
      node = node.items.find((pair) => keyString(pair.key) === segment)?.value;
    } else node = isSeq(node) && typeof segment === 'number' ? node.items[segment] : undefined;
    if (!isNode(node)) return undefined;
  }
  return inside(node);
}
