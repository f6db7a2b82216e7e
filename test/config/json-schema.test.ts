import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildJsonSchema, JSON_SCHEMA_ID } from '../../src/config/json-schema.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCHEMA_FILE = join(ROOT, 'schemas/wafctl.schema.json');

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return yamlFiles(path);
    return /\.ya?ml$/.test(entry.name) ? [path] : [];
  });
}

describe('schemas/wafctl.schema.json', () => {
  it('is exactly what the zod schemas generate', () => {
    const committed = readFileSync(SCHEMA_FILE, 'utf8');
    // On failure: run `npm run schema` and commit the result.
    expect(committed, 'schemas/wafctl.schema.json is stale: run `npm run schema`').toBe(buildJsonSchema());
  });

  it('has an $id, a title, and is strict about unknown keys', () => {
    const schema = JSON.parse(buildJsonSchema()) as Record<string, unknown>;
    expect(schema.$id).toBe(JSON_SCHEMA_ID);
    expect(schema.title).toBe('wafctl desired state');
    expect(schema.additionalProperties).toBe(false);
  });

  it('lets editors omit fields that have defaults, and offers the permission names', () => {
    const text = buildJsonSchema();
    const schema = JSON.parse(text) as {
      properties: { groups: { items: { required: string[] } } };
    };
    expect(schema.properties.groups.items.required).toEqual(['name']);
    expect(text).toContain('"Load application rules"');
  });

  it('carries the rq_host rule as a pattern that says what the zod schema says, with or without the u flag', () => {
    const schema = JSON.parse(buildJsonSchema()) as {
      properties: { application_rules: { items: { properties: { rq_host: { pattern?: string } } } } };
    };
    const pattern = schema.properties.application_rules.items.properties.rq_host.pattern ?? '';
    expect(pattern).not.toBe('');
    const good = [
      'shop.example.com',
      '*.example.com',
      'shop.example.com:8443',
      '10.0.0.1',
      '[2001:db8::1]:443',
      'bücher.example',
      'xn--bcher-kva.example',
      '例え.テスト',
    ];
    const bad = [
      'a/b',
      'shop.example.com/admin',
      'a b',
      'a\tb',
      'a\nb',
      'a\u0000b',
      'a\u007fb',
      'a\u0085b',
      'a\u00a0b',
    ];
    for (const flags of ['', 'u']) {
      const re = new RegExp(pattern, flags);
      for (const host of good) expect(re.test(host), `${host} /${flags}`).toBe(true);
      for (const host of bad) expect(re.test(host), `${JSON.stringify(host)} /${flags}`).toBe(false);
    }
  });

  it('is linked from every example file by a correct relative path', () => {
    const files = yamlFiles(join(ROOT, 'examples', 'config'));
    expect(files.length).toBeGreaterThanOrEqual(6);
    for (const file of files) {
      const first = readFileSync(file, 'utf8').split('\n')[0] ?? '';
      const match = /^# yaml-language-server: \$schema=(\S+)$/.exec(first);
      expect(match, `${relative(ROOT, file)} must start with the schema comment`).not.toBeNull();
      expect(resolve(dirname(file), match?.[1] ?? '')).toBe(SCHEMA_FILE);
    }
  });
});
