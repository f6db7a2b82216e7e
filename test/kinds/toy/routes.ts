/**
 * The toy family's emulator route file: `/api/v1/widgets`, administrators only. Created widgets are
 * numbered by the table entry's counter; `color` cannot change (the descriptor replaces a widget to
 * change it, creating the new one before deleting the old: so names are not unique); deletes take
 * many ids at once.
 */
import { z } from 'zod';
import {
  changed,
  fail,
  ok,
  type Route,
  type RouteContext,
  type RouteResult,
} from '../../../src/emulator/router.js';
import { nameText, nonEmptyString, parseWith } from '../../../src/emulator/validation.js';
import { WIDGETS, type WidgetRecord } from './collection.js';
import { WIDGET_COLORS } from './domain.js';

const MESSAGES = {
  list: 'List of widgets',
  listError: 'Error listing widgets',
  created: 'Widget created',
  createError: 'Error creating widget',
  updated: 'Widget updated',
  updateError: 'Error updating widget',
  deleted: 'Widgets deleted',
  deleteError: 'Error deleting widgets',
} as const;

const attrsShape = {
  name: nameText,
  size: z.int().min(1),
  color: z.enum(WIDGET_COLORS),
  tags: z.array(nonEmptyString),
};
const createBody = z.strictObject({ widget: z.strictObject(attrsShape) });
const updateBody = z.strictObject({ attrs: z.strictObject(attrsShape).omit({ color: true }).partial() });
const deleteBody = z.strictObject({ widget_ids: z.array(nonEmptyString) });

function create({ store, body }: RouteContext): RouteResult {
  const parsed = parseWith(createBody, body);
  if (!parsed.ok) return fail(MESSAGES.createError, parsed.errors);
  const widget: WidgetRecord = { id: store.nextId('widget'), ...parsed.value.widget };
  store.collection(WIDGETS).set(widget.id, widget);
  return changed(MESSAGES.created, { widget });
}

function update({ store, params, body }: RouteContext): RouteResult {
  const id = params.widget_id ?? '';
  const current = store.collection(WIDGETS).get(id);
  if (current === undefined) return fail(MESSAGES.updateError, [`widget_id: no widget with id '${id}'`]);
  const parsed = parseWith(updateBody, body);
  if (!parsed.ok) return fail(MESSAGES.updateError, parsed.errors);
  const widget: WidgetRecord = { ...current, ...parsed.value.attrs };
  store.collection(WIDGETS).set(id, widget);
  return changed(MESSAGES.updated, { widget });
}

function remove({ store, body }: RouteContext): RouteResult {
  const parsed = parseWith(deleteBody, body);
  if (!parsed.ok) return fail(MESSAGES.deleteError, parsed.errors);
  const widgets = store.collection(WIDGETS);
  const ids = parsed.value.widget_ids;
  const errors = ids.filter((id) => !widgets.has(id)).map((id) => `widget_ids: no widget '${id}'`);
  if (errors.length > 0) return fail(MESSAGES.deleteError, errors);
  for (const id of ids) widgets.delete(id);
  return changed(MESSAGES.deleted, { widget_ids: ids });
}

const COLLECTION = '/api/v1/widgets';

export const widgetRoutes: Route<'widgets'>[] = [
  {
    method: 'GET',
    template: COLLECTION,
    privilege: 'widgets',
    body: 'none',
    errorMessage: MESSAGES.listError,
    handle: ({ store }) => ok(MESSAGES.list, { widgets: [...store.collection(WIDGETS).values()] }),
  },
  {
    method: 'POST',
    template: COLLECTION,
    privilege: 'widgets',
    body: 'json',
    errorMessage: MESSAGES.createError,
    handle: create,
  },
  {
    method: 'PUT',
    template: `${COLLECTION}/{widget_id}`,
    privilege: 'widgets',
    body: 'json',
    errorMessage: MESSAGES.updateError,
    handle: update,
  },
  {
    method: 'DELETE',
    template: COLLECTION,
    privilege: 'widgets',
    body: 'json',
    errorMessage: MESSAGES.deleteError,
    handle: remove,
  },
];
