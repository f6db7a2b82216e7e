/**
 * The fast reader. Configuration files are, nearly always, block and flow collections of plain and
 * quoted scalars, and js-yaml's event parser reads those about four times faster than yaml does
 * (BENCHMARKS.md: 3.7 MB of rules in ~0.35 s against ~1.3 s). yaml stays the reference reader: this
 * one takes a file only where it reads it exactly as `parseYamlFile` does, and declines (returns
 * undefined, and yaml reads the file) anything else:
 * - `${` anywhere (substitution works on yaml's nodes), `%` directives, tabs, carriage returns, a BOM,
 *   `\U` escapes;
 * - anchors, aliases, tags, null or empty documents, no document, a document that is a scalar;
 * - mapping keys that are collections, or plain scalars that are not strings (`~`, `1`, `true`);
 * - quoted scalars over several lines;
 * - text that is not text (control characters, lone surrogates: `characterProblem`), and double-quoted
 *   scalars whose escapes make such characters (`"\0"`, `"\uD800"`);
 * - anything js-yaml refuses: syntax errors, duplicate keys, nesting deeper than MAX_NESTING (yaml's
 *   reader then says where, from its lexer, before building anything). js-yaml finds a duplicate as
 *   it adds the key to the mapping's object (`hasOwnProperty`: one lookup a key, linear);
 * - a mapping of more than MAX_MAPPING_KEYS keys, declined before anything is built from the events
 *   (yaml's reader refuses it, at the mapping);
 * - a node it cannot place as yaml does (`Positions`, node-positions.ts): an empty value inside a
 *   flow collection, a mapping written inside a flow sequence without braces, a block mapping that
 *   starts with `?`.
 * Plain scalars are resolved by yaml's own core-schema tags, tried in yaml's order, so `0o17`,
 * `.inf`, `~` or `0b1` mean here what they mean to yaml.
 *
 * Which reader reads a file is decided once, before anything is validated: a declined file has
 * produced nothing (js-yaml's events are dropped) and yaml reads it; a file taken here is read by
 * nothing else. Its documents place every problem themselves: while walking the events, the reader
 * notes where yaml would place each node (`Positions`), and `locate`, `has` and `tree` answer from
 * those notes. test/config/fast-read.test.ts pins every node's place against yaml's.
 */
import {
  COLLECTION_STYLE,
  constructFromEvents,
  defineScalarTag,
  EVENT_ID,
  type Event,
  FAILSAFE_SCHEMA,
  getScalarValue,
  type MappingEvent,
  NOT_RESOLVED,
  parseEvents,
  SCALAR_STYLE,
  type ScalarEvent,
  type SequenceEvent,
} from 'js-yaml';
import { isScalar, LineCounter, Schema } from 'yaml';
import { MAX_MAPPING_KEYS } from './key-check.js';
import { MAPPING, Positions, SEQUENCE } from './node-positions.js';
import { MAX_FILE_BYTES, type ParsedDocument, SCHEMA_OPTIONS } from './parse-yaml.js';
import { characterProblem, MAX_NESTING, valueProblem } from './text-checks.js';

/**
 * Text that sends a file to yaml (see the module comment): `${`, tab, CR, BOM, a `%` directive, and
 * `\U` escapes (js-yaml takes those beyond U+10FFFF).
 */
const DECLINED_TEXT = ['${', '\t', '\r', '\uFEFF', '\n%', '\\U'];

function declines(text: string): boolean {
  return text.startsWith('%') || DECLINED_TEXT.some((part) => text.includes(part));
}

/** yaml's implicit tags for plain scalars (null, bool, int, float), in the order yaml tries them. */
export const CORE_TAGS = new Schema(SCHEMA_OPTIONS).tags.flatMap((tag) =>
  tag.default === true && tag.test !== undefined && !tag.collection ? [{ test: tag.test, tag }] : [],
);

/**
 * Every character a plain scalar matched by one of CORE_TAGS can start with ('' for the empty
 * scalar, yaml's null). js-yaml resolves other plain scalars as strings without asking the tag, which
 * spares most scalars (hosts, names, regexes) eight regular expressions. Pinned against CORE_TAGS by
 * test/config/fast-read.test.ts.
 */
export const CORE_TAG_FIRST_CHARS = ['', '~', 'n', 'N', 't', 'T', 'f', 'F', '-', '+', '.', ...'0123456789'];

const CORE_FIRST_CHARS = new Set(CORE_TAG_FIRST_CHARS);

class ResolveFailed extends Error {}

/** One implicit tag for js-yaml that asks yaml's tags, so plain scalars resolve exactly as yaml does. */
const yamlCoreScalar = defineScalarTag<unknown>('tag:wafctl,2026:yaml-core-plain-scalar', {
  implicit: true,
  implicitFirstChars: CORE_TAG_FIRST_CHARS,
  resolve(source) {
    const match = CORE_TAGS.find(({ test }) => test.test(source));
    if (match === undefined) return NOT_RESOLVED; // a string
    const value = match.tag.resolve(
      source,
      (message) => {
        throw new ResolveFailed(message);
      },
      { intAsBigInt: false },
    );
    return isScalar(value) ? value.value : value;
  },
  identify: () => false,
});

/** Strings shorter than V8's sliced strings (13) are copied out of the text one by one. */
const SHORT_STRING = 13;

/**
 * The schema of one file: yaml's plain scalars, and strings as js-yaml reads them, except that a
 * short one met before is the earlier copy (`high`, `match`, `block`, ... recur in every rule:
 * 100,000 rules held some 700,000 copies of a few dozen values). Longer strings are slices of the
 * text, which copies nothing.
 */
function fileSchema() {
  const seen = new Map<string, string>();
  const strTag = defineScalarTag<string>('tag:yaml.org,2002:str', {
    resolve(source) {
      if (source.length >= SHORT_STRING) return source;
      const earlier = seen.get(source);
      if (earlier !== undefined) return earlier;
      seen.set(source, source);
      return source;
    },
    identify: (data) => typeof data === 'string',
  });
  return FAILSAFE_SCHEMA.withTags(strTag, yamlCoreScalar);
}

/** yaml's limit on an implicit key's length; js-yaml has none. */
const MAX_IMPLICIT_KEY = 1024;

function hasEscape(text: string, start: number, end: number): boolean {
  const backslash = text.indexOf('\\', start);
  return backslash !== -1 && backslash < end;
}

function spansLines(text: string, start: number, end: number): boolean {
  const newline = text.indexOf('\n', start);
  return newline !== -1 && newline < end;
}

/**
 * Whether js-yaml reads this scalar as yaml does. Found otherwise by the differential test
 * (test/config/fast-read.test.ts): a quoted scalar over several lines (an escaped line break before
 * an empty line), a document that is one scalar (block scalar indentation indicators), and keys that
 * are not strings (`~: a` gives "null", not "") or longer than yaml allows.
 */
function scalarTaken(text: string, event: ScalarEvent, isKey: boolean, isRoot: boolean): boolean {
  if (isRoot) return false;
  const { style, valueStart: start, valueEnd: end } = event;
  const quoted = style === SCALAR_STYLE.SINGLE_QUOTED || style === SCALAR_STYLE.DOUBLE_QUOTED;
  if (quoted && spansLines(text, start, end)) return false;
  // Only escapes can put in a value what the text check refused in the text.
  if (style === SCALAR_STYLE.DOUBLE_QUOTED && hasEscape(text, start, end)) {
    if (valueProblem(getScalarValue(text, event)) !== undefined) return false;
  }
  if (!isKey) return true;
  if (end - start > MAX_IMPLICIT_KEY) return false;
  if (style !== SCALAR_STYLE.PLAIN) return true;
  // A key no core tag can start with is a non-empty string: no need to read it (most keys).
  if (end > start && !CORE_FIRST_CHARS.has(text.charAt(start))) return true;
  const source = getScalarValue(text, event);
  return source !== '' && !CORE_TAGS.some(({ test }) => test.test(source));
}

/** Skips blanks, line breaks, comments and the ends of flow collections from `at`. */
function skipBetweenNodes(text: string, at: number): number {
  let i = at;
  for (;;) {
    const c = text[i];
    if (c === ' ' || c === '\n' || c === ']' || c === '}' || c === ',') i++;
    else if (c === '#') {
      const end = text.indexOf('\n', i);
      i = end === -1 ? text.length : end;
    } else return i;
  }
}

/** An empty value after `last` (the end of what comes before it): just after its indicator and spaces. */
function emptyValueAt(text: string, last: number, indicator: ':' | '-'): number | undefined {
  let i = skipBetweenNodes(text, last);
  if (text[i] !== indicator) return undefined;
  i++;
  while (text[i] === ' ') i++;
  return i;
}

/** A block scalar's `|` or `>` after `last`, past the indicators (`:`, `-`, `?`) before it. */
function blockHeaderAt(text: string, last: number): number | undefined {
  let i = skipBetweenNodes(text, last);
  while (text[i] === ':' || text[i] === '-' || text[i] === '?') i = skipBetweenNodes(text, i + 1);
  return text[i] === '|' || text[i] === '>' ? i : undefined;
}

interface Frame {
  type: 'document' | 'sequence' | 'mapping';
  flow: boolean;
  /** Mappings: whether the next node is a key. */
  atKey: boolean;
  /** Mappings: the keys read so far. */
  keys: number;
  /** The collection's node number. */
  node: number;
}

/**
 * A walk over the events of a file, noting where yaml places each node (`Positions`), one document
 * after another. The frames of the stack are reused from one collection to the next: a file of 1,000
 * rules opens some 10,000.
 */
class EventWalk {
  /** Each document's positions, once its last event is read. */
  readonly found: Positions[] = [];
  private readonly kinds: Uint8Array;
  private readonly starts: Int32Array;
  private readonly extents: Int32Array;
  /** The nodes noted so far, in all documents. */
  private count = 0;
  /**
   * Where the text read so far ends: the last scalar's end, the last collection's start (past a `[`
   * or `{`).
   */
  private last = 0;
  private readonly stack: Frame[] = [];
  private depth = 0;

  constructor(
    private readonly text: string,
    events: number,
  ) {
    this.kinds = new Uint8Array(events);
    this.starts = new Int32Array(events);
    this.extents = new Int32Array(events);
  }

  /** Notes one event; false when it is outside what the fast reader takes. */
  take(event: Event): boolean {
    if (event.type === EVENT_ID.POP) {
      this.pop();
      return true;
    }
    if (event.type === EVENT_ID.DOCUMENT) {
      if (event.directives.length > 0) return false;
      this.push('document', false, this.count);
      return true;
    }
    if (event.type === EVENT_ID.ALIAS || event.anchorStart !== -1 || event.tagStart !== -1) return false;
    const parent = this.depth > 0 ? this.stack[this.depth - 1] : undefined;
    if (parent === undefined) return false;
    const isKey = parent.type === 'mapping' && parent.atKey;
    if (isKey && ++parent.keys > MAX_MAPPING_KEYS) return false; // yaml's reader refuses it
    if (parent.type === 'mapping') parent.atKey = !parent.atKey;
    if (event.type === EVENT_ID.SCALAR) return this.scalar(event, parent, isKey);
    return !isKey && this.collection(event); // a collection as a mapping key is not taken
  }

  private push(type: Frame['type'], flow: boolean, node: number): void {
    const frame = this.stack[this.depth] ?? { type, flow, atKey: true, keys: 0, node };
    this.stack[this.depth++] = frame;
    frame.type = type;
    frame.flow = flow;
    frame.atKey = true;
    frame.keys = 0;
    frame.node = node;
  }

  private add(kind: number, start: number, extent: number): number {
    this.kinds[this.count] = kind;
    this.starts[this.count] = start;
    this.extents[this.count] = extent;
    return this.count++;
  }

  /** The end of a collection (its extent), or of a document (its positions, numbered from its root). */
  private pop(): void {
    const frame = this.stack[--this.depth] as Frame;
    const count = this.count;
    if (frame.type !== 'document') {
      this.extents[frame.node] = count;
      return;
    }
    const at = frame.node;
    const kinds = this.kinds;
    const extents = this.extents.slice(at, count).map((extent, i) => {
      const kind = kinds[at + i];
      return kind === SEQUENCE || kind === MAPPING ? extent - at : extent;
    });
    this.found.push(new Positions(this.text, kinds.slice(at, count), this.starts.slice(at, count), extents));
  }

  /** A scalar, placed as yaml places it (see `Positions`); false when it is not taken. */
  private scalar(event: ScalarEvent, parent: Frame, isKey: boolean): boolean {
    const text = this.text;
    if (!scalarTaken(text, event, isKey, parent.type === 'document')) return false;
    const { style, valueStart, valueEnd } = event;
    let start: number | undefined;
    if (valueStart === -1) {
      // An empty value (yaml's null): placed after its indicator, which flow collections may omit.
      if (parent.flow) return false;
      start = emptyValueAt(text, this.last, parent.type === 'mapping' ? ':' : '-');
      this.last = start ?? this.last;
    } else if (style === SCALAR_STYLE.PLAIN) {
      start = valueStart;
      this.last = valueEnd;
    } else if (style === SCALAR_STYLE.SINGLE_QUOTED || style === SCALAR_STYLE.DOUBLE_QUOTED) {
      start = valueStart - 1;
      if (text[start] !== (style === SCALAR_STYLE.SINGLE_QUOTED ? "'" : '"')) return false;
      this.last = valueEnd + 1;
    } else {
      start = blockHeaderAt(text, this.last);
      this.last = valueEnd;
    }
    if (start === undefined) return false;
    this.add(style, start, valueStart === -1 ? start : valueEnd);
    return true;
  }

  /** A sequence or mapping opened; false when it is not taken (see the module comment). */
  private collection(event: SequenceEvent | MappingEvent): boolean {
    const flow = event.style === COLLECTION_STYLE.FLOW;
    const opener = this.text[event.start];
    const sequence = event.type === EVENT_ID.SEQUENCE;
    if (flow ? opener !== (sequence ? '[' : '{') : opener === '?') return false;
    this.last = flow ? event.start + 1 : event.start; // past a `[` or `{`: its `]` or `}` is skipped
    const node = this.add(sequence ? SEQUENCE : MAPPING, event.start, 0);
    this.push(sequence ? 'sequence' : 'mapping', flow, node);
    return true;
  }
}

/** Each document's positions, or undefined if any event is outside what the fast reader takes. */
function positionsOf(text: string, events: readonly Event[]): Positions[] | undefined {
  const walk = new EventWalk(text, events.length);
  for (const event of events) {
    if (!walk.take(event)) return undefined;
  }
  return walk.found.length > 0 ? walk.found : undefined;
}

function lineCounterOf(text: string): LineCounter {
  const lines = new LineCounter();
  lines.addNewLine(0);
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines.addNewLine(i + 1);
  return lines;
}

/** The file's documents as `parseYamlFile` would return them, or undefined to have yaml read it. */
export function readFast(file: string, text: string): ParsedDocument[] | undefined {
  if (declines(text) || Buffer.byteLength(text, 'utf8') > MAX_FILE_BYTES) return undefined;
  if (characterProblem(text) !== undefined) return undefined;
  let positions: Positions[] | undefined;
  let values: unknown[];
  try {
    const events = parseEvents(text, { filename: file, maxDepth: MAX_NESTING });
    positions = positionsOf(text, events);
    if (positions === undefined) return undefined;
    values = constructFromEvents(events, { source: text, schema: fileSchema(), maxAliases: 0 });
  } catch {
    return undefined; // yaml will say what is wrong, and where
  }
  // A null document is empty (yaml skips it) or an explicit `null` (a problem): yaml's call either way.
  if (values.length !== positions.length || values.some((value) => value === null)) return undefined;
  const lines = lazyLines(text);
  // No document is empty (see above), so their indexes are yaml's too.
  return positions.map((places, index) => fastDocument(file, index, values[index], places, lines, text));
}

/** The file's line starts, counted on first use. */
function lazyLines(text: string): () => LineCounter {
  let lines: LineCounter | undefined;
  return () => {
    lines ??= lineCounterOf(text);
    return lines;
  };
}

/**
 * A fast-read document. Its own function, so that its closures hold this document's data and
 * positions only, not the whole file's (a caller may let go of the data once validated: positions
 * do not need it).
 */
function fastDocument(
  file: string,
  index: number,
  data: unknown,
  positions: Positions,
  lines: () => LineCounter,
  text: string,
): ParsedDocument {
  return {
    file,
    index,
    data,
    reportedPaths: new Set(),
    locate: (path) => lines().linePos(positions.offsetAt(path)),
    has: (path) => positions.has(path),
    tree: () => ({ doc: positions.tree(), lineCounter: lines(), text }),
  };
}
