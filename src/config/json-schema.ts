/** The editor schema (`schemas/wafctl.schema.json`), generated from the zod schemas. */
import * as z from 'zod';
import { documentSchema } from './schema.js';

export const JSON_SCHEMA_ID = 'https://github.com/wafctl/wafctl/schemas/wafctl.schema.json';

/**
 * The schema as committed: `io: 'input'` so fields with defaults are optional for editors, and a
 * trailing newline so the file is a clean text file. A test fails when the committed file differs.
 */
export function buildJsonSchema(): string {
  const generated = z.toJSONSchema(documentSchema, { io: 'input', target: 'draft-2020-12' });
  const { $schema, ...rest } = generated;
  return `${JSON.stringify({ $schema, $id: JSON_SCHEMA_ID, ...rest }, null, 2)}\n`;
}
