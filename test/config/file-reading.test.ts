/**
 * What the loader reads: regular files only (a symlink to one is fine), never more than the size
 * limit, as strict UTF-8; and what it prints of a file it refuses: nothing.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadDesiredState } from '../../src/config/load.js';
import { ConfigError, formatProblem } from '../../src/config/problems.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wafctl-reading-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function problemsOf(paths: string[]): Promise<string[]> {
  try {
    await loadDesiredState(paths, { cwd: dir, env: {} });
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.map(formatProblem);
    throw error;
  }
  throw new Error('loaded without problems');
}

const NOT_REGULAR =
  'not a regular file: wafctl reads configuration only from regular files (not devices, FIFOs, sockets)';

describe('only regular files are read', () => {
  it('a symlink to a regular file is read', async () => {
    await writeFile(join(dir, 'real.yaml'), 'groups:\n  - name: soc\n');
    await symlink(join(dir, 'real.yaml'), join(dir, 'link.yaml'));
    const config = await loadDesiredState(['link.yaml'], { cwd: dir, env: {} });
    expect(config.state.groups.map((g) => g.name)).toEqual(['soc']);
  });

  it('a symlink to /dev/zero is refused without reading it', async () => {
    await symlink('/dev/zero', join(dir, 'zero.yaml'));
    expect(await problemsOf(['zero.yaml'])).toEqual([`zero.yaml: ${NOT_REGULAR}`]);
  });

  it('a FIFO is refused without waiting for a writer', async () => {
    execFileSync('mkfifo', [join(dir, 'pipe.yaml')]);
    expect(await problemsOf(['pipe.yaml'])).toEqual([`pipe.yaml: ${NOT_REGULAR}`]);
  });

  it('/proc/self/environ is refused, typed or through a link, and none of its content is printed', async () => {
    await symlink('/proc/self/environ', join(dir, 'environ.yaml'));
    const secret = 'wafctl-test-secret-9f2c';
    process.env.WAFCTL_READING_TEST_SECRET = secret;
    try {
      const typed = await problemsOf(['/proc/self/environ']);
      expect(typed).toEqual([
        '/proc/self/environ: holds more than the 0 bytes its size says (a /proc file, or one being written): refusing to read it',
      ]);
      const linked = await problemsOf(['environ.yaml']);
      expect(linked).toEqual([
        'environ.yaml: refused: it is a symbolic link to a file outside the configuration root (.); wafctl reads configuration only inside it',
      ]);
      expect([...typed, ...linked].join('\n')).not.toContain(secret);
    } finally {
      delete process.env.WAFCTL_READING_TEST_SECRET;
    }
  });
});

describe('files are UTF-8 text', () => {
  it('an invalid byte is refused at its line and column, not turned into U+FFFD', async () => {
    const bytes = Buffer.concat([
      Buffer.from('groups:\n  - name: caf\u00e9\n    description: x'),
      Buffer.from([0xff, 0x41]),
      Buffer.from('\n'),
    ]);
    await writeFile(join(dir, 'latin.yaml'), bytes);
    expect(await problemsOf(['latin.yaml'])).toEqual([
      'latin.yaml:3:19: invalid UTF-8 (byte 0xFF): wafctl files must be UTF-8 text',
    ]);
  });

  it('an encoded surrogate (CESU-8) and a truncated sequence are refused too', async () => {
    await writeFile(join(dir, 'cesu.yaml'), Buffer.from([0x61, 0x3a, 0x20, 0xed, 0xa0, 0x80, 0x0a]));
    await writeFile(join(dir, 'short.yaml'), Buffer.from([0x61, 0x3a, 0x20, 0x62, 0xe2, 0x82]));
    expect(await problemsOf(['cesu.yaml', 'short.yaml'])).toEqual([
      'cesu.yaml:1:4: invalid UTF-8 (byte 0xED): wafctl files must be UTF-8 text',
      'short.yaml:1:5: invalid UTF-8 (byte 0xE2): wafctl files must be UTF-8 text',
    ]);
  });

  it('a byte order mark is still fine', async () => {
    await writeFile(join(dir, 'bom.yaml'), '\ufeffgroups:\n  - name: soc\n');
    const config = await loadDesiredState(['bom.yaml'], { cwd: dir, env: {} });
    expect(config.state.groups.map((g) => g.name)).toEqual(['soc']);
  });
});
