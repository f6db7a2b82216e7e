/** The README's first command ends in `node scripts/demo.mjs`: it must keep working. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const DEMO = fileURLToPath(new URL('../../scripts/demo.mjs', import.meta.url));

describe('npm run demo', () => {
  it('validates, plans, applies, re-plans to no changes and finds no drift on the embedded emulator', async () => {
    const child = spawn(process.execPath, [DEMO], { env: { ...process.env, NO_COLOR: '1' }, stdio: 'pipe' });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(stdout).toContain('Configuration is valid: 7 files');
    expect(stdout).toMatch(/15 passed, 0 failed/);
    expect(stdout).toMatch(/Apply complete! Resources: 13 added, 0 changed, 0 destroyed\./);
    expect(stdout).toContain('=== Plan again: nothing left to do');
    expect(stdout).toContain('No changes. The firewall matches the configuration.');
    expect(stdout).toContain('No drift: the firewall matches the configuration.');
  });
});
