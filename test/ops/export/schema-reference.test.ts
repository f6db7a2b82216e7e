import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  publishedSchemaUrl,
  SCHEMA_FILE,
  schemaReference,
} from '../../../src/ops/export/schema-reference.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const VERSION = (JSON.parse(await readFile(join(REPO, 'package.json'), 'utf8')) as { version: string })
  .version;

describe('schemaReference', () => {
  it('points at the schema shipped in the package', () => {
    expect(SCHEMA_FILE).toBe(join(REPO, 'schemas', 'wafctl.schema.json'));
  });

  it('is relative when the directory is in the same project as the schema (even before it exists)', () => {
    expect(schemaReference(join(REPO, 'examples', 'config'))).toBe('../../schemas/wafctl.schema.json');
    expect(schemaReference(join(REPO, 'infra', 'waf', 'new'))).toBe('../../../schemas/wafctl.schema.json');
  });

  it('resolves a relative directory against the given cwd, not the process directory', () => {
    expect(schemaReference('waf', { cwd: join(REPO, 'examples') })).toBe('../../schemas/wafctl.schema.json');
    expect(schemaReference('.', { cwd: REPO })).toBe('schemas/wafctl.schema.json');
  });

  it('is relative to a project that has wafctl in node_modules', async () => {
    const project = await mkdtemp(join(tmpdir(), 'wafctl-project-'));
    await writeFile(join(project, 'package.json'), '{}');
    const schema = join(project, 'node_modules', 'wafctl', 'schemas', 'wafctl.schema.json');
    await mkdir(join(project, 'waf'));
    expect(schemaReference(join(project, 'waf'), { schemaFile: schema })).toBe(
      '../node_modules/wafctl/schemas/wafctl.schema.json',
    );
    expect(schemaReference('waf', { cwd: project, schemaFile: schema })).toBe(
      '../node_modules/wafctl/schemas/wafctl.schema.json',
    );
  });

  it("is the versioned published URL, never an absolute path, when the schema lies outside the directory's project", async () => {
    const elsewhere = await mkdtemp(join(tmpdir(), 'wafctl-elsewhere-'));
    const url = `https://unpkg.com/wafctl@${VERSION}/schemas/wafctl.schema.json`;
    expect(schemaReference(elsewhere)).toBe(url);
    expect(schemaReference('.', { cwd: elsewhere })).toBe(url);
    expect(publishedSchemaUrl()).toBe(url);
    // A project of its own (a CI checkout with a package.json) that does not hold this schema.
    const project = await mkdtemp(join(tmpdir(), 'wafctl-other-project-'));
    await writeFile(join(project, 'package.json'), '{}');
    expect(schemaReference(join(project, 'waf'))).toBe(url);
    expect(schemaReference(elsewhere, { version: '9.9.9' })).toBe(
      'https://unpkg.com/wafctl@9.9.9/schemas/wafctl.schema.json',
    );
  });
});
