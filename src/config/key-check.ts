/**
 * Duplicate keys and oversized mappings, found in one pass. yaml's own check (`uniqueKeys`) compares
 * each key with every key before it in its mapping, so a mapping of 300,000 keys took minutes:
 * `checkKeys` makes one pass with a Map per mapping, as many lookups as there are keys, and says what
 * yaml said.
 */
import { type Document, isMap, isScalar, isSeq } from 'yaml';
import { keyString, offsetOf, type YamlPath } from './yaml-path.js';

/**
 * Keys one mapping may hold. wafctl's mappings are objects of a few dozen fields and small maps
 * (`vars`, `environments`); a larger one is refused at its start and the document is read no
 * further. It bounds what still grows faster than a mapping: each problem about a key looks the key
 * up among its mapping's keys (an unknown field, a position), and pull's editing parse checks
 * uniqueness as yaml does. The fast reader declines such a mapping (fast-read.ts).
 */
export const MAX_MAPPING_KEYS = 1000;

/** A key written again in its mapping (`offset`), as yaml's `uniqueKeys` finds it. */
export interface DuplicateKey {
  offset: number;
  /** The key as the data names it (`keyString`). */
  key: string;
  /** Where the first key of that name is in the mapping. */
  firstOffset: number;
  /** The mapping's path and the key. */
  path: YamlPath;
}

export interface KeyCheck {
  duplicates: DuplicateKey[];
  /** Duplicates inside a mapping that is itself a key (`? {a: 1, a: 2}`), refused anyway. */
  inKeys: number[];
  /** Mappings of more than the cap: where they start, and their paths. Their keys are not checked. */
  tooLarge: { offset: number; path: YamlPath }[];
  /** Set and Map lookups made: two per key (test/config/key-bounds.test.ts counts them). */
  lookups: number;
}

/**
 * Duplicate keys and oversized mappings of a document, in one pass: a Map per mapping. A key is a
 * duplicate when its scalar value equals an earlier key's (`===`: `1` and `0x1` are, `1` and `"1"`
 * are not, as with yaml's `uniqueKeys`); its first occurrence is the first key of the same name
 * (`keyString`). Paths follow values; an alias is not followed (its anchor is checked where it is
 * written). `maxKeys`: the cap, a parameter for the test that counts the lookups of a larger mapping.
 */
export function checkKeys(doc: Document, maxKeys = MAX_MAPPING_KEYS): KeyCheck {
  const found: KeyCheck = { duplicates: [], inKeys: [], tooLarge: [], lookups: 0 };
  const walk = (node: unknown, path: YamlPath, inKey: boolean): void => {
    if (isSeq(node)) {
      node.items.forEach((item, index) => {
        walk(item, [...path, index], inKey);
      });
      return;
    }
    if (!isMap(node)) return;
    if (node.items.length > maxKeys) {
      if (!inKey) found.tooLarge.push({ offset: offsetOf(node), path });
      return;
    }
    const values = new Set<unknown>();
    const firsts = new Map<string, number>();
    // In document order: each key, then what is under it.
    for (const pair of node.items) {
      const key = pair.key;
      const name = keyString(key) ?? '';
      // A collection or alias as a key is never equal to another key (and is refused anyway).
      if (isScalar(key)) {
        found.lookups += 2;
        const first = firsts.get(name);
        if (first === undefined) firsts.set(name, offsetOf(key));
        // NaN is no duplicate of NaN (`===`), although a Set would say so.
        if (!values.has(key.value) || Number.isNaN(key.value)) values.add(key.value);
        else if (inKey) found.inKeys.push(offsetOf(key));
        else
          found.duplicates.push({
            offset: offsetOf(key),
            key: name,
            firstOffset: first as number,
            path: [...path, name],
          });
      }
      walk(key, path, true);
      walk(pair.value, [...path, name], inKey);
    }
  };
  walk(doc.contents, [], false);
  return found;
}

/** The problem of a mapping over MAX_MAPPING_KEYS. */
export const TOO_MANY_KEYS = `a mapping holds more than ${MAX_MAPPING_KEYS} keys: wafctl configurations never need that many`;
