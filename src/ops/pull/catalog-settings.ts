/**
 * `wafctl pull` writes live application rules into the files: a declared rule's conditions when they
 * changed live, and with `--adopt` the undeclared rules. A live rule may use targets or operators
 * outside wafctl's catalog (core/rules/catalog.ts) that `settings.extra_targets` /
 * `settings.extra_operators` do not declare yet, and the edited files would then not load
 * (validate-edits.ts). As export does (ops/export/catalog-extensions.ts), pull declares each missing
 * name by its exact name: appended to the list a file already sets (settings merge leaf by leaf, so
 * one file sets each list), else set in the document of the first rule that needs it.
 */
import type { Environment } from '../../config/env.js';
import { parseYamlFile } from '../../config/parse-yaml.js';
import { catalogExtensions } from '../../config/rule-catalog-settings.js';
import type { LoadedConfig } from '../../config/validate-sources.js';
import type { Attributes, Plan } from '../../core/model.js';
import { isKnownOperator, isKnownTarget } from '../../core/rules/catalog.js';
import { catalogSettingsOf } from '../export/catalog-extensions.js';
import {
  type AdoptCandidate,
  type AdoptTarget,
  type DeclaredObject,
  declaredKey,
  type PullDecision,
} from './decide.js';
import type { YamlEdit } from './model.js';

type ListName = 'extra_targets' | 'extra_operators';
const LISTS: readonly ListName[] = ['extra_targets', 'extra_operators'];

/** Names pull declares in one settings list, and the file that receives them. */
export interface CatalogAddition {
  list: ListName;
  names: string[];
  file: string;
}

export interface CatalogEdits {
  /** By file, to add to the decision's. */
  edits: Map<string, YamlEdit[]>;
  added: CatalogAddition[];
}

/** One document of one file. */
interface Place {
  file: string;
  document: number;
}

export interface CatalogInput {
  config: LoadedConfig;
  plan: Plan;
  decision: PullDecision;
  declared: ReadonlyMap<string, DeclaredObject>;
  adopted: readonly AdoptCandidate[];
  /** Where adopted application rules go (asked only when some are adopted). */
  adoptTarget: (kind: 'application_rule') => AdoptTarget;
  /** The configuration's texts, by file; a file pull creates is absent. */
  texts: ReadonlyMap<string, string>;
  env: Environment;
}

/**
 * The application rules whose conditions pull writes, with where each goes: declared rules whose
 * conditions changed live (unless a conflict keeps pull off them), then adopted rules.
 */
function writtenRules(input: CatalogInput): { rule: Attributes; at: Place }[] {
  const conflicted = new Set(input.decision.conflicts.map((c) => declaredKey(c.kind, c.key)));
  const written: { rule: Attributes; at: Place }[] = [];
  for (const change of input.plan.changes) {
    if (change.action !== 'update' && change.action !== 'replace') continue;
    if (change.kind !== 'application_rule' || !change.fields.includes('conditions')) continue;
    const id = declaredKey(change.kind, change.key);
    const object = input.declared.get(id);
    if (object === undefined || conflicted.has(id)) continue;
    written.push({ rule: { conditions: change.before.conditions }, at: object.location });
  }
  for (const candidate of input.adopted) {
    if (candidate.kind === 'application_rule') {
      written.push({ rule: candidate.object, at: input.adoptTarget('application_rule') });
    }
  }
  return written;
}

/** The names of `rules` that neither the catalog nor the configuration's settings accept, by list. */
function missingNames(rules: readonly Attributes[], config: LoadedConfig): Record<ListName, string[]> {
  const extensions = catalogExtensions(config.state);
  const needed = catalogSettingsOf(rules);
  return {
    extra_targets: (needed.extra_targets ?? []).filter((name) => !isKnownTarget(name, extensions)),
    extra_operators: (needed.extra_operators ?? []).filter((name) => !isKnownOperator(name, extensions)),
  };
}

/** A document's `settings` mapping, when it has one. */
function settingsOf(data: unknown): Record<string, unknown> | undefined {
  const settings = (data as { settings?: unknown } | null)?.settings;
  return settings !== null && typeof settings === 'object' && !Array.isArray(settings)
    ? (settings as Record<string, unknown>)
    : undefined;
}

/** Each document's `settings` mapping (read as the loader reads it), in file order. */
function settingsDocuments(input: CatalogInput): { at: Place; settings: Record<string, unknown> }[] {
  return input.config.files.flatMap((file) =>
    parseYamlFile(file, input.texts.get(file) ?? '', input.env, input.config.variables).documents.flatMap(
      (document) => {
        const settings = settingsOf(document.data);
        return settings === undefined ? [] : [{ at: { file, document: document.index }, settings }];
      },
    ),
  );
}

/**
 * The edits that declare the names pull's rules need and the configuration lacks (see the module
 * comment); none when every name is known.
 */
export function catalogEdits(input: CatalogInput): CatalogEdits {
  const result: CatalogEdits = { edits: new Map(), added: [] };
  const written = writtenRules(input);
  const missing = missingNames(
    written.map((entry) => entry.rule),
    input.config,
  );
  const first = written[0];
  if (first === undefined || LISTS.every((list) => missing[list].length === 0)) return result;
  const push = ({ file }: Place, edit: YamlEdit) =>
    result.edits.set(file, [...(result.edits.get(file) ?? []), edit]);
  const documents = settingsDocuments(input);
  const fresh: Record<string, string[]> = {};
  for (const list of LISTS) {
    const names = missing[list];
    if (names.length === 0) continue;
    const declaring = documents.find((d) => d.settings[list] !== undefined)?.at;
    if (declaring === undefined) fresh[list] = names;
    else
      push(declaring, {
        op: 'append',
        document: declaring.document,
        path: ['settings', list],
        values: names,
      });
    result.added.push({ list, names, file: (declaring ?? first.at).file });
  }
  if (Object.keys(fresh).length === 0) return result;
  const { at } = first;
  const hasSettings = documents.some((d) => d.at.file === at.file && d.at.document === at.document);
  if (!hasSettings) push(at, { op: 'set', document: at.document, path: ['settings'], value: fresh });
  else {
    for (const [list, names] of Object.entries(fresh)) {
      push(at, { op: 'set', document: at.document, path: ['settings', list], value: names });
    }
  }
  return result;
}

/** The note that says what pull declared: `declared request_cookie:a in settings.extra_targets (f.yaml)...`. */
export function additionNote({ list, names, file }: CatalogAddition): string {
  const them = names.length === 1 ? 'it' : 'them';
  return `declared ${names.join(', ')} in settings.${list} (${file}): the live rules pull writes use ${them}, and wafctl's catalog lacks ${them}`;
}

/** Adds `catalogEdits` to the decision's edits, and says what it declares through `warn`. */
export function declareCatalogNames(input: CatalogInput, warn: ((line: string) => void) | undefined): void {
  const { edits, added } = catalogEdits(input);
  for (const [file, more] of edits)
    input.decision.edits.set(file, [...(input.decision.edits.get(file) ?? []), ...more]);
  for (const addition of added) warn?.(additionNote(addition));
}
