/** The editor schema (`schemas/wafctl.schema.json`), generated from the zod schemas. */
import * as z from 'zod';
import type { Kind } from '../kinds/index.js';
import { documentSchema, documentSchemaFor } from './schema.js';

export const JSON_SCHEMA_ID = 'https://github.com/wafctl/wafctl/schemas/wafctl.schema.json';

/**
 * The schema as committed: `io: 'input'` so fields with defaults are optional for editors, and a
 * trailing newline so the file is a clean text file. A test fails when the committed file differs.
 */
export function buildJsonSchema(kinds?: readonly Kind[]): string {
  const document = kinds === undefined ? documentSchema : documentSchemaFor(kinds);
  const generated = z.toJSONSchema(document, { io: 'input', target: 'draft-2020-12' });
  const { $schema, ...rest } = generated;
  return `${JSON.stringify({ $schema, $id: JSON_SCHEMA_ID, ...rest }, null, 2)}\n`;
}
