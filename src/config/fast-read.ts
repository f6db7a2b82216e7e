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
 *   reader then says where, from its lexer, before building anything).
 * Plain scalars are resolved by yaml's own core-schema tags, tried in yaml's order, so `0o17`,
 * `.inf`, `~` or `0b1` mean here what they mean to yaml.
 *
 * Its documents hold no yaml tree and can place only their top-level list items (for natural keys).
 * Asking them for anything else throws `YamlNeeded`: `validateSources` then reads every file again
 * with yaml, so that every problem is yaml's, at yaml's position. A run without problems never asks.
 */
import {
  constructFromEvents,
  defineScalarTag,
  EVENT_ID,
  type Event,
  FAILSAFE_SCHEMA,
  getScalarValue,
  NOT_RESOLVED,
  parseEvents,
  SCALAR_STYLE,
  type ScalarEvent,
} from 'js-yaml';
import { isScalar, LineCounter, Schema } from 'yaml';
import { MAX_FILE_BYTES, type ParsedDocument, SCHEMA_OPTIONS } from './parse-yaml.js';
import { characterProblem, MAX_NESTING, valueProblem } from './text-checks.js';
import { formatPath, type YamlPath } from './yaml-path.js';

/** Thrown when a fast-read document is asked for what only yaml's tree knows. */
export class YamlNeeded extends Error {
  constructor(file: string, what: string) {
    super(`${file}: ${what} needs yaml's reading of the file`);
  }
}

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

interface Frame {
  type: 'document' | 'sequence' | 'mapping';
  /** Mappings: whether the next node is a key. */
  atKey: boolean;
  /** Mappings at the top of a document: the key whose value comes next. */
  key?: string;
  /** Sequences at the top of a document: the offset where each item starts. */
  items?: number[];
}

interface DocumentShape {
  /** Top-level key -> where each item of its list starts (-1: an item yaml would place elsewhere). */
  lists: Map<string, number[]>;
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

/**
 * Walks the events; undefined if any event is outside what the fast reader takes. The frames of
 * the stack are reused from one collection to the next: a file of 1,000 rules opens some 10,000.
 */
function shapesOf(text: string, events: readonly Event[]): DocumentShape[] | undefined {
  const shapes: DocumentShape[] = [];
  const stack: Frame[] = [];
  let depth = 0;
  const push = (type: Frame['type'], atKey: boolean): Frame => {
    const frame = stack[depth] ?? { type, atKey };
    stack[depth++] = frame;
    frame.type = type;
    frame.atKey = atKey;
    frame.key = undefined;
    frame.items = undefined;
    return frame;
  };
  for (const event of events) {
    if (event.type === EVENT_ID.POP) {
      depth--;
      continue;
    }
    if (event.type === EVENT_ID.DOCUMENT) {
      if (event.directives.length > 0) return undefined;
      shapes.push({ lists: new Map() });
      push('document', false);
      continue;
    }
    if (event.type === EVENT_ID.ALIAS || event.anchorStart !== -1 || event.tagStart !== -1) return undefined;
    const parent = depth > 0 ? stack[depth - 1] : undefined;
    const shape = shapes.at(-1);
    if (parent === undefined || shape === undefined) return undefined;
    const isKey = parent.type === 'mapping' && parent.atKey;
    if (parent.type === 'mapping') parent.atKey = !parent.atKey;
    const topLevel = depth === 2 && parent.type === 'mapping';
    if (event.type === EVENT_ID.SCALAR) {
      if (!scalarTaken(text, event, isKey, parent.type === 'document')) return undefined;
      // yaml places a quoted or block scalar at its indicator, js-yaml at its text: not needed here.
      parent.items?.push(-1);
      if (isKey && topLevel) parent.key = getScalarValue(text, event);
      continue;
    }
    if (isKey) return undefined; // a collection as a mapping key
    parent.items?.push(event.start);
    const listKey = topLevel ? parent.key : undefined;
    const frame = push(event.type === EVENT_ID.SEQUENCE ? 'sequence' : 'mapping', true);
    if (listKey !== undefined && frame.type === 'sequence') {
      frame.items = [];
      shape.lists.set(listKey, frame.items);
    }
  }
  return shapes.length > 0 ? shapes : undefined;
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
  let shapes: DocumentShape[] | undefined;
  let values: unknown[];
  try {
    const events = parseEvents(text, { filename: file, maxDepth: MAX_NESTING });
    shapes = shapesOf(text, events);
    if (shapes === undefined) return undefined;
    values = constructFromEvents(events, { source: text, schema: fileSchema(), maxAliases: 0 });
  } catch {
    return undefined; // yaml will say what is wrong, and where
  }
  // A null document is empty (yaml skips it) or an explicit `null` (a problem): yaml's call either way.
  if (values.length !== shapes.length || values.some((value) => value === null)) return undefined;
  const lines = lazyLines(text);
  // No document is empty (see above), so positions are yaml's too.
  return shapes.map((shape, index) => fastDocument(file, index, values[index], shape, lines));
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
 * shape only, not the whole file's (a caller may let go of the data once validated).
 */
function fastDocument(
  file: string,
  index: number,
  data: unknown,
  shape: DocumentShape,
  lines: () => LineCounter,
): ParsedDocument {
  return {
    file,
    index,
    data,
    reportedPaths: new Set(),
    locate(path: YamlPath) {
      const [key, item] = path;
      const offset =
        path.length === 2 && typeof key === 'string' && typeof item === 'number'
          ? shape.lists.get(key)?.[item]
          : undefined;
      if (offset === undefined || offset < 0)
        throw new YamlNeeded(file, `the position of ${formatPath(path)}`);
      return lines().linePos(offset);
    },
    tree() {
      throw new YamlNeeded(file, 'placing a problem');
    },
  };
}
