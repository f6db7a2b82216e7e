/**
 * Exported objects -> the text of one configuration file: the editor-schema comment, a `manage`
 * block per kind, then the kinds' lists. The output depends on nothing but its input (no dates, no
 * host names), so re-exporting an unchanged firewall gives the same bytes.
 */
import { Document, isMap, isNode, isScalar, isSeq, visit } from 'yaml';
import type { KindName as Section } from '../config/schema.js';
import type { Attributes } from '../plan/model.js';

export interface ExportSection {
  section: Section;
  /** Ordered, defaults omitted. */
  objects: readonly Attributes[];
  /** Objects of the kind that could not be exported (see select.ts). */
  leftOut: number;
}

/** Short lists of scalars read best inline (`users: [u-1, u-2]`); longer ones diff best one per line. */
const MAX_FLOW_LIST_CHARS = 60;

/** The loader substitutes `${VAR}` in every string value; `$${` is its escape for a literal `${`. */
export function escapeSubstitutions(value: unknown): unknown {
  // A function, not the string '$${': in a replacement string `$$` itself means one `$`.
  if (typeof value === 'string') return value.replaceAll('${', () => '$${');
  if (Array.isArray(value)) return value.map(escapeSubstitutions);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, escapeSubstitutions(v)]));
  }
  return value;
}

/** `1 application rule`, `2 groups`. */
export function countOf(section: Section, count: number): string {
  const plural = section.replaceAll('_', ' ');
  return `${count} ${count === 1 ? plural.replace(/s$/, '') : plural}`;
}

function prunedComment(section: Section, leftOut: number): string {
  return ` prune is off: ${countOf(section, leftOut)} could not be exported (see the warnings of \`wafctl export\`),
 and pruning would delete ${leftOut === 1 ? 'it' : 'them'}.`;
}

function manageBlock(sections: readonly ExportSection[]): Record<string, { prune: boolean }> {
  // The export declares every object of a kind, so it may prune, unless some had to be left out.
  return Object.fromEntries(sections.map((s) => [s.section, { prune: s.leftOut === 0 }]));
}

export function renderExportFile(sections: readonly ExportSection[], schemaReference: string): string {
  const content: Record<string, unknown> = { manage: manageBlock(sections) };
  for (const { section, objects } of sections) content[section] = escapeSubstitutions(objects);
  const doc = new Document(content);

  for (const { section, leftOut } of sections) {
    const scope = doc.getIn(['manage', section], true);
    if (leftOut > 0 && isMap(scope)) scope.commentBefore = prunedComment(section, leftOut);
  }
  visit(doc, {
    Seq(_, seq) {
      const scalars = seq.items.filter(isScalar);
      const width = scalars.reduce<number>((sum, item) => sum + String(item.value).length + 2, 0);
      if (scalars.length === seq.items.length && width <= MAX_FLOW_LIST_CHARS) seq.flow = true;
    },
  });
  // A blank line before each kind's list and between its objects, as a person writes them.
  const top = isMap(doc.contents) ? doc.contents.items : [];
  for (const { section } of sections) {
    const key = top.find((pair) => isScalar(pair.key) && pair.key.value === section)?.key;
    if (isNode(key)) key.spaceBefore = true;
    const list = doc.get(section, true);
    if (!isSeq(list)) continue;
    list.items.forEach((item, i) => {
      if (i > 0 && isNode(item)) item.spaceBefore = true;
    });
  }
  const body = doc.toString({ lineWidth: 0, flowCollectionPadding: false });
  return `# yaml-language-server: $schema=${schemaReference}\n${body}`;
}
