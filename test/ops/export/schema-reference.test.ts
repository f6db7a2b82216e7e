import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SCHEMA_FILE, schemaReference } from '../../../src/ops/export/schema-reference.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));

describe('schemaReference', () => {
  it('points at the schema shipped in the package', () => {
    expect(SCHEMA_FILE).toBe(join(REPO, 'schemas', 'wafctl.schema.json'));
  });

  it('is relative when the directory is in the same project as the schema (even before it exists)', () => {
    expect(schemaReference(join(REPO, 'examples', 'config'))).toBe('../../schemas/wafctl.schema.json');
    expect(schemaReference(join(REPO, 'infra', 'waf', 'new'))).toBe('../../../schemas/wafctl.schema.json');
  });

  it('is relative to a project that has wafctl in node_modules', async () => {
    const project = await mkdtemp(join(tmpdir(), 'wafctl-project-'));
    await writeFile(join(project, 'package.json'), '{}');
    const schema = join(project, 'node_modules', 'wafctl', 'schemas', 'wafctl.schema.json');
    await mkdir(join(project, 'waf'));
    expect(schemaReference(join(project, 'waf'), schema)).toBe(
      '../node_modules/wafctl/schemas/wafctl.schema.json',
    );
  });

  it("is absolute when the schema lies outside the directory's project", async () => {
    const elsewhere = await mkdtemp(join(tmpdir(), 'wafctl-elsewhere-'));
    expect(schemaReference(elsewhere)).toBe(SCHEMA_FILE);
  });
});
