/**
 * A byte-preserving YAML text editor for `wafctl pull`. yaml's Document.toString() would rewrite
 * comments on keys, non-indented sequences and custom indents, so every edit becomes a splice of the
 * original text at node ranges: one parse, every splice computed on the original text, overlaps
 * refused, then applied in order. Everything outside the edited spans stays byte for byte.
 */
import { type Document, isAlias, isNode, isSeq, parseAllDocuments, type YAMLMap, type YAMLSeq } from 'yaml';
import { isEmptyDocument, SCHEMA_OPTIONS } from '../../config/parse-yaml.js';
import { formatPath } from '../../config/yaml-path.js';
import type { NodePath, YamlEdit } from './model.js';
import {
  detectLayout,
  isScalarValue,
  type Layout,
  renderFlow,
  renderItem,
  renderPair,
  replacement,
} from './yaml-render.js';
import { dashes, locate, type Place, rangeOf, Source, type Step } from './yaml-source.js';

export { valueOrigin, YamlEditError } from './yaml-source.js';

type Collection = YAMLMap | YAMLSeq;
interface Splice {
  from: number;
  to: number;
  text: string;
  edit: number;
  /** Of lines inserted at the same offset, the more indented go first (a key of the last item, then a new item). */
  depth?: number;
}
/** Removals and additions of one collection, or top-level keys of an empty or new document. */
interface Group {
  node?: Collection;
  place?: Place;
  removed: Map<number, number>;
  added: { key?: string; value: unknown; block: boolean; edit: number }[];
}

const isPrefix = (a: NodePath, b: NodePath) => a.length <= b.length && a.every((s, i) => b[i] === s);

class Editor {
  readonly docs: Document.Parsed[];
  readonly layout: Layout;
  readonly splices: Splice[] = [];
  readonly groups = new Map<unknown, Group>();

  constructor(readonly s: Source) {
    this.docs = s.documents;
    for (const doc of this.docs) {
      const [error] = doc.errors;
      if (error) this.s.fail(error.pos[0], `the file is not valid YAML: ${error.message.split('\n')[0]}`);
    }
    this.layout = detectLayout(this.docs, s);
  }

  group(key: unknown, node?: Collection, place?: Place): Group {
    let group = this.groups.get(key);
    if (!group) {
      group = { node, place, removed: new Map(), added: [] };
      this.groups.set(key, group);
    }
    return group;
  }

  add(group: Group, key: string | undefined, value: unknown, block: boolean, edit: number, at: number): void {
    if (key !== undefined && group.added.some((a) => a.key === key))
      this.s.fail(at, `key "${key}" added twice`);
    group.added.push({ key, value, block, edit });
  }

  apply(edits: readonly YamlEdit[]): string {
    const at = edits.map((edit, e) => this.plan(edit, e));
    for (const [i, a] of edits.entries()) {
      for (const [j, b] of edits.entries()) {
        if (i === j || a.op === 'append' || a.document !== b.document || !isPrefix(a.path, b.path)) continue;
        const what = a.op === 'set' ? 'replaced' : 'removed';
        this.s.fail(
          at[j] ?? 0,
          `overlapping edits: ${formatPath(a.path)} is ${what} and ${formatPath(b.path)} edited`,
        );
      }
    }
    for (const [key, group] of this.groups) {
      if (typeof key === 'number') this.document(group, key);
      else if (group.node?.flow) this.flow(group, group.node);
      else if (group.node) this.block(group, group.node);
    }
    const sorted = [...this.splices].sort(
      (a, b) => a.from - b.from || a.to - b.to || (b.depth ?? 0) - (a.depth ?? 0),
    );
    let out = '';
    let done = 0;
    let previous: Splice | undefined;
    for (const splice of sorted) {
      if (previous && splice.from < done) {
        const [a, b] = [edits[previous.edit]?.path ?? [], edits[splice.edit]?.path ?? []];
        this.s.fail(splice.from, `overlapping edits: ${formatPath(a)} and ${formatPath(b)}`);
      }
      out += this.s.text.slice(done, splice.from) + splice.text;
      done = splice.to;
      previous = splice;
    }
    return out + this.s.text.slice(done);
  }

  /** Turns one edit into a splice or a group entry; returns an offset to name in errors. */
  plan(edit: YamlEdit, e: number): number {
    const { document: n, path } = edit;
    if (!Number.isInteger(n) || n < 0 || n > this.docs.length) {
      this.s.fail(this.s.text.length, `no document ${n} (the file has ${this.docs.length})`);
    }
    const doc = this.docs[n];
    if (path.length === 0) this.s.fail(rangeOf(doc?.contents)[0], 'an edit needs a non-empty path');
    const value = edit.op === 'set' ? edit.value : edit.op === 'append' ? edit.values : undefined;
    if (!doc || isEmptyDocument(doc)) {
      const [key] = path;
      const at = doc?.range[1] ?? this.s.text.length;
      if (edit.op === 'remove' || path.length > 1 || typeof key !== 'string') {
        this.s.fail(at, `${formatPath(path)} does not exist: document ${n} is empty`);
      }
      this.add(this.group(n), key, value, edit.op === 'append', e, at);
      return at;
    }
    const { steps, missing } = locate(this.s, doc, path);
    const target = steps.at(-1) as Step;
    const [at] = rangeOf(target.node);
    if (missing !== undefined) {
      if (edit.op === 'remove') this.s.fail(at, `${formatPath(path)} does not exist`);
      const map = target.node as YAMLMap;
      this.add(this.group(map, map, target.place), missing, value, edit.op === 'append', e, at);
    } else if (edit.op === 'remove') {
      const parent = steps.at(-2) as Step;
      this.group(parent.node, parent.node as Collection, parent.place).removed.set(target.index, e);
    } else if (isAlias(target.node)) {
      this.s.fail(at, `${formatPath(path)} is an alias (*${target.node.source}), not written here`);
    } else if (edit.op === 'append') {
      if (!isSeq(target.node)) this.s.fail(at, `${formatPath(path)} is not a list`);
      const group = this.group(target.node, target.node, target.place);
      for (const item of edit.values) this.add(group, undefined, item, false, e, at);
    } else
      this.splices.push({
        ...replacement(this.s, this.layout, target.node, target.place, edit.value, false),
        edit: e,
      });
    return at;
  }

  /** Top-level keys for an empty document (written in it) or a new one (`---` at the end). */
  document(group: Group, n: number): void {
    const s = this.s;
    const pairs = group.added.map((a) => s.place(renderPair(a.key ?? '', a.value, this.layout, a.block), 0));
    const doc = this.docs[n];
    const at = doc ? doc.range[1] : s.text.length;
    const body = [...(doc || this.docs.length === 0 ? [] : ['---']), ...pairs].join(s.eol);
    this.splices.push({ from: at, to: at, text: s.insertion(at, body), edit: group.added[0]?.edit ?? 0 });
  }

  flow(group: Group, coll: Collection): void {
    const spans = coll.items.map((item) => {
      if (isSeq(coll)) return rangeOf(item);
      const pair = item as YAMLMap['items'][number];
      return [rangeOf(pair.key)[0], rangeOf(pair.value ?? pair.key)[1]] as const;
    });
    const n = spans.length;
    const added = group.added.map((a) => renderFlow(a.value, a.key)).join(', ');
    const edit = group.added[0]?.edit ?? 0;
    if (
      n === 0 &&
      isSeq(coll) &&
      group.place &&
      !group.place.flow &&
      !group.added.every((a) => isScalarValue(a.value))
    ) {
      // Objects read badly in `[...]`: an empty flow list receiving them becomes a block one.
      const values = group.added.map((a) => a.value);
      this.splices.push({ ...replacement(this.s, this.layout, coll, group.place, values, true), edit });
      return;
    }
    const kept = n - group.removed.size;
    for (const [i, j, e] of this.runs(group)) {
      const from = j < n - 1 ? spans[i]?.[0] : i > 0 ? spans[i - 1]?.[1] : spans[0]?.[0];
      const to = j < n - 1 ? spans[j + 1]?.[0] : spans[j]?.[1];
      this.splices.push({ from: from ?? 0, to: to ?? 0, text: kept === 0 ? added : '', edit: e });
    }
    if (added === '' || (n > 0 && kept === 0)) return; // all removed: the added replace them (above)
    // After the last item (a trailing comma stays after the new ones), or just inside the bracket.
    const at = n > 0 ? (spans[n - 1]?.[1] ?? 0) : rangeOf(coll)[0] + 1;
    this.splices.push({ from: at, to: at, text: (n > 0 ? ', ' : '') + added, edit });
  }

  /** Maximal runs [first, last, edit] of consecutive removed indexes. */
  runs(group: Group): [number, number, number][] {
    const runs: [number, number, number][] = [];
    for (const i of [...group.removed.keys()].sort((a, b) => a - b)) {
      const run = runs.at(-1);
      if (run && run[1] === i - 1) run[1] = i;
      else runs.push([i, i, group.removed.get(i) ?? 0]);
    }
    return runs;
  }

  block(group: Group, coll: Collection): void {
    const s = this.s;
    const starts = isSeq(coll) ? dashes(coll) : coll.items.map((pair) => rangeOf(pair.key)[0]);
    const col = s.col(isSeq(coll) ? (starts[0] ?? 0) : rangeOf(coll)[0]);
    const isRoot = this.docs.some((doc) => doc.contents === coll);
    // Each item's lines: the comment lines just above it at its column, its value, deeper comments after.
    const regions: { first: number; last: number }[] = [];
    for (const [i, item] of coll.items.entries()) {
      const start = starts[i] ?? 0;
      const node = isSeq(coll)
        ? item
        : ((item as YAMLMap['items'][number]).value ?? (item as { key: unknown }).key);
      let last = isNode(node) ? s.lastLine(rangeOf(node)[1], start) : s.lineOf(start);
      while (s.isComment(last + 1) && s.indentOf(last + 1) > col) last++;
      let first = s.lineOf(start);
      const bound = i > 0 ? (regions[i - 1]?.last ?? 0) + 1 : isRoot ? first : 0;
      while (first > bound && s.isComment(first - 1) && s.indentOf(first - 1) === col) first--;
      regions.push({ first, last });
    }
    const n = regions.length;
    const kept = n - group.removed.size;
    if (kept === 0 && group.added.length === 0) {
      const [[, , edit] = [0, 0, 0]] = this.runs(group);
      this.splices.push({
        ...replacement(this.s, this.layout, coll, group.place, isSeq(coll) ? [] : {}, false),
        edit,
      });
      return;
    }
    for (const [i, j, edit] of this.runs(group)) {
      const start = starts[0] ?? 0;
      if (i === 0 && s.col(start) > s.indentOf(s.lineOf(start))) {
        // The first pair of `- name: x` shares the dash's line: the next one moves up to it.
        const to = j < n - 1 ? (starts[j + 1] ?? start) : s.end(regions[j]?.last ?? 0);
        this.splices.push({ from: start, to, text: '', edit });
        continue;
      }
      let first = regions[i]?.first ?? 0;
      let last = regions[j]?.last ?? 0;
      const above = s.blanksAbove(first);
      const below = s.blanksBelow(last);
      // One gap between the remaining neighbours, none before the first or after the last.
      if (j === n - 1) first -= i > 0 ? above : 0;
      else if (i === 0 || (above > 0 && below > 0)) last += below;
      this.splices.push({ ...s.lineSpan(first, last), text: '', edit });
    }
    if (group.added.length === 0) return;
    let tail = regions[n - 1]?.last ?? 0;
    while (s.isComment(tail + 1) && s.indentOf(tail + 1) >= col) tail++;
    const gap = n >= 2 ? s.blanksAbove(regions[n - 1]?.first ?? 0) : 0;
    const pieces = group.added.flatMap((a, k) => {
      const lines = isSeq(coll)
        ? renderItem(a.value, this.layout)
        : renderPair(a.key ?? '', a.value, this.layout, a.block);
      return [...Array<string>(kept > 0 || k > 0 ? gap : 0).fill(''), s.place(lines, col, true)];
    });
    const at = s.next(tail);
    const text = s.insertion(at, pieces.join(s.eol));
    this.splices.push({ from: at, to: at, text, edit: group.added[0]?.edit ?? 0, depth: col + 1 });
  }
}

/**
 * `source` with `edits` applied (see YamlEdit), every byte outside the edited spans unchanged.
 * Throws YamlEditError for a path that does not exist (other than a last key to add), a path
 * through an alias, and edits that overlap.
 */
export function editYaml(text: string | Source, edits: readonly YamlEdit[]): string {
  const source = typeof text === 'string' ? new Source(text) : text;
  if (edits.length === 0) return source.text;
  const result = new Editor(source).apply(edits);
  // A safety net: a splice that broke the file is a bug here, never something to write.
  for (const doc of parseAllDocuments(result, SCHEMA_OPTIONS) as unknown as Document[]) {
    const [error] = doc.errors;
    if (error) throw new Error(`yaml-edit produced invalid YAML: ${error.message}`);
  }
  return result;
}
