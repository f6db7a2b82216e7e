/**
 * The library's document types (src/library/documents.ts) are generated from the JSON Schemas in
 * schemas/ (scripts/library-types.mjs, run by `npm run schema`): the committed file is exactly what
 * they generate. That the code returns these types is checked by tsc (src/library/plan.ts returns
 * the zod documents as them), and that the shipped declarations need nothing else by the build
 * (scripts/build.mjs) and the package proof (scripts/pack-proof.sh).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a script of the repository, in JavaScript without declarations
import { DOCUMENTS_FILE, generateDocuments } from '../../scripts/library-types.mjs';

describe('src/library/documents.ts', () => {
  it('is what scripts/library-types.mjs generates from schemas/ (npm run schema rewrites it)', async () => {
    const committed = readFileSync(new URL(`../../${DOCUMENTS_FILE}`, import.meta.url), 'utf8');
    expect(committed).toBe(await (generateDocuments as () => Promise<string>)());
  });
});
