/**
 * The toy family's descriptor: all the engine knows of widgets. It reaches the server through the
 * family's API module, handed in: the real one, against an emulator given the toy's table entry and
 * route file (toy-family-emulator.test.ts), or an in-memory stand-in (toy-family.test.ts).
 */
import * as z from 'zod';
import { added, type ImpactRule, reasonIf } from '../../../src/core/impact.js';
import {
  attributesById,
  changedValues,
  defineGet,
  defineKind,
  idsByName,
  kindObject,
  nonEmptyString,
  type RemoteRecord,
} from '../../../src/kinds/kind.js';
import { sortedSet } from '../../../src/kinds/normalize.js';
import type { Widget, WidgetInput, WidgetsApi } from './api.js';
import { WIDGET_COLORS } from './domain.js';

export const widgetSchema = kindObject(
  { name: nonEmptyString },
  {
    size: z.int().min(1).default(1),
    color: z.enum(WIDGET_COLORS).default('red'),
    tags: z.array(nonEmptyString).default([]),
  },
);

const attributesOf = (w: WidgetInput) => ({
  name: w.name,
  size: w.size,
  color: w.color,
  tags: sortedSet(w.tags),
});

/** A widget as compared and shown: the family's attribute type. */
export type WidgetAttributes = ReturnType<typeof attributesOf>;

const widgetImpact: readonly ImpactRule[] = [
  {
    class: 'weakens_protection',
    reasons: (s) =>
      reasonIf(s.action === 'update' && Number(s.after?.size) < Number(s.before?.size), 'shrunk'),
  },
  {
    class: 'broadens_access',
    reasons: (s) => added(s, (w) => (w.tags as string[] | undefined) ?? []).map((tag) => `tag added: ${tag}`),
  },
];

const recordOf = (w: Widget): RemoteRecord<WidgetAttributes> => ({
  id: w.id,
  key: w.name,
  attributes: attributesOf(w),
});

export function widgetsKind(widgets: WidgetsApi) {
  const fetchAll = async () => (await widgets.list()).map(recordOf);
  return defineKind({
    name: 'widget',
    section: 'widgets',
    noun: 'widget',
    keyFields: ['name'],
    schema: widgetSchema,
    immutable: ['color'],
    attributes: attributesOf,
    fetchAll,
    impact: widgetImpact,
    get: defineGet<RemoteRecord<WidgetAttributes>>({
      columns: [
        { header: 'ID', cell: (w) => w.id },
        { header: 'NAME', cell: (w) => w.key },
      ],
      async *list() {
        yield* await fetchAll();
      },
      find: {
        by: 'id',
        async one(_api, id) {
          const found = (await fetchAll()).find((w) => w.id === id);
          if (found === undefined) throw new Error(`no widget ${id}`);
          return found;
        },
      },
    }),
    writer: {
      bulkCreate: false,
      bulkUpdate: false,
      bulkDelete: true,
      deletesFirst: true,
      async create(_ctx, objects) {
        const ids: string[] = [];
        for (const object of objects) ids.push((await widgets.create(object)).id);
        return ids;
      },
      async update(_ctx, changes) {
        for (const change of changes) await widgets.update(change.id, changedValues(change));
      },
      async delete(_ctx, ids) {
        await widgets.delete(ids);
      },
      ...idsByName(fetchAll),
      current: async (_ctx, ids) => attributesById(await fetchAll(), ids),
    },
  });
}
