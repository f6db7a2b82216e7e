/**
 * What only the built binary shows, run as a child process: start-up (`--version`, `--help`), a
 * real non-terminal stdin, a reader that goes away, a signal while it reads, and the exit code of the
 * process itself. Every
 * other command test runs in process (test/helpers/cli.ts `runCli`).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLI_PATH, spawnCli, startCli } from '../helpers/cli.js';
import { startTestFirewall } from '../helpers/firewall.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};
const EXAMPLES = new URL('../../examples/config/', import.meta.url).pathname;

describe('the wafctl binary', () => {
  it('--version prints the package version and exits 0', async () => {
    const result = await spawnCli(['--version']);
    expect([result.code, result.stdout, result.stderr]).toEqual([0, `${pkg.version}\n`, '']);
  });

  it('--help prints the usage on stdout and exits 0', async () => {
    const result = await spawnCli(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: wafctl /);
  });

  it('a usage error exits 1 with one message', async () => {
    const result = await spawnCli(['plan', '--format', 'xml']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^Error: option '--format <FORMAT>' argument 'xml' is invalid/);
  });

  it('apply refuses to ask on a stdin that is not a terminal, before reading the configuration', async () => {
    const result = await spawnCli(['apply', EXAMPLES, '--url', 'embedded'], { input: 'yes\n' });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'Error: refusing to apply without confirmation: no terminal to ask on. Pass --auto-approve to apply.\n',
    );
  });

  it('a reader that closes stdout early neither crashes wafctl nor cuts an apply short', async () => {
    const child = spawn(
      process.execPath,
      [CLI_PATH, 'apply', EXAMPLES, '--url', 'embedded', '--auto-approve'],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH, NO_COLOR: '1' } },
    );
    child.stdout.destroy(); // as `wafctl apply ... | head -0` would
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).not.toMatch(/EPIPE|Unhandled|\n\s+at /);
    // The apply ran to its end: the last call's progress line is on stderr.
    expect(stderr).toMatch(/\[(\d+)\/\1\]\n$/);
    expect(code).toBe(0);
  });

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)('%s while plan reads the firewall: one line, exit %i', async (signal, code) => {
    const firewall = await startTestFirewall({ latencyMs: 300 });
    try {
      const run = startCli(['plan', EXAMPLES], { env: { ...firewall.env, WAFCTL_DEBUG: '1' } });
      await run.stderrMatches(/--> GET /);
      run.child.kill(signal);
      const result = await run.result;
      expect(result.code).toBe(code);
      expect(result.stderr.split('\n').filter((line) => !/^(-->|<--|load:) /.test(line))).toEqual([
        '',
        `Interrupted (${signal}): stopped; the firewall was not changed.`,
        '',
      ]);
    } finally {
      await firewall.close();
    }
  });
});
