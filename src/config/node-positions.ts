/**
 * The positions of a fast-read document's nodes (fast-read.ts): where yaml would place each one,
 * noted while the fast reader walks the events, so that the document places every problem itself.
 */
import { EVENT_ID, getScalarValue, SCALAR_STYLE, type ScalarEvent, type ScalarStyle } from 'js-yaml';
import { Document, Pair, Scalar, YAMLMap, YAMLSeq } from 'yaml';
import type { YamlPath } from './yaml-path.js';

/** A node's kind in `Positions`: a scalar's style (SCALAR_STYLE, 1-5), or one of these. */
export const SEQUENCE = 6;
export const MAPPING = 7;

/**
 * Where yaml places each node of one document: the start of the node's range in yaml's tree, which
 * is what every problem is placed at (`offsetOf`). That is a plain scalar's first character, a quoted
 * scalar's opening quote, a block scalar's `|` or `>`, an empty value just after its `:` or `-` and
 * the spaces after it, a collection's `[`, `{`, first `-` or first key. Nodes are numbered in
 * document order (the root is 0), three typed arrays wide, so that keeping them costs ~9 bytes a node.
 */
export class Positions {
  /** Sequences' items, listed when first asked for (`pull` and natural keys ask for every item). */
  private readonly items = new Map<number, Int32Array>();

  constructor(
    private readonly text: string,
    /** A scalar's SCALAR_STYLE, or SEQUENCE or MAPPING. */
    private readonly kinds: Uint8Array,
    /** yaml's offset for the node. */
    private readonly starts: Int32Array,
    /** A scalar: where its text ends (keys are read from it); a collection: the node after its last. */
    private readonly extents: Int32Array,
  ) {}

  /** The node after `node` and everything in it. */
  private after(node: number): number {
    const kind = this.kinds[node];
    return kind === SEQUENCE || kind === MAPPING ? (this.extents[node] as number) : node + 1;
  }

  /** The nodes directly in a collection: items, or keys and values alternately. */
  private children(node: number): number[] {
    const found: number[] = [];
    const end = this.extents[node] as number;
    for (let child = node + 1; child < end; child = this.after(child)) found.push(child);
    return found;
  }

  private keyString(node: number): string {
    const style = this.kinds[node] as ScalarStyle;
    const quoted = style === SCALAR_STYLE.SINGLE_QUOTED || style === SCALAR_STYLE.DOUBLE_QUOTED;
    const start = (this.starts[node] as number) + (quoted ? 1 : 0);
    return getScalarValue(this.text, {
      type: EVENT_ID.SCALAR,
      valueStart: start,
      valueEnd: this.extents[node] as number,
      style,
      fast: false,
      anchorStart: -1,
      anchorEnd: -1,
      tagStart: -1,
      tagEnd: -1,
      chomping: 1,
      indent: 0,
    } as ScalarEvent);
  }

  /** The key node of `key` in the mapping `node`. */
  private keyNode(node: number, key: string): number | undefined {
    if (this.kinds[node] !== MAPPING) return undefined;
    const end = this.extents[node] as number;
    for (let child = node + 1; child < end; child = this.after(this.after(child))) {
      if (this.keyString(child) === key) return child;
    }
    return undefined;
  }

  private child(node: number, segment: string | number): number | undefined {
    if (typeof segment === 'string') {
      const key = this.keyNode(node, segment);
      return key === undefined ? undefined : this.after(key);
    }
    if (this.kinds[node] !== SEQUENCE) return undefined;
    let items = this.items.get(node);
    if (items === undefined) {
      items = Int32Array.from(this.children(node));
      this.items.set(node, items);
    }
    return items[segment];
  }

  /** The deepest node on `path` and how many of its segments lead to it (yaml-path's `nodeAt`). */
  private walk(path: YamlPath): { node: number; depth: number } {
    let node = 0;
    let depth = 0;
    for (const segment of path) {
      const next = this.child(node, segment);
      if (next === undefined) break;
      node = next;
      depth++;
    }
    return { node, depth };
  }

  /** Where the node at `path` starts (the deepest node on it that exists), as `nodeAt` finds it. */
  offsetAt(path: YamlPath): number {
    return this.starts[this.walk(path).node] as number;
  }

  has(path: YamlPath): boolean {
    return this.walk(path).depth === path.length;
  }

  /** The document as yaml nodes that carry these positions (values are left out): to place problems. */
  tree(): Document {
    const build = (node: number): YAMLMap | YAMLSeq | Scalar => {
      const start = this.starts[node] as number;
      const kind = this.kinds[node];
      let built: YAMLMap | YAMLSeq | Scalar;
      if (kind === SEQUENCE) {
        const seq = new YAMLSeq();
        for (const item of this.children(node)) seq.items.push(build(item));
        built = seq;
      } else if (kind === MAPPING) {
        const map = new YAMLMap();
        const nodes = this.children(node);
        for (let i = 0; i < nodes.length; i += 2) {
          const keyNode = nodes[i] as number;
          const key = new Scalar(this.keyString(keyNode));
          key.range = [this.starts[keyNode] as number, 0, 0];
          map.items.push(new Pair(key, build(nodes[i + 1] as number)));
        }
        built = map;
      } else {
        // A scalar's range ends where its text does (past a closing quote): messages quote a number
        // as it is written there.
        built = new Scalar<unknown>(null);
        const quoted = kind === SCALAR_STYLE.SINGLE_QUOTED || kind === SCALAR_STYLE.DOUBLE_QUOTED;
        const end = Math.max(start, (this.extents[node] as number) + (quoted ? 1 : 0));
        built.range = [start, end, end];
        return built;
      }
      built.range = [start, start, start];
      return built;
    };
    const doc = new Document();
    doc.contents = build(0);
    return doc;
  }
}
