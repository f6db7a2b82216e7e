// Writes schemas/wafctl.schema.json from the zod schemas (run by `npm run schema`, which builds first).
// A test fails when the committed file differs from what the schemas generate.
import { writeFileSync } from 'node:fs';
import { buildJsonSchema } from '../dist/config/json-schema.js';

const target = new URL('../schemas/wafctl.schema.json', import.meta.url);
writeFileSync(target, buildJsonSchema());
console.log(`wrote ${target.pathname}`);
