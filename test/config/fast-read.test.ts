/* biome-ignore-all lint/suspicious/noTemplateCurlyInString: the YAML texts quote ${VAR} references literally */
/**
 * The fast reader against the reference reader. Wherever `readFast` takes a text, it must read it
 * exactly as `parseYamlFile` does: no problems from yaml, the same documents, the same data (strictly:
 * -0, NaN, prototypes and own `__proto__` keys included), and every problem placed where yaml places
 * it: the same position for every node and every key, and for a path that leaves the document.
 * Declining (undefined) is always allowed; taking a text and reading it differently never is.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inspect, isDeepStrictEqual } from 'node:util';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { stringify } from 'yaml';
import { CORE_TAG_FIRST_CHARS, CORE_TAGS, readFast } from '../../src/config/fast-read.js';
import { type ParsedDocument, parseYamlFile } from '../../src/config/parse-yaml.js';
import { formatProblem } from '../../src/config/problems.js';
import { type ValidationResult, validateSources } from '../../src/config/validate-sources.js';
import { keyNodeAt, offsetOf, type YamlPath } from '../../src/config/yaml-path.js';
import { caseSeeds, replayHint, seededRandom } from '../helpers/random.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const CORPUS = fileURLToPath(new URL('./corpus/', import.meta.url));

const show = (value: unknown): string =>
  inspect(value, { depth: null, breakLength: Number.POSITIVE_INFINITY });

interface Divergence {
  /** What kind of difference: groups the property test's report. */
  kind: string;
  detail: string;
}

/** A path that leaves the document: a problem about a missing field is placed at its mapping. */
const MISSING = 'no such key';

/**
 * Whether the fast-read document places every node as yaml does: `locate` and `has` on every path
 * of the data (and one more key that is not there under every mapping), and the key of every pair
 * in the tree that schema problems are placed in (an unknown field is placed at its key).
 */
function placeDivergence(
  actual: ParsedDocument,
  expected: ParsedDocument,
  lines: readonly string[],
): Divergence | undefined {
  const fastTree = actual.tree();
  const yamlTree = expected.tree();
  const place = (path: YamlPath): Divergence | undefined => {
    const want = expected.locate(path);
    const got = actual.locate(path);
    if (!isDeepStrictEqual(got, want)) {
      const at = lines[want.line - 1]?.[want.col - 1];
      return {
        kind: `locate (yaml's node starts with ${JSON.stringify(at)})`,
        detail: `locate(${JSON.stringify(path)}): fast reader ${show(got)}, yaml ${show(want)}`,
      };
    }
    if (actual.has(path) !== expected.has(path)) {
      return { kind: 'has', detail: `has(${JSON.stringify(path)}): fast reader ${actual.has(path)}` };
    }
    return undefined;
  };
  const visit = (value: unknown, path: YamlPath): Divergence | undefined => {
    const found = place(path);
    if (found !== undefined || value === null || typeof value !== 'object') return found;
    if (Array.isArray(value)) {
      for (const [index, item] of value.entries()) {
        const inner = visit(item, [...path, index]);
        if (inner !== undefined) return inner;
      }
      return place([...path, value.length]);
    }
    for (const key of Object.keys(value)) {
      const want = yamlTree.lineCounter.linePos(offsetOf(keyNodeAt(yamlTree.doc, path, key)));
      const got = fastTree.lineCounter.linePos(offsetOf(keyNodeAt(fastTree.doc, path, key)));
      if (!isDeepStrictEqual(got, want)) {
        return {
          kind: 'key position',
          detail: `key ${JSON.stringify(key)} at ${JSON.stringify(path)}: fast reader ${show(got)}, yaml ${show(want)}`,
        };
      }
      const inner = visit((value as Record<string, unknown>)[key], [...path, key]);
      if (inner !== undefined) return inner;
    }
    return place([...path, MISSING]);
  };
  return visit(expected.data, []);
}

/** How the fast reader's reading of `text` breaks the invariant, or undefined when it holds. */
function divergenceOf(text: string, file = 'test.yaml'): Divergence | undefined {
  const fast = readFast(file, text);
  if (fast === undefined) return undefined;
  const slow = parseYamlFile(file, text, {});
  if (slow.problems.length > 0) {
    const problems = slow.problems.map(formatProblem).join('; ');
    return {
      kind: 'taken, but yaml refuses it',
      detail: `the fast reader read ${show(fast.map((d) => d.data))}, yaml says: ${problems}`,
    };
  }
  if (fast.length !== slow.documents.length) {
    return {
      kind: 'document count',
      detail: `fast reader: ${fast.length} documents ${show(fast.map((d) => d.data))}; yaml: ${slow.documents.length} ${show(slow.documents.map((d) => d.data))}`,
    };
  }
  const lines = text.split('\n');
  for (const [index, expected] of slow.documents.entries()) {
    const actual = fast[index];
    if (actual === undefined) return { kind: 'document count', detail: `document ${index} missing` };
    if (!isDeepStrictEqual(actual.data, expected.data)) {
      return {
        kind: 'data',
        detail: `document ${index}: fast reader ${show(actual.data)}, yaml ${show(expected.data)}`,
      };
    }
    const found = placeDivergence(actual, expected, lines);
    if (found !== undefined) return { kind: found.kind, detail: `document ${index}: ${found.detail}` };
  }
  return undefined;
}

function divergence(text: string, file = 'test.yaml'): string | undefined {
  const found = divergenceOf(text, file);
  return found && `${found.kind}: ${found.detail}`;
}

/** The failures among `texts`, each with its text, so a failing test names every case. */
function failuresOf(texts: readonly string[]): string[] {
  return texts.flatMap((text) => {
    const found = divergence(text);
    return found === undefined ? [] : [`${JSON.stringify(text)}: ${found}`];
  });
}

function yamlFilesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => /\.ya?ml$/.test(name))
    .map((name) => join(dir, name))
    .sort();
}

describe('readFast on the repository files', () => {
  const examples = yamlFilesUnder(join(REPO, 'examples', 'config'));
  const corpus = yamlFilesUnder(CORPUS);

  it('finds the files', () => {
    expect(examples.length).toBeGreaterThanOrEqual(6);
    expect(corpus.length).toBeGreaterThanOrEqual(90);
  });

  it.each(examples.map((path) => relative(REPO, path)))('%s: read as yaml reads it', (path) => {
    const text = readFileSync(join(REPO, path), 'utf8');
    expect(divergence(text, path)).toBeUndefined();
    if (!text.includes('${')) expect(readFast(path, text), 'the fast reader declined it').toBeDefined();
  });

  it('takes every example without `${`, and most of the corpus', () => {
    const takes = (path: string) => readFast(path, readFileSync(path, 'utf8')) !== undefined;
    const withoutVariables = examples.filter((path) => !readFileSync(path, 'utf8').includes('${'));
    expect(withoutVariables.length).toBeGreaterThanOrEqual(5);
    expect(examples.filter(takes)).toEqual(withoutVariables);
    // 77 of 98 when written: the rest have variables, tags, aliases, syntax errors...
    expect(corpus.filter(takes).length).toBeGreaterThanOrEqual(60);
  });

  it.each(corpus.map((path) => relative(CORPUS, path)))(
    'corpus %s: declined, or read as yaml reads it',
    (path) => {
      const text = readFileSync(join(CORPUS, path), 'utf8');
      expect(divergence(text, path)).toBeUndefined();
    },
  );
});

describe('readFast declines what it must leave to yaml', () => {
  const DECLINED: [string, string][] = [
    ['an anchor and an alias', 'a: &x 1\nb: *x\n'],
    ['an anchor alone', 'a: &x 1\n'],
    ['an anchored list', 'a: &x [1]\nb: 2\n'],
    ['an alias to an undefined anchor', 'a: *x\n'],
    ['a core tag', 'a: !!str 1\n'],
    ['a custom tag', 'a: !custom x\n'],
    ['a tag on the root', '!!map {a: 1}\n'],
    ['a non-specific tag', 'a: ! 1\n'],
    ['a flow sequence as a key', '[a]: b\n'],
    ['a flow mapping as a key', '{a: 1}: b\n'],
    ['a block sequence as an explicit key', '? - a\n: b\n'],
    ['a collection key inside a list', 'list:\n  - [a]: b\n'],
    ['${VAR} as a value', 'a: ${VAR}\n'],
    ['${VAR} inside a value', 'a: "x${VAR:-1}y"\n'],
    ['${VAR} in a comment', 'a: 1 # ${VAR}\n'],
    ['${VAR} in a key', '${VAR}: 1\n'],
    ['a nested default', 'a: ${A:-${B:-x}}\n'],
    ['a $${ escape', 'a: $${B}\n'],
    ['an unterminated ${', 'a: ${A:-${B}\n'],
    ['a %YAML directive', '%YAML 1.2\n---\na: 1\n'],
    ['a %TAG directive', '%TAG !e! tag:example.com,2026:\n---\na: 1\n'],
    ['a tab as separation', 'a:\t1\n'],
    ['a tab inside a quoted string', 'a: "x\ty"\n'],
    ['a tab in a comment', 'a: 1 #\tc\n'],
    ['CRLF line endings', 'a: 1\r\nb: [2]\r\n'],
    ['a lone CR', 'a: 1\rb: 2\n'],
    ['a leading BOM', '\uFEFFa: 1\n'],
    ['an empty file', ''],
    ['only a newline', '\n'],
    ['only comments', '# one\n# two\n'],
    ['an empty document before another', '---\n---\na: 1\n'],
    ['an empty document after another', 'a: 1\n---\n'],
    ['a document of only comments', 'a: 1\n---\n# nothing\n'],
    ['duplicate keys', 'a: 1\na: 2\n'],
    ['duplicate keys in a nested mapping', 'a:\n  b: 1\n  b: 2\n'],
    ['duplicate keys in a flow mapping', 'a: {b: 1, b: 2}\n'],
    ['an unclosed flow sequence', 'a: [1, 2\n'],
    ['an unclosed quote', 'a: "x\n'],
    ['a mapping value on a mapping value', 'a: b: c\n'],
    ['a bad indentation', 'a:\n  b: 1\n c: 2\n'],
  ];

  it.each(DECLINED)('%s', (_name, text) => {
    expect(readFast('declined.yaml', text)).toBeUndefined();
  });
});

describe('readFast resolves scalars as yaml does', () => {
  const SCALARS = [
    '0o17',
    '0x1F',
    '0b1',
    '1_000',
    '+12',
    '-12',
    '012',
    '0012',
    '-0x1',
    '0x',
    '0o',
    '0o8',
    '0xG',
    '1e3',
    '1E-3',
    '1.',
    '.5',
    '+.5',
    '-.5',
    '.',
    '-.inf',
    '+.inf',
    '.Inf',
    '.INF',
    '.iNf',
    '.NAN',
    '.nan',
    '.NaN',
    '.nAn',
    '~',
    'null',
    'Null',
    'NULL',
    'nULL',
    'true',
    'True',
    'TRUE',
    'tRUE',
    'false',
    'False',
    'FALSE',
    'yes',
    'no',
    'on',
    'off',
    'y',
    'n',
    '2001-12-14',
    '2001-12-14t21:59:43.10-05:00',
    '12:30:45',
    '1:20',
    '0.1e+5',
    '1e+5',
    '1.5e5',
    '1e',
    'e3',
    '+0',
    '-0',
    '-0.0',
    '0.0',
    '00',
    '9007199254740993',
    '123456789012345678901234567890',
    '1e400',
    '-1e400',
    '1e-400',
    "''",
    '""',
    "'a''b'",
    '"a\\tb"',
    '"\\u00e9"',
    '"\\U0001F600"',
    '"\\x41"',
    '"\\0"',
    '"\\N\\_\\L\\P"',
    '"\\/"',
    '"\\ "',
    '"a\\\\b"',
    "'a\\b'",
    '"1"',
    "'true'",
    "'~'",
    'é',
    '日本',
    '😀',
    'a#b',
    "'a #b'",
    'a # b',
    'a:b',
    'http://example.com/a?b=c#d',
    '-a',
    '?a',
    ':a',
    'a-',
    '"- a"',
    'a  b',
    'x ',
    '\u00a0',
    '"\u2028"',
    '"\u0085"',
    '"\\u2028"',
    '"\\e\\a\\b\\v\\f"',
    '<<',
    '=',
    '%x',
    '@x',
    '`x',
  ];
  const KEYS = [
    '1',
    '1.0',
    '0x1F',
    '0o17',
    '-0',
    '1e3',
    'true',
    'True',
    'false',
    'null',
    'NULL',
    '~',
    "''",
    '""',
    '.inf',
    '.nan',
    'yes',
    '__proto__',
    '"__proto__"',
    'constructor',
    'toString',
    'hasOwnProperty',
    'a b',
    "'a'",
    '"a\\tb"',
    'é',
  ];

  it.each(SCALARS)('%s as a value', (scalar) => {
    const texts = [
      `v: ${scalar}\n`,
      `v: [${scalar}]\n`,
      `v: {k: ${scalar}}\n`,
      `v:\n  - ${scalar}\n`,
      `v:\n- ${scalar}\n- x\n`,
      `- ${scalar}\n`,
      `${scalar}\n`,
      `--- ${scalar}\n`,
    ];
    expect(failuresOf(texts)).toEqual([]);
  });

  it.each(KEYS)('%s as a key', (key) => {
    const texts = [
      `${key}: a\n`,
      `${key}: [a, b]\n`,
      `{${key}: a}\n`,
      `- ${key}: a\n`,
      `x: 1\n${key}:\n  - a\n`,
    ];
    expect(failuresOf(texts)).toEqual([]);
  });

  it('lets js-yaml skip the tag only for scalars no yaml core tag can match (CORE_TAG_FIRST_CHARS)', () => {
    const coreTests = CORE_TAGS.map(({ test }) => test);
    expect(coreTests.length).toBeGreaterThan(5);
    // Every scalar of the table, its first character replaced by each character outside the list.
    const rests = [...new Set(SCALARS.map((scalar) => scalar.slice(1)))];
    const firsts = new Set(CORE_TAG_FIRST_CHARS);
    const matched: string[] = [];
    for (let code = 0x20; code < 0x3000; code++) {
      const first = String.fromCharCode(code);
      if (firsts.has(first)) continue;
      for (const rest of rests) {
        const source = first + rest;
        if (coreTests.some((test) => test.test(source))) matched.push(source);
      }
    }
    expect(matched).toEqual([]);
    // And the list is not wider than it needs to be: each entry starts a scalar some tag matches.
    const samples = [
      '',
      '~',
      'null',
      'Null',
      'true',
      'True',
      'false',
      'False',
      '-1',
      '+1',
      '.5',
      ...'0123456789',
    ];
    expect(samples.map((sample) => sample.charAt(0))).toEqual(CORE_TAG_FIRST_CHARS);
    expect(samples.filter((sample) => !coreTests.some((test) => test.test(sample)))).toEqual([]);
  });

  it('takes every plain scalar yaml accepts, so the comparisons above are not vacuous', () => {
    const plain = SCALARS.filter((scalar) => !/^["']/.test(scalar));
    const accepted = plain.filter(
      (scalar) => parseYamlFile('v.yaml', `v: ${scalar}\n`, {}).problems.length === 0,
    );
    expect(accepted.length).toBeGreaterThan(80);
    expect(accepted.filter((scalar) => readFast('v.yaml', `v: ${scalar}\n`) === undefined)).toEqual([]);
  });
});

const TRICKY_STRINGS = [
  'plain',
  'two words',
  'shop.example.com',
  ' leading space',
  'trailing space ',
  '  ',
  '',
  'a: b',
  'a:b',
  'key:',
  'a #b',
  '#not a comment',
  'a#b',
  "it's",
  '"double"',
  "'single'",
  'back\\slash',
  '\\n literally',
  '- dash',
  '-',
  '--',
  '---',
  '...',
  '? question',
  '?',
  ':',
  '*star',
  '&amp',
  '!bang',
  '%percent',
  '@at',
  '`tick`',
  '|pipe',
  '>gt',
  '[bracket]',
  '{brace}',
  ',comma',
  'a, b',
  'é accent',
  '日本語',
  '😀 emoji',
  'nbsp\u00a0inside',
  'zero\u200bwidth',
  'bell\u0007',
  'nel\u0085inside',
  'line\u2028separator',
  'x'.repeat(150),
  `${'y'.repeat(1100)} beyond the 1024 characters of an implicit key`,
  `${'long words '.repeat(20)}end`,
  'one\ntwo',
  'trailing newline\n',
  'two trailing newlines\n\n',
  '\nleading newline',
  'blank\n\nline',
  'indented\n  line\n    more',
  '  leading spaces\non first line',
  'spaces at end \nof a line ',
  'only\n\n\n',
  '0o17',
  '0x1F',
  '1_000',
  '012',
  '1e3',
  '.inf',
  '-.Inf',
  '.nan',
  '~',
  'null',
  'Null',
  'true',
  'False',
  'yes',
  'no',
  'on',
  '-0',
  '+1',
  '1.',
  '12:30',
  '2001-12-14',
  '<<',
  '__proto__',
  'constructor',
  'toString',
];

const NUMBERS = [
  0,
  -0,
  1,
  -1,
  42,
  3.14,
  -2.5e-8,
  1e21,
  0.1,
  9007199254740991,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  1e-7,
];

type Random = () => number;

function pick<T>(random: Random, from: readonly T[]): T {
  return from[Math.floor(random() * from.length)] as T;
}

/** Whether a tricky string fits on one line and holds no control character (which yaml escapes). */
function oneLine(text: string): boolean {
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028) return false;
  }
  return text.length < 100;
}

/** The tricky strings to put together into long ones. */
const ONE_LINE_STRINGS = TRICKY_STRINGS.filter(oneLine);

function randomScalar(random: Random): unknown {
  const roll = random();
  if (roll < 0.62) return pick(random, TRICKY_STRINGS);
  // A few of them in one string: long enough to be folded over lines (lineWidth 20 or 80) in any
  // style, with what makes each tricky in the middle of a line.
  if (roll < 0.65) {
    const parts = Array.from({ length: 3 + Math.floor(random() * 4) }, () => pick(random, ONE_LINE_STRINGS));
    return parts.join(pick(random, [' ', ' - ', ': ']));
  }
  if (roll < 0.8) return pick(random, NUMBERS);
  if (roll < 0.9) return random() < 0.5;
  return null;
}

function randomKey(random: Random): unknown {
  const roll = random();
  if (roll < 0.5) return pick(random, ['name', 'rq_host', 'conditions', 'a', 'b', 'list', 'x y']);
  if (roll < 0.95) return pick(random, TRICKY_STRINGS);
  return randomScalar(random); // numbers, booleans and null as keys
}

function randomNode(random: Random, depth: number): unknown {
  const roll = random();
  if (depth >= 4 || roll < 0.4) return randomScalar(random);
  const size = Math.floor(random() * 5);
  if (roll < 0.7) {
    const map = new Map<unknown, unknown>();
    for (let i = 0; i < size; i++) map.set(randomKey(random), randomNode(random, depth + 1));
    return map;
  }
  return Array.from({ length: size }, () => randomNode(random, depth + 1));
}

/** A document's root: mostly a mapping whose values are often lists (so item positions are compared). */
function randomDocument(random: Random): unknown {
  const roll = random();
  if (roll < 0.05) return randomScalar(random);
  if (roll < 0.2) return randomNode(random, 1);
  const root = new Map<unknown, unknown>();
  const size = 1 + Math.floor(random() * 4);
  for (let i = 0; i < size; i++) {
    const items = Array.from({ length: Math.floor(random() * 4) }, () => randomNode(random, 2));
    root.set(randomKey(random), random() < 0.7 ? items : randomNode(random, 1));
  }
  return root;
}

function randomOptions(random: Random) {
  return {
    lineWidth: pick(random, [0, 20, 80]),
    defaultStringType: pick(random, [
      'PLAIN',
      'QUOTE_DOUBLE',
      'QUOTE_SINGLE',
      'BLOCK_LITERAL',
      'BLOCK_FOLDED',
    ] as const),
    collectionStyle: pick(random, ['any', 'block', 'flow'] as const),
    indentSeq: random() < 0.5,
    indent: pick(random, [2, 4]),
  };
}

describe('readFast property: random documents written by yaml', () => {
  // About a quarter of a second on an idle core; WAFCTL_TEST_SEED tries other cases (caseSeeds).
  const CASES = 500;

  it(`reads ${CASES} random files as yaml reads them, or declines them`, () => {
    const byKind = new Map<string, string[]>();
    let taken = 0;
    const seeds = caseSeeds(CASES);
    for (const seed of seeds) {
      const random = seededRandom(seed);
      const count = random() < 0.25 ? 2 + Math.floor(random() * 2) : 1;
      const text = Array.from({ length: count }, () =>
        stringify(randomDocument(random), randomOptions(random)),
      ).join('---\n');
      if (readFast('random.yaml', text) !== undefined) taken++;
      const found = divergenceOf(text, 'random.yaml');
      if (found === undefined) continue;
      const cases = byKind.get(found.kind) ?? [];
      cases.push(`seed ${seed}: ${found.detail}\n--- text ---\n${text}--- as JSON: ${JSON.stringify(text)}`);
      byKind.set(found.kind, cases);
    }
    // One report per kind of divergence: how many seeds, and the first two of them in full.
    const report = [...byKind].map(
      ([kind, cases]) => `${cases.length} x ${kind}\n${cases.slice(0, 2).join('\n\n')}`,
    );
    const total = [...byKind.values()].reduce((sum, cases) => sum + cases.length, 0);
    expect(
      report,
      `${total} of ${CASES} random files diverge (fast reader took ${taken}; ${replayHint(seeds)})`,
    ).toEqual([]);
    // Not vacuous: the fast reader takes 50-60% of 500 files whatever the seeds (a window of 500
    // draws 250-300), so 40% leaves room for any WAFCTL_TEST_SEED.
    expect(taken, `the fast reader took only ${taken} of ${CASES}`).toBeGreaterThanOrEqual(CASES * 0.4);
  });
});

describe('a fast-read document', () => {
  const text = 'settings:\n  username: bot\ngroups:\n  - name: a\n    users:\n  - {name: "b"}\n';

  it('places every node itself, where yaml does', () => {
    const [document] = readFast('doc.yaml', text) ?? [];
    expect(document).toBeDefined();
    expect(document?.file).toBe('doc.yaml');
    expect(document?.reportedPaths).toEqual(new Set());
    expect(document?.locate(['groups', 0])).toEqual({ line: 4, col: 5 });
    expect(document?.locate(['groups', 1])).toEqual({ line: 6, col: 5 });
    expect(document?.locate(['settings', 'username'])).toEqual({ line: 2, col: 13 });
    expect(document?.locate(['settings'])).toEqual({ line: 2, col: 3 });
    expect(document?.locate(['groups', 0, 'users'])).toEqual({ line: 5, col: 11 });
    expect(document?.locate(['groups', 1, 'name'])).toEqual({ line: 6, col: 12 });
    expect(document?.locate(['groups', 2])).toEqual({ line: 4, col: 3 });
    expect(document?.has(['groups', 1, 'name'])).toBe(true);
    expect(document?.has(['groups', 1, 'users'])).toBe(false);
    expect(divergence(text)).toBeUndefined();
  });
});

/**
 * Each of these was found while writing the tables and the property test above: the smallest input showing one
 * way the fast reader reads a text differently from yaml. They must pass (the fast reader declines the
 * input, or reads it as yaml does) before the fast reader can be trusted.
 */
describe('minimal divergences', () => {
  const MINIMAL: [string, string][] = [
    ['an empty document before another', '---\n---\na: 1\n'],
    ['an empty document after another', 'a: 1\n---\n'],
    ['a double-quoted list item (position)', 'v:\n  - "x"\n'],
    ['a single-quoted list item (position)', "v: ['x']\n"],
    ['a literal block scalar list item (position)', 'v:\n  - |\n    x\n'],
    ['a folded block scalar list item (position)', 'v:\n  - >-\n    x\n'],
    ['an empty list item (position)', 'v:\n  -\n  - x\n'],
    ['a null key', 'null: a\n'],
    ['a ~ key', '~: a\n'],
    ['an empty implicit key', ': a\n'],
    ['an empty explicit key', '? \n: a\n'],
    ['a top-level key that is a float (position)', '1.0: [a]\n'],
    ['a top-level key that is hex (position)', '0x1F: [a]\n'],
    ['a top-level key that is .nan (position)', '.nan: [a]\n'],
    ['a top-level key that is True (position)', 'True: [a]\n'],
    ['a quoted key shadowed by a plain one (wrong position)', '"True": [a]\nTrue: [b]\n'],
    ['an implicit block key over 1024 characters', `${'k'.repeat(1030)}: 1\n`],
    ['an implicit flow-sequence key over 1024 characters', `[${'k'.repeat(1030)}: 1]\n`],
    ['a \\U escape beyond U+10FFFF', 'a: "\\U00110000"\n'],
    ['an escaped line break before an empty line', 'a: "x\\\n\n  y"\n'],
    ['a root block scalar with an indentation indicator', '|1\n a\n'],
    ['a root block scalar less indented than its indicator', '|1-\n  a\nb\n'],
    // Where yaml places what js-yaml's events give no offset for, or another one.
    [
      'empty values, spaces and comments after the indicator',
      'a:   \nb: # c\nc:\nd:\n  -\n  -   \n  - # c\n  - x\n',
    ],
    ['an empty value at the end of the text', 'a: 1\nb:'],
    ['an empty value after a quoted key', '"a b":\n\'c\':  \n'],
    ['an empty list item after a nested collection', 'a:\n  - b: 1\n    c: [x, y]\n  -\n  - {d: e}\n  -\n'],
    ['an empty value in a flow mapping', 'a: {b: , c: d}\n'],
    ['a key without a value in a flow mapping', 'a: {b, c: d}\n'],
    ['a pair in a flow sequence', 'a: [b: c, d]\n'],
    ['an explicit key', '? a\n: 1\nb: 2\n'],
    ['an explicit key after an implicit one', 'b: 2\n? a\n: 1\n'],
    ['an explicit key without a value', 'b: 2\n? a\nc: 3\n'],
    ['a block scalar on the line after its key', 'a:\n  |\n    x\nb: 1\n'],
    ['a block scalar with a comment that holds > and |', 'a: |-  # > or | here\n  x\nb: >+ # |\n  y\n\n'],
    ['a block scalar after a comment line', 'a:\n  # | not this\n  |\n    x\n'],
    ['an empty block scalar', 'a: |\nb: >\n\nc: 1\n'],
    ['a block scalar item after a flow one', 'a:\n- [x]\n- |\n  y\n- {z: 1}\n- >\n  w\n'],
    ['a block scalar with an indentation indicator', 'a:\n  - |2\n      x\n'],
    ['a mapping after a comment', 'a:\n  # c\n  b: 1\n  # d\nc:\n  # e\n  - f\n'],
    ['a compact mapping in a list', 'a:\n  -   b: 1\n      c:\n  - - d\n    -\n'],
    ['spaces before a colon', 'a   : 1\nb  :\n'],
    ['a flow mapping over lines', 'a: {\n  b: 1,\n  c: [\n    d\n  ]\n}\n'],
    ['an empty flow collection', 'a: []\nb: {}\nc:\n  - []\n  -\n'],
    ['a multi-line plain scalar', 'a: one\n  two\nb:\n  - three\n    four\n  -\n'],
    ['empty quoted scalars', 'a: ""\nb: \'\'\nc: [""]\n'],
    ['quoted keys with escapes', '"a\\"b": 1\n\'c\'\'d\': 2\n"e\\u00e9": 3\n'],
  ];

  it.each(MINIMAL)('%s', (_name, text) => {
    expect(divergence(text)).toBeUndefined();
  });
});

/** `validateSources` as it was before the fast reader: every file read by yaml. */
async function validateWithYamlOnly(): Promise<typeof validateSources> {
  const FAST_READ = '../../src/config/fast-read.js';
  vi.resetModules();
  vi.doMock(FAST_READ, async (importOriginal) => ({
    ...(await importOriginal<typeof import('../../src/config/fast-read.js')>()),
    readFast: () => undefined,
  }));
  try {
    return (await import('../../src/config/validate-sources.js')).validateSources;
  } finally {
    vi.doUnmock(FAST_READ);
    vi.resetModules();
  }
}

/**
 * The result with each kind's sources as [key, location] pairs: `yamlOnly` loads its own copy of
 * the modules, so its DeclaredSources is another class and a strict comparison would fail on that.
 */
function comparable(result: ValidationResult) {
  if (!result.ok) return result;
  const sources = Object.entries(result.config.sources).map(([kind, declared]) => [
    kind,
    [...declared.keys()].map((key) => [key, declared.get(key)]),
  ]);
  return { ...result, config: { ...result.config, sources } };
}

function problemLines(result: ValidationResult): string[] {
  return result.ok ? [] : result.problems.map(formatProblem);
}

const RULES = `# three rules
application_rules:
  - rq_host: shop.example.com
    description: Block admin
    priority: high
    conditions:
      - operator: match
        expressions: ["^/admin"]
        targets: [path]
    actions:
      - firewall_action: block
        firewall_name: waf-eu-1
  - {rq_host: shop.example.com, description: Log login, priority: medium,
     conditions: [{operator: equals, expressions: [/login], targets: [path]}],
     actions: [{firewall_action: log, firewall_name: waf-eu-1}]}
  -
    rq_host: "api.example.com"
    description: 'Allow callbacks'
    priority: low
    conditions:
      - operator: contains
        not_op: true
        expressions: [sqlmap, nikto]
        targets: ["request:user-agent"]
    actions:
      - firewall_action: allow
        firewall_name: waf-eu-1
groups:
- name: soc
  users: [u-1]
- "name": auditors
  is_admin: true
`;

describe('validateSources with the fast reader', () => {
  let yamlOnly: typeof validateSources;

  beforeAll(async () => {
    yamlOnly = await validateWithYamlOnly();
  });

  it('takes the files it is given (the fast path really runs)', () => {
    expect(readFast('rules.yaml', RULES)).toBeDefined();
    expect(yamlOnly).not.toBe(validateSources);
  });

  it('loads the examples exactly as yaml alone does', () => {
    const sources = yamlFilesUnder(join(REPO, 'examples', 'config')).map((path) => ({
      file: relative(REPO, path),
      text: readFileSync(path, 'utf8'),
    }));
    const fast = validateSources(sources, { env: {} });
    expect(problemLines(fast)).toEqual([]);
    expect(comparable(fast)).toStrictEqual(comparable(yamlOnly(sources, { env: {} })));
    expect(
      fast.ok &&
        fast.config.sources.application_rules.get('shop.example.com/Block the admin panel from outside'),
    ).toEqual({
      file: 'examples/config/application-rules/shop.yaml',
      line: 3,
      col: 5,
      path: 'application_rules[0]',
      document: 0,
      nodePath: ['application_rules', 0],
    });
  });

  it('loads a file of mixed styles exactly as yaml alone does, sources included', () => {
    const sources = [{ file: 'rules.yaml', text: RULES }];
    const fast = validateSources(sources, { env: {} });
    expect(problemLines(fast)).toEqual([]);
    expect(comparable(fast)).toStrictEqual(comparable(yamlOnly(sources, { env: {} })));
    if (!fast.ok) return;
    const where = (sources: Iterable<unknown>) => [...sources];
    expect(where(fast.config.sources.application_rules)).toEqual([
      {
        file: 'rules.yaml',
        line: 3,
        col: 5,
        path: 'application_rules[0]',
        document: 0,
        nodePath: ['application_rules', 0],
      },
      {
        file: 'rules.yaml',
        line: 13,
        col: 5,
        path: 'application_rules[1]',
        document: 0,
        nodePath: ['application_rules', 1],
      },
      {
        file: 'rules.yaml',
        line: 17,
        col: 5,
        path: 'application_rules[2]',
        document: 0,
        nodePath: ['application_rules', 2],
      },
    ]);
    expect(where(fast.config.sources.groups)).toEqual([
      { file: 'rules.yaml', line: 29, col: 3, path: 'groups[0]', document: 0, nodePath: ['groups', 0] },
      { file: 'rules.yaml', line: 31, col: 3, path: 'groups[1]', document: 0, nodePath: ['groups', 1] },
    ]);
  });

  it('loads a double-quoted description with an escaped line break as yaml alone does', () => {
    const text = RULES.replace("'Allow callbacks'", '"Allow\\\n\n      callbacks"');
    const sources = [{ file: 'rules.yaml', text }];
    const fast = validateSources(sources, { env: {} });
    expect(problemLines(fast)).toEqual([]);
    expect(comparable(fast)).toStrictEqual(comparable(yamlOnly(sources, { env: {} })));
  });

  it('places a schema problem in a file it took where yaml does', () => {
    const text = RULES.replace('    priority: low\n', '    priority: low\n    enabeld: false\n');
    expect(readFast('rules.yaml', text)).toBeDefined();
    const result = validateSources([{ file: 'rules.yaml', text }], { env: {} });
    expect(problemLines(result)).toEqual([
      'rules.yaml:20:5 application_rules[2]: unknown field "enabeld" (did you mean "enabled"?)',
    ]);
    expect(result).toStrictEqual(yamlOnly([{ file: 'rules.yaml', text }], { env: {} }));
  });

  it('loads rule tests, and places their problems and those of rule conditions, where yaml does', () => {
    const tests = `tests:
  - name: admin
    request: {host: shop.example.com, path: /admin, headers: {User-Agent: curl/8.4}}
    expect: {action: block, rule: shop.example.com/Block admin}
  -   name: "login"
      request:
        method: POST
        host: shop.example.com
        path: /login
      expect:
        action: log
`;
    const valid = [
      { file: 'rules.yaml', text: RULES },
      { file: 'tests.yaml', text: tests },
    ];
    expect(readFast('tests.yaml', tests)).toBeDefined();
    const loaded = validateSources(valid, { env: {} });
    expect(problemLines(loaded)).toEqual([]);
    expect(loaded.ok && loaded.config.state.tests.map((test) => test.at)).toEqual([
      { file: 'tests.yaml', line: 2, col: 5 },
      { file: 'tests.yaml', line: 5, col: 7 },
    ]);
    expect(comparable(loaded)).toStrictEqual(comparable(yamlOnly(valid, { env: {} })));

    const bad = `  - name: bad
    request: {host: shop.example.com, path: "/admin?x", hedaers: {}}
    expect: {action: none}
`;
    const broken = [
      {
        file: 'rules.yaml',
        text: RULES.replace('targets: [path]', 'targets: [pth]').replace(
          '["^/admin"]',
          '["^/admin", "(?<=x)"]',
        ),
      },
      { file: 'tests.yaml', text: tests.replace('"login"', 'admin') + bad },
    ];
    for (const { file, text } of broken) expect(readFast(file, text)).toBeDefined();
    const result = validateSources(broken, { env: {} });
    expect(problemLines(result)).toEqual([
      expect.stringMatching(
        /^rules\.yaml:8:34 application_rules\[0\]\.conditions\[0\]\.expressions\[1\]: the regular expression does not compile/,
      ),
      'rules.yaml:9:19 application_rules[0].conditions[0].targets[0]: unknown target "pth" (did you mean "path"?)',
      'tests.yaml:5:7 tests[1]: duplicate test "admin": also declared at tests.yaml:2:5',
      'tests.yaml:13:45 tests[2].request.path: a path holds no "?": write the query string in query ("x"), got "/admin?x"',
      'tests.yaml:13:57 tests[2].request: unknown field "hedaers" (did you mean "headers"?)',
    ]);
    expect(result).toStrictEqual(yamlOnly(broken, { env: {} }));
  });

  it('places a natural key declared in two files where yaml does', () => {
    const again = `# the admin rule, copied
application_rules:
  - rq_host: api.example.com
    description: Rate limit
    priority: low
    conditions: [{operator: match, expressions: [x], targets: [path]}]
    actions: [{firewall_action: log, firewall_name: waf-eu-1}]
  -     rq_host: shop.example.com
        description: Block admin
        priority: low
        conditions: [{operator: match, expressions: [x], targets: [path]}]
        actions: [{firewall_action: log, firewall_name: waf-eu-1}]
`;
    const sources = [
      { file: 'a/rules.yaml', text: RULES },
      { file: 'b/again.yaml', text: again },
    ];
    expect(readFast('b/again.yaml', again)).toBeDefined();
    const result = validateSources(sources, { env: {} });
    expect(problemLines(result)).toEqual([
      'b/again.yaml:8:9 application_rules[1]: duplicate application rule "shop.example.com/Block admin": also declared at a/rules.yaml:3:5',
    ]);
    expect(result).toStrictEqual(yamlOnly(sources, { env: {} }));
  });
});

/**
 * The property behind "one reader per file": a run that finds problems is not redone with yaml, so
 * the fast reader must place every problem itself exactly where yaml alone places it. Random broken
 * configurations, written by yaml in random styles: the example files with one to five fields
 * (a field of an object, a setting, the manage scope) changed at random, in one file or several,
 * validated by both.
 */
describe('validateSources property: random broken configurations', () => {
  // A case costs the same whatever it changes (every example file is validated twice), so each makes
  // several changes: 100 cases find 220-240 problems, 46-56 runs with problems in several files and
  // 82-90 kinds of message, where 300 cases of one change each found 289, 31-33 and 81-84.
  const CASES = 100;
  let yamlOnly: typeof validateSources;

  beforeAll(async () => {
    yamlOnly = await validateWithYamlOnly();
  });

  const examples = () =>
    yamlFilesUnder(join(REPO, 'examples', 'config')).map((path) => ({
      file: relative(REPO, path),
      data: parseYamlFile(path, readFileSync(path, 'utf8'), {}).documents.map((d) => d.data),
    }));

  /** A random way to break an object: a wrong type, an unknown or missing field, a duplicate. */
  function breakValue(random: Random, value: unknown, depth = 0): unknown {
    if (value === null || typeof value !== 'object') {
      return pick(random, [null, 42, true, '', 'x'.repeat(300), ['list'], { a: 1 }, '../bad', -1]);
    }
    if (Array.isArray(value)) {
      if (value.length === 0 || random() < 0.2) return [...value, ...value];
      const at = Math.floor(random() * value.length);
      return value.map((item, i) => (i === at ? breakValue(random, item, depth + 1) : item));
    }
    const entries = Object.entries(value);
    const roll = random();
    if (entries.length === 0 || roll < 0.15)
      return { ...value, [pick(random, ['enabeld', 'nmae', 'x y'])]: 1 };
    const at = Math.floor(random() * entries.length);
    if (roll < 0.3) return Object.fromEntries(entries.filter((_, i) => i !== at));
    if (depth > 3 && roll < 0.5) return pick(random, [null, 'x', 1]);
    return Object.fromEntries(
      entries.map(([key, item], i) => [key, i === at ? breakValue(random, item, depth + 1) : item]),
    );
  }

  /** One rule of the document, if it has any, on a host that `manage.application_rules.match` leaves out. */
  function moveRule(random: Random, document: unknown): unknown {
    const rules = (document as { application_rules?: Record<string, unknown>[] }).application_rules;
    if (rules === undefined || rules.length === 0) return document;
    const at = Math.floor(random() * rules.length);
    const moved = rules.map((rule, i) => (i === at ? { ...rule, rq_host: 'shop.example.org' } : rule));
    return { ...(document as object), application_rules: moved };
  }

  it(`places every problem of ${CASES} random broken configurations as yaml alone does`, () => {
    const files = examples();
    const failures: string[] = [];
    let fastReads = 0;
    let failing = 0;
    const seeds = caseSeeds(CASES);
    for (const seed of seeds) {
      const random = seededRandom(seed);
      // A quarter of the runs are valid but for rules outside the manage scope (a cross-file problem).
      const outOfScope = random() < 0.25;
      // One to five changes, each in a file drawn at random: a file may be changed more than once.
      const broken = Array.from({ length: 1 + Math.floor(random() * 5) }, () =>
        Math.floor(random() * files.length),
      );
      const sources = files.map(({ file, data }, i) => {
        let documents = data;
        for (const at of broken) {
          if (at !== i) continue;
          documents = documents.map((document) =>
            outOfScope ? moveRule(random, document) : breakValue(random, document),
          );
        }
        const text = documents.map((document) => stringify(document, randomOptions(random))).join('---\n');
        return { file, text };
      });
      for (const { file, text } of sources) if (readFast(file, text) !== undefined) fastReads++;
      const fast = validateSources(sources, { env: {} });
      const slow = yamlOnly(sources, { env: {} });
      if (!slow.ok) failing++;
      if (!isDeepStrictEqual(comparable(fast), comparable(slow))) {
        const changed = [...new Set(broken)].map((at) => sources[at]);
        failures.push(
          `seed ${seed}: fast ${show(problemLines(fast))}, yaml ${show(problemLines(slow))}\n${changed
            .map((source) => `--- ${source?.file}\n${source?.text}`)
            .join('')}`,
        );
      }
    }
    expect(failures.slice(0, 3), `${failures.length} of ${CASES} differ (${replayHint(seeds)})`).toEqual([]);
    // Not vacuous: most files are read fast, and most runs find problems.
    expect(fastReads).toBeGreaterThan((CASES * files.length) / 2);
    expect(failing).toBeGreaterThan(CASES / 2);
  });
});
