/**
 * Golden files: outputs compared exactly with checked-in files under test/e2e/golden/, rewritten
 * instead when `UPDATE_GOLDEN=1` (review their diff before committing; CONTRIBUTING.md).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

/** Compares `text` with the golden file `name`, or rewrites that file when UPDATE_GOLDEN=1. */
export async function expectGolden(name: string, text: string): Promise<void> {
  const path = fileURLToPath(new URL(`../e2e/golden/${name}`, import.meta.url));
  if (process.env.UPDATE_GOLDEN === '1') {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, text);
    return;
  }
  expect(text).toBe(await readFile(path, 'utf8'));
}
