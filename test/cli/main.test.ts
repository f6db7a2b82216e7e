import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { KINDS } from '../../src/kinds/index.js';
import { runCli } from '../helpers/cli.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

describe('wafctl CLI shell', () => {
  it('--version prints the package version', async () => {
    const result = await runCli(['--version']);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(pkg.version);
  });

  it('--help lists every command of the contract', async () => {
    const result = await runCli(['--help']);
    expect(result.code).toBe(0);
    for (const command of ['validate', 'plan', 'apply', 'drift', 'pull', 'export', 'get', 'emulator']) {
      expect(result.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    }
  });

  // The families are never written out in the CLI: the registry fills them in when the command runs.
  const families = KINDS.map((kind) => kind.section.replaceAll('_', '-'));
  it.each([[['export', '--help']], [['help', 'pull']], [['get', '--help']]])(
    '%j lists every family of the registry, placeholder filled in',
    async (args) => {
      const result = await runCli(args);
      expect(result.code).toBe(0);
      const text = result.stdout.replace(/\s+/g, ' ');
      for (const family of families) expect(text).toContain(family);
      expect(text).not.toContain('{families}');
    },
  );

  it('help of an unknown command is the program help, on stderr, exit 1', async () => {
    const result = await runCli(['help', 'frobnicate']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Usage: wafctl');
  });

  it('an unknown command is a usage error with exit 1', async () => {
    const result = await runCli(['frobnicate']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("unknown command 'frobnicate'");
  });

  it('an invalid flag value is rejected before anything runs', async () => {
    const result = await runCli(['apply', '--parallelism', '0']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('--parallelism must be a positive integer');
  });

  it.each([
    [['frobnicate']],
    [['plan', '--format', 'xml']],
    [['plan', '--no-such-flag']],
    [['get']],
    [['apply', '--parallelism', '0']],
  ])('usage errors read "Error: ..." like every other failure: %j', async (args) => {
    const result = await runCli(args);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^Error: \S/);
    expect(result.stderr).not.toMatch(/^error:/m);
    expect(result.stderr).toContain('(run with --help for usage)');
  });
});
