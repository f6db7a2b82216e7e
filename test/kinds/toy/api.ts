/** The toy family's API module: `/api/v1/widgets`, one function per endpoint, as src/api/ writes them. */
import { z } from 'zod';
import { type ClientContext, call } from '../../../src/api/context.js';
import { underKey } from '../../../src/api/envelope.js';
import { pathSegment } from '../../../src/api/url.js';
import { WIDGET_COLORS } from './domain.js';

const widgetSchema = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  size: z.int().min(1),
  color: z.enum(WIDGET_COLORS),
  tags: z.array(z.string()),
});
export type Widget = z.output<typeof widgetSchema>;
export type WidgetInput = Omit<Widget, 'id'>;
/** The color never changes: a widget of another color is another widget. */
export type WidgetUpdate = Partial<Omit<WidgetInput, 'color'>>;

export interface WidgetsApi {
  list(): Promise<Widget[]>;
  create(widget: WidgetInput): Promise<Widget>;
  update(id: string, attrs: WidgetUpdate): Promise<Widget>;
  delete(ids: readonly string[]): Promise<void>;
}

const BASE = '/api/v1/widgets';
const listData = underKey('widgets', z.array(widgetSchema));
const oneData = underKey('widget', widgetSchema);

export function widgetsApi(ctx: ClientContext): WidgetsApi {
  return {
    list: async () => call(ctx, { method: 'GET', path: BASE }, listData),
    create: async (widget) =>
      call(ctx, { method: 'POST', path: BASE, contentType: 'application/json', body: { widget } }, oneData),
    update: async (id, attrs) =>
      call(
        ctx,
        {
          method: 'PUT',
          path: `${BASE}/${pathSegment(id, 'widget id')}`,
          contentType: 'application/json',
          body: { attrs },
        },
        oneData,
      ),
    delete: async (ids) => {
      await call(
        ctx,
        { method: 'DELETE', path: BASE, contentType: 'application/json', body: { widget_ids: ids } },
        z.unknown(),
      );
    },
  };
}
