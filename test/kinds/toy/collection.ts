/**
 * The toy family's entry in the emulator's collection table. It lives in the test tree only, and is
 * handed to the emulator with its routes (`startEmulator({ extraCollections, extraRoutes })`): the
 * store, the state file, the journal, the invariants and auth derive from it as from the built-in
 * entries, so nothing in src/ knows widgets.
 */
import { z } from 'zod';
import { defineCollection } from '../../../src/emulator/collections.js';
import { ADMINS_ONLY } from '../../../src/emulator/permissions.js';
import { WIDGET_COLORS } from './domain.js';

/** A widget as the emulator stores it and the API returns it. */
export const widgetRecordSchema = z.strictObject({
  id: z.string().min(1),
  name: z.string().min(1),
  size: z.int().min(1),
  color: z.enum(WIDGET_COLORS),
  tags: z.array(z.string().min(1)),
});
export type WidgetRecord = z.output<typeof widgetRecordSchema>;

export const WIDGETS = defineCollection({
  name: 'widgets',
  noun: 'widget',
  schema: widgetRecordSchema,
  key: 'id',
  counter: 'widget',
  addedLater: true,
  privileges: { widgets: ADMINS_ONLY },
});
