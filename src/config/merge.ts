/**
 * `settings`, `manage` and the expectation sections (`admins:`) may be spread over files; they are
 * merged leaf by leaf. A leaf is any value that is not a mapping (a glob list is one leaf). The same
 * leaf set twice, even to the same value, is a conflict naming both places: which file wins must
 * never depend on file names.
 */

import type { Kind } from '../kinds/index.js';
import { isMapping, type Mapping } from './mapping.js';
import type { ParsedDocument } from './parse-yaml.js';
import type { ConfigProblem } from './problems.js';
import { formatPath, type YamlPath } from './yaml-path.js';

interface Leaf {
  path: YamlPath;
  value: unknown;
}

function leavesOf(value: unknown, path: YamlPath): Leaf[] {
  if (!isMapping(value)) return [{ path, value }];
  return Object.keys(value).flatMap((key) => leavesOf(value[key], [...path, key]));
}

/** Sets `path` in `target`, creating mappings on the way; own properties only, never a prototype. */
function setLeaf(target: Mapping, path: YamlPath, value: unknown): void {
  let current = target;
  path.forEach((segment, index) => {
    const key = String(segment);
    if (index === path.length - 1) {
      Object.defineProperty(current, key, { value, enumerable: true, writable: true, configurable: true });
      return;
    }
    const existing = Object.hasOwn(current, key) ? current[key] : undefined;
    const next: Mapping = isMapping(existing) ? existing : {};
    Object.defineProperty(current, key, {
      value: next,
      enumerable: true,
      writable: true,
      configurable: true,
    });
    current = next;
  });
}

export interface MergeResult {
  merged: Mapping;
  problems: ConfigProblem[];
}

/** Merges the top-level section `section` (`settings` or `manage`) of the given documents. */
export function mergeSection(documents: readonly ParsedDocument[], section: string): MergeResult {
  const merged: Mapping = {};
  const problems: ConfigProblem[] = [];
  // Positions are looked up only for a conflict: a run without one never needs them.
  const firstSet = new Map<string, { document: ParsedDocument; path: YamlPath }>();
  for (const document of documents) {
    const data = document.data;
    if (!isMapping(data) || !Object.hasOwn(data, section)) continue;
    for (const leaf of leavesOf(data[section], [section])) {
      const key = formatPath(leaf.path);
      const earlier = firstSet.get(key);
      if (earlier !== undefined) {
        const { line, col } = document.locate(leaf.path);
        const first = earlier.document.locate(earlier.path);
        problems.push({
          file: document.file,
          line,
          col,
          path: key,
          message: `already set at ${earlier.document.file}:${first.line}:${first.col}: settings and manage merge across files, and each field may be set only once`,
        });
        continue;
      }
      firstSet.set(key, { document, path: leaf.path });
      setLeaf(merged, leaf.path.slice(1), leaf.value);
    }
  }
  return { merged, problems };
}

/**
 * Each expectation section (`admins:`, kind.ts `expectation`) merged across the documents as
 * `settings` is, leaf by leaf (the same leaf twice is a conflict, in `problems`); a section no
 * document writes is left out.
 */
export function mergedExpectations(
  kinds: readonly Kind[],
  documents: readonly ParsedDocument[],
  problems: ConfigProblem[],
): Record<string, Record<string, unknown>> {
  const expected: Record<string, Record<string, unknown>> = {};
  for (const kind of kinds) {
    const section = kind.expectation?.section;
    if (section === undefined) continue;
    const merged = mergeSection(documents, section);
    for (const problem of merged.problems) problems.push(problem);
    if (documents.some((document) => isMapping(document.data) && Object.hasOwn(document.data, section))) {
      expected[section] = merged.merged;
    }
  }
  return expected;
}
