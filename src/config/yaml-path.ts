/**
 * Paths through a YAML node tree: how a problem's path (`groups[0].permissions[1].permission`) is
 * printed, and how it is turned back into the node (and so the FILE:LINE:COL) it refers to.
 */
import {
  type Alias,
  type Document,
  isAlias,
  isMap,
  isNode,
  isPair,
  isScalar,
  isSeq,
  type Pair,
  type Scalar,
} from 'yaml';

export type YamlPath = readonly (string | number)[];

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** `groups[0].permissions[1].permission`; keys that are not identifiers are quoted: `match["a b"]`. */
export function formatPath(path: YamlPath): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (IDENTIFIER.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

/** Whether the formatted `path` is `at` or under it. */
export function isAtOrUnder(path: string, at: string): boolean {
  return path === at || (path.startsWith(at) && (path[at.length] === '.' || path[at.length] === '['));
}

/** The string a mapping key becomes in the loaded data (the yaml library's rule for plain objects). */
export function keyString(key: unknown): string | undefined {
  if (!isScalar(key)) return undefined;
  return key.value === null ? '' : String(key.value);
}

function resolve(doc: Document, node: unknown): unknown {
  return isAlias(node) ? node.resolve(doc) : node;
}

/** The first pair of `map` whose key is `key`; undefined when `map` is no mapping or has none. */
export function pairOf(map: unknown, key: string): Pair | undefined {
  return isMap(map) ? map.items.find((pair) => keyString(pair.key) === key) : undefined;
}

/**
 * The deepest node on `path` (following aliases to their anchors). When the path leaves the tree —
 * a missing key — the last node that exists is returned, which is the mapping that lacks it.
 */
export function nodeAt(doc: Document, path: YamlPath): unknown {
  let node: unknown = doc.contents;
  for (const segment of path) {
    const current = resolve(doc, node);
    let next: unknown;
    if (isMap(current) && typeof segment === 'string') next = pairOf(current, segment)?.value;
    else if (isSeq(current) && typeof segment === 'number') next = current.items[segment];
    if (!isNode(next)) break;
    node = next;
  }
  return node;
}

/** The key node of `key` in the mapping at `path`. */
export function keyNodeAt(doc: Document, path: YamlPath, key: string): unknown {
  return pairOf(resolve(doc, nodeAt(doc, path)), key)?.key;
}

/** Start offset of a node in the source, or 0 when the node carries no range. */
export function offsetOf(node: unknown): number {
  return isNode(node) && node.range ? node.range[0] : 0;
}

/** Every string scalar that is a value (never a key), with its path; aliases are not followed. */
export function forEachStringValue(
  doc: Document,
  visit: (scalar: Scalar<string>, path: YamlPath) => void,
): void {
  const walk = (node: unknown, path: YamlPath): void => {
    if (isScalar(node)) {
      if (typeof node.value === 'string') visit(node as Scalar<string>, path);
    } else if (isMap(node)) {
      for (const pair of node.items) walk(pair.value, [...path, keyString(pair.key) ?? '?']);
    } else if (isSeq(node)) {
      for (const [index, item] of node.items.entries()) walk(item, [...path, index]);
    }
  };
  walk(doc.contents, []);
}

/** Every mapping pair whose key is not a plain scalar (`? [a, b]`), which cannot be a field name. */
export function complexKeys(doc: Document): Pair[] {
  const found: Pair[] = [];
  const walk = (node: unknown): void => {
    if (isMap(node)) {
      for (const pair of node.items) {
        if (isNode(pair.key) && !isScalar(pair.key)) found.push(pair);
        walk(pair.value);
      }
    } else if (isSeq(node)) {
      for (const item of node.items) walk(item);
    } else if (isPair(node)) {
      walk(node.value);
    }
  };
  walk(doc.contents);
  return found;
}

/**
 * The alias nodes of a document in source order, and whether each names an anchor defined before it.
 * One pre-order pass (the order the yaml library resolves anchors in): asking the library per alias
 * would walk the whole document once per alias.
 */
export function aliasesOf(doc: Document): { alias: Alias; resolved: boolean }[] {
  const found: { alias: Alias; resolved: boolean }[] = [];
  const anchors = new Set<string>();
  const walk = (node: unknown): void => {
    if (isAlias(node)) {
      found.push({ alias: node, resolved: anchors.has(node.source) });
      return;
    }
    if (isNode(node) && node.anchor) anchors.add(node.anchor);
    if (isMap(node)) {
      for (const pair of node.items) {
        walk(pair.key);
        walk(pair.value);
      }
    } else if (isSeq(node)) for (const item of node.items) walk(item);
  };
  walk(doc.contents);
  return found;
}
