/**
 * Issue 41: a mapping of 300,000 keys kept `wafctl validate` busy for over ten minutes. yaml's own
 * duplicate-key check (`uniqueKeys`) compares each key with every key before it; wafctl now turns it
 * off and checks keys itself, a Set and a Map per mapping (`checkKeys`), and refuses a mapping of
 * more than MAX_MAPPING_KEYS keys. The bound is proved by counting work, not by timing: the library's
 * check is never asked for, and the lookups of the check that replaces it are counted, by it and by
 * the test, as are its reads of the keys (`countedCheck`). Those counts are exact, or bounded per
 * key, at any size, while a pairwise check's grow with the square: 50,000 keys tell one from the
 * other as surely as the 300,000. The tests whose point is a size keep it (the cap, the
 * issue's file).
 */
import { describe, expect, it, vi } from 'vitest';
import { type Document, isMap, isScalar, parseAllDocuments, parseDocument } from 'yaml';
import { declaredVariablesIn } from '../../src/config/declared-variables.js';
import { readFast } from '../../src/config/fast-read.js';
import { checkKeys, MAX_MAPPING_KEYS, TOO_MANY_KEYS } from '../../src/config/key-check.js';
import { MAX_AMBIGUOUS_KEYS, parseYamlFile } from '../../src/config/parse-yaml.js';
import { formatProblem } from '../../src/config/problems.js';
import { runSteps } from '../../src/config/steps.js';
import { validateSources } from '../../src/config/validate-sources.js';

/** Every option object parse-yaml.ts hands yaml's `Composer` (which composes its documents). */
const yamlCalls = vi.hoisted(() => [] as { uniqueKeys?: unknown }[]);
vi.mock('yaml', async (importOriginal) => {
  const yaml = await importOriginal<typeof import('yaml')>();
  class Composer extends yaml.Composer {
    constructor(options?: ConstructorParameters<typeof yaml.Composer>[0]) {
      super(options);
      yamlCalls.push({ ...options });
    }
  }
  return { ...yaml, Composer };
});

/** How many times the fast reader built values from js-yaml's events. */
const constructed = vi.hoisted(() => ({ count: 0 }));
vi.mock('js-yaml', async (importOriginal) => {
  const original = await importOriginal<typeof import('js-yaml')>();
  return {
    ...original,
    constructFromEvents: ((...args: Parameters<typeof original.constructFromEvents>) => {
      constructed.count++;
      return original.constructFromEvents(...args);
    }) as typeof original.constructFromEvents,
  };
});

/** `k0: v0` ... one line a key, `indent` before each. */
function mappingText(keys: number, indent = ''): string {
  const lines: string[] = [];
  for (let i = 0; i < keys; i++) lines.push(`${indent}k${i}: v${i}\n`);
  return lines.join('');
}

/** Reads of a key's value `checkKeys` may make, per key: it makes four (`keyString` two, the Set two). */
const READS_PER_KEY = 8;

/**
 * `checkKeys(doc, maxKeys)`, and the work it did as the test counts it, not as `checkKeys` reports
 * it: the Set and Map lookups it made (what its own `lookups` claims to count), and its reads of the
 * values of the keys of `doc`'s top mapping. Past READS_PER_KEY reads a key it throws: a pairwise
 * check as yaml's `uniqueKeys` makes it (`a.value === b.value` against each earlier key) has read
 * about i² values by the i-th key, so it is stopped at once (near the 630th key of 50,000), whatever
 * it says its lookups were and however fast or loaded the machine. A pairwise check of copies of the
 * values (one read a key, then `includes`) escapes the reads, but makes no Set lookup a key.
 */
function countedCheck(doc: Document, maxKeys = MAX_MAPPING_KEYS) {
  if (!isMap(doc.contents)) throw new Error('no mapping');
  const keys = doc.contents.items.map((pair) => pair.key).filter(isScalar);
  const values = keys.map((key) => key.value);
  const budget = READS_PER_KEY * keys.length;
  let reads = 0;
  keys.forEach((key, i) => {
    Object.defineProperty(key, 'value', {
      configurable: true,
      enumerable: true,
      get() {
        if (++reads > budget)
          throw new Error(`more than ${READS_PER_KEY} reads of the keys' values a key: pairwise?`);
        return values[i];
      },
      set(value: unknown) {
        values[i] = value;
      },
    });
  });
  // The lookups themselves wrapped (only checkKeys runs meanwhile: it is synchronous).
  const { has: setHas } = Set.prototype;
  const { has: mapHas, get: mapGet } = Map.prototype;
  let lookups = 0;
  Set.prototype.has = function (this: Set<unknown>, value: unknown) {
    lookups++;
    return setHas.call(this, value);
  };
  Map.prototype.has = function (this: Map<unknown, unknown>, key: unknown) {
    lookups++;
    return mapHas.call(this, key);
  };
  Map.prototype.get = function (this: Map<unknown, unknown>, key: unknown) {
    lookups++;
    return mapGet.call(this, key);
  };
  try {
    const check = checkKeys(doc, maxKeys);
    return { check, lookups, reads };
  } finally {
    Object.assign(Set.prototype, { has: setHas });
    Object.assign(Map.prototype, { has: mapHas, get: mapGet });
    keys.forEach((key, i) => {
      Object.defineProperty(key, 'value', {
        configurable: true,
        enumerable: true,
        writable: true,
        value: values[i],
      });
    });
  }
}

const problemsOf = (text: string) => parseYamlFile('f.yaml', text, {}).problems.map(formatProblem);

describe('the duplicate-key check is linear', () => {
  it('yaml is never asked to check key uniqueness', () => {
    yamlCalls.length = 0;
    parseYamlFile('f.yaml', 'a: 1\na: 2\n', {});
    runSteps(declaredVariablesIn('variables: [A]\nx: 1\n'));
    expect(yamlCalls.length).toBe(2);
    for (const options of yamlCalls) expect(options.uniqueKeys).toBe(false);
  });

  it("what yaml's own check costs: each key compared with every key before it", () => {
    // Counted with yaml's hook for an equality of keys: n(n-1)/2 comparisons for n unique keys.
    let comparisons = 0;
    const uniqueKeys = (a: unknown, b: unknown) => {
      comparisons++;
      return a === b;
    };
    parseDocument(mappingText(2_000), { uniqueKeys });
    expect(comparisons).toBe((2_000 * 1_999) / 2);
  });

  it('checkKeys makes two lookups a key: 100,000 for a mapping of 50,000 keys', () => {
    const text = mappingText(50_000);
    const [doc] = parseAllDocuments(text, { uniqueKeys: false });
    if (doc === undefined || Array.isArray(doc)) throw new Error('no document');
    const { check, lookups, reads } = countedCheck(doc, Number.POSITIVE_INFINITY);
    expect(check.lookups).toBe(100_000);
    expect(lookups).toBe(check.lookups);
    expect(reads).toBeGreaterThanOrEqual(50_000); // every key is read: the budget is in force
    expect(check.duplicates).toEqual([]);
    // With the cap, the mapping is refused before any of its keys is looked up, or even read.
    const capped = countedCheck(doc);
    expect([capped.check.lookups, capped.lookups, capped.reads]).toEqual([0, 0, 0]);
    expect(capped.check.tooLarge).toEqual([{ offset: 0, path: [] }]);
  }, 60_000);

  it('and finds every duplicate of a mapping written twice over, still two lookups a key', () => {
    const text = `${mappingText(25_000)}${mappingText(25_000)}`;
    const [doc] = parseAllDocuments(text, { uniqueKeys: false });
    if (doc === undefined || Array.isArray(doc)) throw new Error('no document');
    const { check, lookups } = countedCheck(doc, Number.POSITIVE_INFINITY);
    expect(check.lookups).toBe(100_000);
    expect(lookups).toBe(check.lookups);
    expect(check.duplicates.length).toBe(25_000);
    expect(check.duplicates[0]).toEqual({ offset: text.length / 2, key: 'k0', firstOffset: 0, path: ['k0'] });
  }, 60_000);
});

describe('duplicate keys say what they said before', () => {
  it.each([
    ['a block mapping', 'a: 1\na: 2\n', ['f.yaml:2:1: duplicate key "a" (first at f.yaml:1:1)']],
    ['a flow mapping', 'a: {b: 1, b: 2}\n', ['f.yaml:1:11: duplicate key "b" (first at f.yaml:1:5)']],
    [
      'a key written three times',
      'a: 1\na: 2\na: 3\n',
      [
        'f.yaml:2:1: duplicate key "a" (first at f.yaml:1:1)',
        'f.yaml:3:1: duplicate key "a" (first at f.yaml:1:1)',
      ],
    ],
    // yaml compares the keys' values: 1 and 0x1 are one key, 1 and "1" are not (and NaN is never
    // equal to itself); the first occurrence named is the first key of the same name.
    ['equal numbers', '1: a\n0x1: b\n', ['f.yaml:2:1: duplicate key "1" (first at f.yaml:1:1)']],
    [
      'a number after a string',
      '"1": a\n1: b\n1: c\n',
      ['f.yaml:3:1: duplicate key "1" (first at f.yaml:1:1)'],
    ],
    ['NaN', '.nan: a\n.nan: b\n', []],
    ['two empty keys', ': a\n: b\n', ['f.yaml:2:1: duplicate key "" (first at f.yaml:1:1)']],
    [
      'a mapping that is a key',
      '? {a: 1, a: 2}\n: v\n',
      [
        'f.yaml:1:10: invalid YAML: Map keys must be unique',
        'f.yaml:1:3: a mapping key must be a plain scalar, not a list or mapping',
      ],
    ],
  ])('%s', (_name, text, expected) => {
    expect(problemsOf(text).filter((line) => !line.includes('top level'))).toEqual(expected);
  });

  it('a key written twice is read on, the later value counting, and named once as ambiguous', () => {
    const parsed = parseYamlFile('f.yaml', 'x:\n  - a: 1\n    a: 2\n    a: 3\nb: 1\nb: 2\n', {});
    expect(parsed.problems).toHaveLength(3);
    expect(parsed.documents.map((document) => [document.data, document.ambiguous])).toEqual([
      [{ x: [{ a: 3 }], b: 2 }, [['x', 0, 'a'], ['b']]],
    ]);
  });

  it(`more than ${MAX_AMBIGUOUS_KEYS} keys written twice in a document: each is said, and the document is read no further`, () => {
    const keys = MAX_AMBIGUOUS_KEYS + 1;
    const text = `${mappingText(keys)}${mappingText(keys)}`;
    const parsed = parseYamlFile('f.yaml', text, {});
    expect(parsed.problems).toHaveLength(keys);
    expect(parsed.documents).toEqual([]);
    const under = parseYamlFile('f.yaml', `${mappingText(keys - 1)}${mappingText(keys - 1)}`, {});
    expect(under.documents[0]?.ambiguous).toHaveLength(keys - 1);
  });

  it('one key written as many times as a mapping may hold keys is one ambiguous path', () => {
    const parsed = parseYamlFile('f.yaml', 'a: 1\n'.repeat(MAX_MAPPING_KEYS), {});
    expect(parsed.problems).toHaveLength(MAX_MAPPING_KEYS - 1);
    expect(parsed.documents[0]?.ambiguous).toEqual([['a']]);
  });

  it('a document with a duplicate key declares no variables, as before', () => {
    expect(runSteps(declaredVariablesIn('variables: [A]\nx: 1\n'))).toEqual(['A']);
    expect(runSteps(declaredVariablesIn('variables: [A]\nx: 1\nx: 2\n'))).toEqual([]);
  });
});

describe(`a mapping of more than ${MAX_MAPPING_KEYS} keys`, () => {
  it('the message names the cap', () => {
    expect(TOO_MANY_KEYS).toBe(
      `a mapping holds more than ${MAX_MAPPING_KEYS} keys: wafctl configurations never need that many`,
    );
  });

  it('is refused at its first key, with its path; one key fewer is read', () => {
    const over = `settings:\n${mappingText(MAX_MAPPING_KEYS + 1, '  ')}`;
    expect(problemsOf(over)).toEqual([`f.yaml:2:3 settings: ${TOO_MANY_KEYS}`]);
    expect(parseYamlFile('f.yaml', over, {}).documents).toEqual([]);
    const at = `settings:\n${mappingText(MAX_MAPPING_KEYS, '  ')}`;
    expect(problemsOf(at)).toEqual([]);
  });

  it('in a flow mapping, at its brace', () => {
    const keys = Array.from({ length: MAX_MAPPING_KEYS + 1 }, (_, i) => `k${i}: ${i}`);
    expect(problemsOf(`a: [{${keys.join(', ')}}]\n`)).toEqual([`f.yaml:1:5 a[0]: ${TOO_MANY_KEYS}`]);
  });

  it('the fast reader declines it before building anything, and takes one at the cap', () => {
    constructed.count = 0;
    expect(readFast('f.yaml', mappingText(MAX_MAPPING_KEYS + 1))).toBeUndefined();
    expect(constructed.count).toBe(0);
    expect(readFast('f.yaml', mappingText(MAX_MAPPING_KEYS))).toHaveLength(1);
    expect(constructed.count).toBe(1);
  });

  it('the fast reader declines duplicate keys (js-yaml: one own-property lookup a key), and yaml says where', () => {
    const text = `${mappingText(500)}k7: again\n`;
    expect(readFast('f.yaml', text)).toBeUndefined();
    expect(problemsOf(text).filter((line) => line.includes('duplicate'))).toEqual([
      'f.yaml:501:1: duplicate key "k7" (first at f.yaml:8:1)',
    ]);
  });

  it('the 300,000-key file of the issue: one problem, at the mapping', () => {
    const text = mappingText(300_000);
    expect(Buffer.byteLength(text)).toBeGreaterThan(4_000_000);
    const result = validateSources([{ file: 'big.yaml', text }], { env: {} });
    expect(result.ok ? [] : result.problems.map(formatProblem)).toEqual([`big.yaml:1:1: ${TOO_MANY_KEYS}`]);
  }, 60_000);
});
