/**
 * What a file's text must be before any YAML reader builds anything from it: text (valid UTF-8, no
 * control characters, no lone surrogates) and not nested deeper than MAX_NESTING. Both readers pay
 * for what they build: 2 MiB of `[` took the yaml reader 13 s and 1.2 GB, and a NUL or a lone
 * surrogate would pass validation only to fail at the API (or silently become U+FFFD).
 */
import { CST } from 'yaml';

/** Lists and mappings inside one another; a wafctl file needs about 6 (rules: conditions: expressions). */
export const MAX_NESTING = 64;

/** A problem found in the text, at an offset (in UTF-16 code units, as yaml counts them). */
export interface TextProblem {
  offset: number;
  message: string;
}

/**
 * Characters YAML 1.2 does not allow in a stream (outside its `c-printable` set): C0 controls but
 * tab, line feed and carriage return; DEL; C1 controls but NEL; U+FFFE, U+FFFF; and surrogates that
 * are not half of a pair.
 */
const NOT_TEXT =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u0084\u0086-\u009f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function codePoint(c: string): string {
  return `U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/** Why `c` (a match of NOT_TEXT) is refused, naming it by code point only (it may be invisible). */
function refusal(c: string): string {
  const code = c.charCodeAt(0);
  if (code >= 0xd800 && code <= 0xdfff) {
    return `lone surrogate ${codePoint(c)} (half of a UTF-16 pair): not text, the API cannot store it`;
  }
  if (code === 0) return 'NUL character (U+0000) is not allowed: the API cannot store it';
  return `control character ${codePoint(c)} is not allowed (only tab, line feed and carriage return are)`;
}

/** The first character that is not text, if any: one regular-expression scan. */
export function characterProblem(text: string): TextProblem | undefined {
  const match = NOT_TEXT.exec(text);
  return match === null ? undefined : { offset: match.index, message: refusal(match[0]) };
}

/**
 * Characters that escapes may write in a value (`"\0"`, `"\uD800"`) and the API cannot store: NUL,
 * and surrogates that are not half of a pair (JSON would send `\ud800`, stored as U+FFFD). Other
 * escaped controls (`"\t"`, `"\e"`) are what escapes are for: they are data, shown escaped.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding NUL is the point.
const NOT_STORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why a string value cannot be stored (`NOT_STORABLE`), or undefined when it can. */
export function valueProblem(value: string): string | undefined {
  const match = NOT_STORABLE.exec(value);
  return match === null ? undefined : `invalid string value: ${refusal(match[0])}`;
}

/** 1-based line and column (UTF-16 code units, as yaml's LineCounter) of an offset; for error paths. */
export function lineAndColumn(text: string, offset: number): { line: number; col: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, col: offset - lineStart + 1 };
}

// ignoreBOM: a BOM stays in the text, as `readFile(path, 'utf8')` kept it (yaml skips it itself).
const FATAL_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Length of the valid UTF-8 sequence starting at `i`, or 0 (overlongs, surrogates, > U+10FFFF refused). */
function sequenceLength(bytes: Uint8Array, i: number): number {
  const b0 = bytes[i] ?? 0;
  if (b0 < 0x80) return 1;
  const cont = (k: number, lo = 0x80, hi = 0xbf) => {
    const b = bytes[i + k];
    return b !== undefined && b >= lo && b <= hi;
  };
  if (b0 >= 0xc2 && b0 <= 0xdf) return cont(1) ? 2 : 0;
  if (b0 >= 0xe0 && b0 <= 0xef) {
    const [lo, hi] = b0 === 0xe0 ? [0xa0, 0xbf] : b0 === 0xed ? [0x80, 0x9f] : [0x80, 0xbf];
    return cont(1, lo, hi) && cont(2) ? 3 : 0;
  }
  if (b0 >= 0xf0 && b0 <= 0xf4) {
    const [lo, hi] = b0 === 0xf0 ? [0x90, 0xbf] : b0 === 0xf4 ? [0x80, 0x8f] : [0x80, 0xbf];
    return cont(1, lo, hi) && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}

/**
 * The file's bytes as text, or where they stop being UTF-8: a strict decoder (never U+FFFD for a
 * bad byte); the slow walk to place the bad byte runs only once decoding failed.
 */
export function decodeUtf8(
  bytes: Uint8Array,
): { text: string } | { line: number; col: number; message: string } {
  try {
    return { text: FATAL_UTF8.decode(bytes) };
  } catch {
    let i = 0;
    for (let n = sequenceLength(bytes, i); n > 0; n = sequenceLength(bytes, i)) i += n;
    const before = FATAL_UTF8.decode(bytes.subarray(0, i));
    const { line, col } = lineAndColumn(before, before.length);
    const byte = (bytes[i] ?? 0).toString(16).toUpperCase().padStart(2, '0');
    return { line, col, message: `invalid UTF-8 (byte 0x${byte}): wafctl files must be UTF-8 text` };
  }
}

interface Level {
  col: number;
  seq: boolean;
}

/**
 * Where the text first nests deeper than MAX_NESTING, found from yaml's lexer tokens before any
 * node is built, and stopping there. Flow `[`/`{` count one level each; block collections are
 * followed by the column of their `-`, `?` or key, so `- - - x` is three levels and a list at its
 * parent key's column (`a:\n- x`) one more. It may count fewer levels than there are (a flow
 * `[a: b]` pair), never more: the fast reader (js-yaml, with the same limit) then declines a file
 * this lets through, and the two readers still agree. Fed a lexer token at a time, so that the one
 * lexing of a file feeds it and yaml's parser together (parse-yaml.ts).
 */
export class NestingCheck {
  private readonly levels: Level[] = [];
  private flow = 0;
  private offset = 0;
  private lineStart = 0;
  /** Column of the first token of the node being read on this line (a key, when `:` follows). */
  private nodeStart: number | undefined;
  private scalarNext = false;

  /** The next token of the text: the problem it makes, if it nests too deep. */
  next(token: string): TextProblem | undefined {
    const type = CST.tokenType(token);
    if (type === 'doc-mode' || type === 'flow-error-end') return undefined; // control tokens: no source text
    if (type === 'scalar') {
      this.scalarNext = true; // the scalar's source comes next, whatever it looks like
      return undefined;
    }
    const problem = this.token(type, this.offset - this.lineStart);
    const newline = token.lastIndexOf('\n');
    if (newline !== -1) this.lineStart = this.offset + newline + 1;
    this.offset += token.length;
    return problem;
  }

  private token(type: ReturnType<typeof CST.tokenType>, col: number): TextProblem | undefined {
    if (this.scalarNext) {
      this.scalarNext = false;
      this.nodeStart ??= col;
    } else if (type === 'doc-start' || type === 'doc-end') {
      this.levels.length = 0;
      this.flow = 0;
    } else if (type === 'flow-seq-start' || type === 'flow-map-start') {
      this.nodeStart ??= col;
      this.flow++;
      return this.tooDeep(this.offset);
    } else if (type === 'flow-seq-end' || type === 'flow-map-end') {
      this.flow = Math.max(0, this.flow - 1);
    } else if (this.flow === 0 && (type === 'seq-item-ind' || type === 'explicit-key-ind')) {
      this.nodeStart = undefined;
      return this.block(col, type === 'seq-item-ind');
    } else if (this.flow === 0 && type === 'map-value-ind') {
      const at = this.nodeStart ?? col;
      this.nodeStart = undefined;
      return this.block(at, false);
    } else if (type === 'newline') {
      this.nodeStart = undefined;
    } else if (NODE_STARTS.has(type)) {
      this.nodeStart ??= col;
    }
    return undefined;
  }

  /** `at`: where the collection one level too deep starts (a key's first character, a `-`, a `[`). */
  private tooDeep(at: number): TextProblem | undefined {
    return this.levels.length + this.flow > MAX_NESTING
      ? {
          offset: at,
          message: `nested deeper than ${MAX_NESTING} lists and mappings: refusing to read further`,
        }
      : undefined;
  }

  private block(col: number, seq: boolean): TextProblem | undefined {
    const levels = this.levels;
    while ((levels.at(-1)?.col ?? -1) > col) levels.pop();
    const top = levels.at(-1);
    if (top?.col === col && top.seq !== seq) {
      if (seq)
        levels.push({ col, seq }); // a list at its key's column: `a:\n- x`
      else {
        levels.pop(); // that list ended; its key's mapping goes on
        if (levels.at(-1)?.col !== col) levels.push({ col, seq });
      }
    } else if (top?.col !== col) levels.push({ col, seq });
    return this.tooDeep(this.lineStart + col);
  }
}

/** Tokens that start a node's text on their line (for a key's column). */
const NODE_STARTS = new Set<ReturnType<typeof CST.tokenType>>([
  'single-quoted-scalar',
  'double-quoted-scalar',
  'anchor',
  'tag',
  'alias',
]);
