import {
  chmod,
  chown,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  realpath,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { colorEnabled, writeTextFile } from '../../src/cli/output.js';
import { testIo } from '../helpers/io.js';

const tty = testIo({ tty: true, env: { NO_COLOR: undefined } }).io;
const pipe = testIo({ tty: false, env: { NO_COLOR: undefined } }).io;

describe('colorEnabled', () => {
  it('colours a TTY only', () => {
    expect(colorEnabled(tty, undefined)).toBe(true);
    expect(colorEnabled(pipe, undefined)).toBe(false);
  });

  it('is turned off by --no-color and by NO_COLOR (any value but empty)', () => {
    expect(colorEnabled(tty, false)).toBe(false);
    expect(colorEnabled(testIo({ tty: true, env: { NO_COLOR: '1' } }).io, undefined)).toBe(false);
    expect(colorEnabled(testIo({ tty: true, env: { NO_COLOR: '' } }).io, undefined)).toBe(true);
  });
});

describe('writeTextFile, atomic (the files pull rewrites)', () => {
  const tempDir = () => mkdtemp(join(tmpdir(), 'wafctl-output-'));

  it('writes through a symbolic link to its target: the link stays a link, the target keeps its mode', async () => {
    const dir = await tempDir();
    await mkdir(join(dir, 'shared'));
    const target = join(dir, 'shared', 'groups.yaml');
    await writeFile(target, 'groups: []\n');
    await chmod(target, 0o640);
    const link = join(dir, 'groups.yaml');
    await symlink(join('shared', 'groups.yaml'), link);

    await writeTextFile(testIo().io, link, 'groups:\n  - name: soc\n', { atomic: true });

    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    expect(await readlink(link)).toBe(join('shared', 'groups.yaml'));
    expect(await readFile(target, 'utf8')).toBe('groups:\n  - name: soc\n');
    expect((await stat(target)).mode & 0o7777).toBe(0o640);
    // No temporary file is left beside the link or the target.
    expect((await readdir(dir)).sort()).toEqual(['groups.yaml', 'shared']);
    expect(await readdir(join(dir, 'shared'))).toEqual(['groups.yaml']);
  });

  it('keeps the mode of a regular file it replaces', async () => {
    const dir = await tempDir();
    const file = join(dir, 'rules.yaml');
    await writeFile(file, 'application_rules: []\n');
    await chmod(file, 0o600);
    await writeTextFile(testIo().io, file, 'groups: []\n', { atomic: true });
    expect((await stat(file)).mode & 0o7777).toBe(0o600);
    expect(await readFile(file, 'utf8')).toBe('groups: []\n');
  });

  it.runIf(process.getuid?.() === 0)(
    'keeps the owner of the file it replaces where it may (root)',
    async () => {
      const dir = await tempDir();
      const file = join(dir, 'rules.yaml');
      await writeFile(file, 'application_rules: []\n');
      await chown(file, 4321, 4321);
      await writeTextFile(testIo().io, file, 'groups: []\n', { atomic: true });
      const info = await stat(file);
      expect([info.uid, info.gid]).toEqual([4321, 4321]);
    },
  );

  it('refuses a link to nothing and a link to a directory, and changes neither', async () => {
    const dir = await tempDir();
    const dangling = join(dir, 'gone.yaml');
    await symlink(join(dir, 'missing.yaml'), dangling);
    await expect(writeTextFile(testIo().io, dangling, 'groups: []\n', { atomic: true })).rejects.toThrow(
      `refusing to write ${dangling}: it is a symbolic link to a file that does not exist`,
    );
    expect(await readlink(dangling)).toBe(join(dir, 'missing.yaml'));

    const toDir = join(dir, 'dir.yaml');
    await symlink(tmpdir(), toDir);
    const real = await realpath(tmpdir());
    await expect(writeTextFile(testIo().io, toDir, 'groups: []\n', { atomic: true })).rejects.toThrow(
      `refusing to write ${toDir}: its target ${real} is not a regular file`,
    );
    expect((await lstat(toDir)).isSymbolicLink()).toBe(true);
  });
});
