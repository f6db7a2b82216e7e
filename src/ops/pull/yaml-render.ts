/**
 * New values for the YAML text editor (yaml-edit.ts): rendered with yaml's stringifier configured
 * like `wafctl export` (src/ops/export/document.ts), in the file's indentation style, as lines at
 * column 0 that the editor re-indents to where they go.
 */
import {
  Document,
  isMap,
  isNode,
  isScalar,
  isSeq,
  type Node,
  Scalar,
  type ToStringOptions,
  visit,
  type YAMLSeq,
} from 'yaml';
import { SCHEMA_OPTIONS } from '../../config/parse-yaml.js';
import { escapeSubstitutions } from '../export/document.js';
import { type Place, rangeOf, type Source } from './yaml-source.js';

/** The file's block style, so that new nested collections look like their neighbours. */
export interface Layout {
  /** Spaces per nesting level of a block mapping (2 or 4, usually). */
  indent: number;
  /** `key:\n  - x` (true) or `key:\n- x` (false). */
  indentSeq: boolean;
}

/** As export: short lists of scalars inline (`users: [u-1, u-2]`), longer ones one per line. */
const MAX_FLOW_LIST_CHARS = 60;

/** Whether `value` is written as a scalar (null included), not as a mapping or a sequence. */
export function isScalarValue(value: unknown): boolean {
  return value === null || typeof value !== 'object';
}

/** The first nested block mapping and sequence (in source order) set the style. */
export function detectLayout(docs: readonly Document[], source: Source): Layout {
  let indent: number | undefined;
  let seqIndent: number | undefined;
  let indentSeq: boolean | undefined;
  for (const doc of docs) {
    visit(doc, {
      Pair(_, pair) {
        const value = pair.value;
        if (!isNode(pair.key) || !(isMap(value) || isSeq(value)) || value.flow) return;
        const [keyAt = 0] = pair.key.range ?? [];
        const [valueAt = 0] = value.range ?? [];
        if (source.lineOf(keyAt) === source.lineOf(valueAt)) return;
        const depth = source.col(valueAt) - source.col(keyAt);
        if (isSeq(value)) {
          indentSeq ??= depth > 0;
          if (depth > 0) seqIndent ??= depth;
        } else if (depth > 0) indent ??= depth;
      },
    });
  }
  // yaml writes `- ` inside the indentation when indentSeq is off: with 4 spaces its dashes would
  // land 2 columns in, so a file with non-indented sequences gets 2-space mappings.
  if (indentSeq === false) return { indent: 2, indentSeq };
  return { indent: indent ?? seqIndent ?? 2, indentSeq: true };
}

function options(layout: Layout): ToStringOptions {
  return {
    indent: layout.indent,
    indentSeq: layout.indentSeq,
    lineWidth: 0, // never fold: a long value stays on its line
    flowCollectionPadding: false, // `[a, b]`, `{a: 1}` as export writes them
    doubleQuotedMinMultiLineLength: Number.MAX_SAFE_INTEGER, // "a\nb" stays one line
  };
}

const FLOW: Layout = { indent: 2, indentSeq: true };

function isShortScalarList(seq: YAMLSeq): boolean {
  const scalars = seq.items.filter(isScalar);
  const width = scalars.reduce<number>((sum, item) => sum + String(item.value).length + 2, 0);
  return scalars.length === seq.items.length && width <= MAX_FLOW_LIST_CHARS;
}

/** `value` must already be escaped. `flow`: every collection inline, or export's short-list rule. */
function lines(
  value: unknown,
  layout: Layout,
  flow: boolean,
  blockTop?: (doc: Document) => unknown,
): string[] {
  const doc = new Document(value, SCHEMA_OPTIONS);
  visit(doc, {
    Map(_, map) {
      if (flow) map.flow = true;
    },
    Seq(_, seq) {
      if (flow || isShortScalarList(seq)) seq.flow = true;
    },
  });
  const top = blockTop?.(doc);
  if (isMap(top) || isSeq(top)) top.flow = false;
  return doc.toString(options(layout)).replace(/\n$/, '').split('\n');
}

/** A value on its own (a block collection, or one line); `block`: a top collection stays block. */
export function renderValue(value: unknown, layout: Layout, block: boolean): string[] {
  return lines(escapeSubstitutions(value), layout, false, block ? (doc) => doc.contents : undefined);
}

/** `key: value` lines; `block`: the value, if a collection, is a block one. */
export function renderPair(key: string, value: unknown, layout: Layout, block: boolean): string[] {
  const pair = new Map([[key, escapeSubstitutions(value)]]);
  return lines(pair, layout, false, block ? (doc) => doc.getIn([key], true) : undefined);
}

/** `- value` lines of a block sequence item. */
export function renderItem(value: unknown, layout: Layout): string[] {
  return lines([escapeSubstitutions(value)], layout, false, (doc) => doc.contents);
}

/** An item of a flow collection (`key: value` for a mapping's pair), on one line. */
export function renderFlow(value: unknown, key?: string): string {
  const escaped = escapeSubstitutions(value);
  const text = lines(key === undefined ? [escaped] : new Map([[key, escaped]]), FLOW, true).join(' ');
  return text.slice(1, -1); // inside `[...]` / `{...}`: quoted as a flow context needs
}

/**
 * A scalar replacing one written in `style`: quoting kept where it can hold the value, a plain
 * scalar stays plain unless it would be read as another type (`"true"`, `"514"`), and a multi-line
 * string stays one line (double-quoted) unless it replaces a block scalar. Lines, for a block scalar.
 */
export function renderScalar(value: unknown, style: string | undefined, inFlow: boolean, layout: Layout) {
  const scalar = new Scalar(escapeSubstitutions(value));
  if (typeof value === 'string') {
    const multiLine = value.includes('\n');
    if (style === Scalar.BLOCK_LITERAL || style === Scalar.BLOCK_FOLDED) {
      scalar.type = multiLine && !inFlow ? style : undefined;
    } else if (multiLine || style === Scalar.QUOTE_DOUBLE) scalar.type = Scalar.QUOTE_DOUBLE;
    else if (style === Scalar.QUOTE_SINGLE) scalar.type = Scalar.QUOTE_SINGLE;
  }
  if (inFlow) return [lines([scalar], FLOW, true).join(' ').slice(1, -1)];
  const [first = '', ...rest] = lines(new Map([['k', scalar]]), layout, false);
  return [first.slice('k: '.length), ...rest];
}

/** How far a new block collection is indented from its key. */
function depth(layout: Layout, value: unknown): number {
  return Array.isArray(value) && !layout.indentSeq ? 0 : layout.indent;
}

/**
 * The splice that writes `value` in place of `node`, in the node's style: flow stays flow, block
 * stays block (`block` forces block for a collection), a scalar keeps its quoting where it can.
 */
export function replacement(
  s: Source,
  layout: Layout,
  node: Node,
  place: Place | undefined,
  value: unknown,
  block: boolean,
): { from: number; to: number; text: string } {
  const [start, valueEnd] = rangeOf(node);
  const end = Math.max(start, s.contentEnd(valueEnd));
  // An empty value (`key:`, `-`) has nothing between it and its indicator.
  const gap = start === end && !/\s/.test(s.text[start - 1] ?? ' ') ? ' ' : '';
  const inFlow = place?.flow ?? false;
  const collection = isMap(node) || isSeq(node);
  let rendered: string[];
  if (isScalarValue(value))
    rendered = renderScalar(value, isScalar(node) ? node.type : undefined, inFlow, layout);
  else if (inFlow || (collection && node.flow && !block)) rendered = [renderFlow(value)];
  else rendered = renderValue(value, layout, collection || block);
  // On the indicator's line: a scalar, or a flow or empty collection.
  const inline = isScalarValue(value) || /^[[{]/.test(rendered[0] ?? '');
  if (!collection || node.flow) {
    if (inline || !place) return { from: start, to: end, text: gap + s.place(rendered, place?.col ?? 0) };
    // After `- `, a block collection starts on the item's line.
    if (place.seqItem)
      return { from: start, to: end, text: gap + s.place(rendered, gap ? place.col + 2 : s.col(start)) };
    // After `key:`, on the next lines (a comment after the old value stays on the key's line).
    const lineEnd = s.end(s.lineOf(end));
    const text =
      s.text.slice(end, lineEnd) + s.eol + s.place(rendered, place.col + depth(layout, value), true);
    return { from: place.after, to: lineEnd, text };
  }
  const lineEnd = s.end(s.lastLine(valueEnd, start));
  if (!inline && place && !place.seqItem && isSeq(node) !== Array.isArray(value)) {
    // A list becoming a mapping or back: indented from its key, not like the old (`key:\n- x`).
    const from = s.start(s.lineOf(start));
    return { from, to: lineEnd, text: s.place(rendered, place.col + depth(layout, value), true) };
  }
  if (!inline || !place) return { from: start, to: lineEnd, text: s.place(rendered, s.col(start)) };
  // `key: []` in place of a block collection; a comment on the key's line stays there.
  const keyLine = s.lineOf(place.after);
  const tail = s.lineOf(start) > keyLine ? s.text.slice(place.after, s.end(keyLine)) : '';
  return { from: place.after, to: lineEnd, text: ` ${s.place(rendered, place.col)}${tail}` };
}
