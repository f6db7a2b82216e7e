/**
 * What the library may not do (docs/library.md): print, exit or read the process (only cli/main.ts
 * touches `process`), or reach the CLI or the emulator (the layer rule of src/library/ in
 * test/source/layers.test.ts says the same for imports).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const DIR = join(import.meta.dirname, '..', '..', 'src', 'library');
const files = readdirSync(DIR).filter((name) => name.endsWith('.ts'));

describe('src/library', () => {
  it('never touches process or the console, and imports neither the CLI nor the emulator', () => {
    expect(files).toContain('index.ts');
    for (const name of files) {
      const code = readFileSync(join(DIR, name), 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
      expect(code, name).not.toMatch(/\bprocess\s*\.|\bconsole\s*\./);
      expect(code, name).not.toMatch(/from\s+'\.\.\/(cli|emulator|action)\//);
      expect(code, name).not.toMatch(/import\(\s*'\.\.\/(cli|emulator|action)\//);
    }
  });
});
