/**
 * Overlays: an environment reads its paths in order, and a later path overlays the earlier ones.
 *
 * - An object whose natural key matches an object of an earlier path overrides the top-level fields
 *   it sets (the earlier object's other fields are kept): the merged object is validated, and loaded,
 *   where the overlay writes it. Problems keep naming where the value was written: a problem under a
 *   field the overlay sets is placed in the overlay; one under a field it inherits was already said
 *   where the earlier path writes it (every object is validated where it is written), so it is not
 *   said twice.
 * - `remove: true` (with the natural key, and nothing else) removes the earlier object; on a key no
 *   earlier path declares it is an error at the `remove`.
 * - A new key adds an object. Within one path, a key declared twice is a duplicate, as everywhere.
 * - A singleton section (network_rule_settings, one object) overlays the same way: a later path's
 *   section overrides the top-level fields it sets, the earlier path's others are kept. (Within one
 *   path, declared twice, it is a duplicate.)
 * - A test case (`tests:`) whose name matches a case of an earlier path replaces it whole (its
 *   request and expectation are not merged field by field); the earlier case is superseded. There
 *   is no `remove:` for tests: an environment that changes what a rule does replaces the case with
 *   its own expectation. Within one path, a name declared twice is a duplicate (rule-tests.ts).
 * - `settings`, `manage` and `variables` merge across all the files as they always do.
 *
 * Pure: parsed documents in, documents with merged data and marks out (validate-sources.ts reads the
 * marks: an object `superseded` by a later path is validated but neither declared nor loaded).
 */
import type { Kind } from '../kinds/index.js';
import { isMapping, type Mapping } from './mapping.js';
import { naturalKey } from './natural-keys.js';
import type { ParsedDocument, ParsedFile } from './parse-yaml.js';
import type { ConfigProblem } from './problems.js';
import { TESTS } from './rule-test-schema.js';
import { formatPath, type YamlPath } from './yaml-path.js';

/** The key in an overlay object that removes the earlier object. */
export const REMOVE = 'remove';

interface Overlaid {
  /** The top-level fields the overlay writes: problems under other fields are the earlier path's. */
  fields: ReadonlySet<string>;
  /** Whether the object it overrides passed the schema (then a problem of the whole object is the overlay's). */
  earlierValid: boolean;
}

export interface OverlaidDocument extends ParsedDocument {
  /** `section[i]` of objects a later path overrides or removes, and of `remove: true` objects. */
  superseded?: Set<string>;
  /** `section[i]` of objects merged over an earlier path's (and of removals: no field is theirs). */
  overlaid?: Map<string, Overlaid>;
}

/** One path of an environment, in order: its files as read. */
export interface Layer<F extends ParsedFile = ParsedFile> {
  /** The path as the environment lists it (for messages). */
  path: string;
  files: F[];
}

interface Declared {
  document: OverlaidDocument;
  index: number;
  /** The object's data as it stands after the paths read so far. */
  raw: Mapping;
  layer: number;
}

const ITEM = /^([^[.]+)\[(\d+)\](?:\.([^.[]+))?/;
/** A problem under a singleton section's field: `network_rule_settings.automation...`. */
const SINGLE_FIELD = /^([^[.]+)\.([^.[]+)/;

/** A list section's object by index; a singleton section's one object is index -1. */
function itemKey(section: string, index: number): string {
  return `${section}[${index}]`;
}

/** The mark of the object a problem is under, and the top-level field it is under (if any). */
function markOf(
  overlaid: ReadonlyMap<string, Overlaid>,
  path: string,
): { mark: Overlaid; field: string | undefined } | undefined {
  const item = ITEM.exec(path);
  if (item !== null) {
    const mark = overlaid.get(itemKey(item[1] ?? '', Number(item[2])));
    return mark === undefined ? undefined : { mark, field: item[3] };
  }
  const single = SINGLE_FIELD.exec(path);
  const mark = single === null ? undefined : overlaid.get(itemKey(single[1] ?? '', -1));
  return mark === undefined ? undefined : { mark, field: single?.[2] };
}

/** Whether a problem the schema found in `document` is said (see the module comment). */
export function keepProblem(document: ParsedDocument, problem: ConfigProblem): boolean {
  const overlaid = (document as OverlaidDocument).overlaid;
  if (overlaid === undefined) return true;
  const found = markOf(overlaid, problem.path);
  if (found === undefined) return true;
  const { mark, field } = found;
  if (field !== undefined) return mark.fields.has(field);
  if (mark.fields.size === 0) return false;
  // Unknown fields of the merged object are only the overlay's (inherited ones are left out).
  return mark.earlierValid || problem.message.startsWith('unknown field');
}

/** `document` as natural keys are declared from it: without its superseded objects. */
export function declaredView<D extends ParsedDocument>(document: D): D {
  const superseded = (document as OverlaidDocument).superseded;
  if (superseded === undefined || superseded.size === 0 || !isMapping(document.data)) return document;
  const view: Mapping = { ...document.data };
  for (const [section, items] of Object.entries(view)) {
    if (superseded.has(itemKey(section, -1))) delete view[section];
    if (!Array.isArray(items)) continue;
    view[section] = items.map((item, index) => (superseded.has(itemKey(section, index)) ? null : item));
  }
  return { ...document, data: view };
}

/** Whether the object at `index` of `section` is superseded (neither declared nor loaded). */
export function isSuperseded(document: ParsedDocument, section: string, index: number): boolean {
  return (document as OverlaidDocument).superseded?.has(itemKey(section, index)) ?? false;
}

function problemAt(document: ParsedDocument, path: YamlPath, message: string): ConfigProblem {
  const { line, col } = document.locate(path);
  return { file: document.file, line, col, path: formatPath(path), message };
}

/** The earlier object's fields the schema knows: an unknown field was said where it is written. */
function knownFields(kind: Kind, raw: Mapping): Mapping {
  const shape = kind.schema.shape as Record<string, unknown>;
  const known: Mapping = {};
  for (const key of Object.keys(raw)) {
    if (Object.hasOwn(shape, key)) {
      Object.defineProperty(known, key, {
        value: raw[key],
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return known;
}

/**
 * The objects' top-level fields merged as an overlay merges them: a later object's fields win. Own
 * properties only, defined (not assigned), so a key such as `__proto__` in YAML stays a plain field.
 */
export function mergedFields(sources: readonly Mapping[]): Mapping {
  const result: Mapping = {};
  for (const source of sources) {
    for (const key of Object.keys(source)) {
      Object.defineProperty(result, key, {
        value: source[key],
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return result;
}

/** A file's documents as overlaid ones: each with its own copy of its top-level mapping, and no marks yet. */
function overlaidFile<F extends ParsedFile>(file: F): F {
  const documents = file.documents.map((document): OverlaidDocument => {
    const data = isMapping(document.data) ? { ...document.data } : document.data;
    return { ...document, data, superseded: new Set(), overlaid: new Map() };
  });
  return { ...file, documents };
}

/** An overlay's `fields` over an earlier object: the merged object; the earlier one is superseded. */
function overlayOver(
  kind: Kind,
  earlier: Declared,
  document: OverlaidDocument,
  here: string,
  fields: Mapping,
): Mapping {
  const earlierValid = kind.schema.safeParse(earlier.raw).success;
  earlier.document.superseded?.add(itemKey(kind.section, earlier.index));
  document.overlaid?.set(here, { fields: new Set(Object.keys(fields)), earlierValid });
  return mergedFields([knownFields(kind, earlier.raw), fields]);
}

/** A family of list sections, and its objects by natural key as they stand. */
interface ListSection {
  kind: Kind;
  declared: Map<string, Declared>;
}

/**
 * The overlay of an environment's layers under way (see the module comment): each key as it stands
 * after the paths read so far, and the problems of `remove:`.
 */
class Overlay {
  readonly problems: ConfigProblem[] = [];
  /** Each family of list sections, with its objects by natural key. */
  private readonly lists: readonly ListSection[];
  /** Each singleton section. */
  private readonly singles = new Map<string, Declared>();
  private readonly singleKinds: readonly Kind[];
  /** Each test case by name, as it stands (the case that replaces an earlier path's). */
  private readonly tests = new Map<string, Declared>();

  constructor(
    private readonly layers: readonly Layer[],
    kinds: readonly Kind[],
  ) {
    this.lists = kinds.filter((kind) => !kind.singleton).map((kind) => ({ kind, declared: new Map() }));
    this.singleKinds = kinds.filter((kind) => kind.singleton);
  }

  /** The files of the layer at `layer`, their documents overlaid over the earlier layers'. */
  layer<F extends ParsedFile>(layer: number, files: readonly F[]): F[] {
    const out = files.map(overlaidFile);
    for (const file of out) {
      for (const document of file.documents) this.document(document, layer);
    }
    return out;
  }

  private document(document: OverlaidDocument, layer: number): void {
    const data = document.data;
    if (!isMapping(data)) return;
    for (const kind of this.singleKinds) this.singleton(kind, document, data, layer);
    this.testCases(document, data, layer);
    for (const list of this.lists) {
      const section = list.kind.section;
      const items = Object.hasOwn(data, section) ? data[section] : undefined;
      if (!Array.isArray(items)) continue;
      const copy = [...items];
      data[section] = copy;
      for (let index = 0; index < copy.length; index++) this.item(list, document, copy, index, layer);
    }
  }

  /**
   * The object at `index` of a list section (`copy`, the document's own): declared, removing an
   * earlier path's object (`removal`), or merged over it, in its place in `copy`.
   */
  private item(
    { kind, declared }: ListSection,
    document: OverlaidDocument,
    copy: unknown[],
    index: number,
    layer: number,
  ): void {
    const item = copy[index];
    if (!isMapping(item)) return;
    const key = naturalKey(kind, item);
    if (key === undefined) return;
    const found = declared.get(key);
    const earlier = found !== undefined && found.layer < layer ? found : undefined;
    if (Object.hasOwn(item, REMOVE)) {
      const removed = this.removal(kind, document, index, item, key, earlier, layer);
      if (removed === undefined) return;
      declared.delete(key);
      copy[index] = removed.raw;
      return;
    }
    if (earlier === undefined) {
      declared.set(key, { document, index, raw: item, layer });
      return;
    }
    const object = overlayOver(kind, earlier, document, itemKey(kind.section, index), item);
    copy[index] = object;
    declared.set(key, { document, index, raw: object, layer });
  }

  /**
   * A `remove:` object, superseded itself: the earlier path's object it removes (superseded too), or
   * undefined after a problem (`remove:` not `true`, or no earlier path declares the key).
   */
  private removal(
    kind: Kind,
    document: OverlaidDocument,
    index: number,
    item: Mapping,
    key: string,
    earlier: Declared | undefined,
    layer: number,
  ): Declared | undefined {
    const section = kind.section;
    const here = itemKey(section, index);
    const { [REMOVE]: remove, ...rest } = item;
    document.superseded?.add(here);
    document.overlaid?.set(here, { fields: new Set(), earlierValid: true });
    const at = [section, index, REMOVE];
    if (remove !== true) {
      this.problems.push(problemAt(document, at, 'expected remove: true (or no remove field)'));
      return undefined;
    }
    if (earlier === undefined) {
      const before =
        layer === 0
          ? 'no path'
          : this.layers
              .slice(0, layer)
              .map((entry) => entry.path)
              .join(', ');
      const path = this.layers[layer]?.path;
      const message = `remove: true on ${kind.noun} "${key}", which no earlier path declares (${path} is read after ${before})`;
      this.problems.push(problemAt(document, at, message));
      return undefined;
    }
    for (const field of Object.keys(rest)) {
      if (kind.keyFields.includes(field)) continue;
      const message = `remove: true takes only the natural key (${kind.keyFields.join(', ')}): ${field} is not read`;
      this.problems.push(problemAt(document, [section, index, field], message));
    }
    earlier.document.superseded?.add(itemKey(section, earlier.index));
    return earlier;
  }

  /**
   * The test cases of `document` (at `layer`): a case named as an earlier path's case supersedes it
   * (see the module comment). Within one path a second case of a name is left alone: rule-tests.ts
   * says it is a duplicate.
   */
  private testCases(document: OverlaidDocument, data: Mapping, layer: number): void {
    const items = Object.hasOwn(data, TESTS) ? data[TESTS] : undefined;
    if (!Array.isArray(items)) return;
    items.forEach((item: unknown, index) => {
      const name = isMapping(item) && Object.hasOwn(item, 'name') ? item.name : undefined;
      if (typeof name !== 'string') return;
      const found = this.tests.get(name);
      if (found !== undefined && found.layer >= layer) return;
      found?.document.superseded?.add(itemKey(TESTS, found.index));
      this.tests.set(name, { document, index, raw: item as Mapping, layer });
    });
  }

  /**
   * A singleton section of `document` (at `layer`) over an earlier path's: the earlier one is
   * superseded and this one holds the merged fields (see the module comment). Within one path a
   * second declaration is left alone: natural-keys.ts says it is a duplicate.
   */
  private singleton(kind: Kind, document: OverlaidDocument, data: Mapping, layer: number): void {
    const section = kind.section;
    const item = Object.hasOwn(data, section) ? data[section] : undefined;
    if (!isMapping(item)) return;
    const found = this.singles.get(section);
    if (found !== undefined && found.layer >= layer) return;
    if (found === undefined) {
      this.singles.set(section, { document, index: -1, raw: item, layer });
      return;
    }
    const object = overlayOver(kind, found, document, itemKey(section, -1), item);
    data[section] = object;
    this.singles.set(section, { document, index: -1, raw: object, layer });
  }
}

/**
 * Applies the overlay rules to the layers' documents (in the order given; each layer's files in
 * their own order). Returns each file with its documents replaced by overlaid ones, and the
 * problems of `remove:` itself.
 */
export function overlayLayers<F extends ParsedFile>(
  layers: readonly Layer<F>[],
  kinds: readonly Kind[],
): { layers: Layer<F>[]; problems: ConfigProblem[] } {
  const overlay = new Overlay(layers, kinds);
  const out = layers.map(({ path, files }, layer) => ({ path, files: overlay.layer(layer, files) }));
  return { layers: out, problems: overlay.problems };
}
