/**
 * `wafctl emulator`: the signals that stop it on the built CLI as a real process (`npm test` builds
 * dist/ first); everything else in process.
 */
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runWafctl } from '../../src/cli/program.js';
import { startEmulator } from '../../src/emulator/index.js';
import { runCli } from '../helpers/cli.js';
import { testIo } from '../helpers/io.js';
import { makeTempDir } from './helpers.js';
import { serve } from './serve-cli.js';

let dir: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir());
});
afterEach(() => cleanup());

describe('wafctl emulator', () => {
  it('prints its URL, serves the API, and exits 0 on SIGTERM', async () => {
    const tokenFile = join(dir, 'admin-token');
    await writeFile(tokenFile, 'cli-admin-token\n');
    const served = await serve(['--port', '0', '--admin-token-file', tokenFile]);
    expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const response = await fetch(`${served.url}/api/v1/groups`, {
      headers: { authorization: 'Bearer cli-admin-token' },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ status: 'ok', message: 'List of groups' });
    served.child.kill('SIGTERM');
    expect(await served.exit).toBe(0);
    expect(served.stderr()).toBe('');
  });

  it('takes the admin token from WAF_EMULATOR_ADMIN_TOKEN and exits 0 on SIGINT', async () => {
    const served = await serve(['--port', '0'], { WAF_EMULATOR_ADMIN_TOKEN: 'env-admin-token' });
    const response = await fetch(`${served.url}/api/v1/groups`, {
      headers: { authorization: 'Bearer env-admin-token' },
    });
    expect(response.status).toBe(200);
    served.child.kill('SIGINT');
    expect(await served.exit).toBe(0);
  });

  it('starts without an admin token when the seed has a token-holding user, holding --state until it stops', async () => {
    const seedPath = join(dir, 'seed.yaml');
    const statePath = join(dir, 'state.json');
    await writeFile(seedPath, 'users:\n  - {id: u-1, username: ann, token: ann-token-1}\n');
    const run = testIo();
    const exit = runWafctl(['emulator', '--port', '0', '--seed', seedPath, '--state', statePath], run.io);
    const url = (await run.stdoutMatches(/\n/)).trim();
    const response = await fetch(`${url}/api/v1/reports/schedules?paginate=false`, {
      headers: { authorization: 'Bearer ann-token-1' },
    });
    expect(response.status).toBe(200);
    expect(await readdir(dir)).toContain('state.json.lock');
    run.signal('SIGTERM');
    expect(await exit).toBe(0);
    expect(await readdir(dir)).not.toContain('state.json.lock');
  });

  it('warns once for each secret shorter than 8 characters, never showing it, and redacts it', async () => {
    const seedPath = join(dir, 'seed.yaml');
    await writeFile(seedPath, 'users:\n  - {id: u-1, username: ann, token: ann-token-1, password: Pw-4k}\n');
    const run = testIo({ env: { WAF_EMULATOR_ADMIN_TOKEN: 'k9-Wx3' } });
    const exit = runWafctl(['emulator', '--port', '0', '--seed', seedPath], run.io);
    await run.stdoutMatches(/\n/);
    run.signal('SIGINT');
    expect(await exit).toBe(0);
    expect(run.stderr().trim().split('\n')).toEqual([
      'Warning: the admin token is only 6 characters: redaction may hide ordinary text; use a longer token.',
      'Warning: the password of seed user "ann" is only 5 characters: redaction may hide ordinary text; use a longer password.',
    ]);
  });

  it('refuses to start without any token (exit 1) and says how to give one', async () => {
    const result = await runCli(['emulator', '--port', '0']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('--admin-token-file');
    expect(result.stderr).toContain('WAF_EMULATOR_ADMIN_TOKEN');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });

  it.each([
    [
      { WAF_EMULATOR_ADMIN_TOKEN: ' ' },
      'WAF_EMULATOR_ADMIN_TOKEN must be a token of printable ASCII characters without spaces',
    ],
    [
      { WAF_EMULATOR_ADMIN_TOKEN: 'a b' },
      'WAF_EMULATOR_ADMIN_TOKEN must be a token of printable ASCII characters without spaces',
    ],
  ])('refuses %j: an empty bearer must never be an administrator', async (env, message) => {
    const result = await runCli(['emulator', '--port', '0'], { env });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringContaining(message)]);
  });

  it('--admin-token still works, with a warning that ps shows it; an empty one is refused', async () => {
    const empty = await runCli(['emulator', '--port', '0', '--admin-token', '']);
    expect(empty.code).toBe(1);
    expect(empty.stderr.trim().split('\n')).toEqual([
      'Warning: --admin-token shows the token to every user of this machine (ps); use --admin-token-file FILE or WAF_EMULATOR_ADMIN_TOKEN.',
      expect.stringContaining('--admin-token must be a token of printable ASCII characters without spaces'),
    ]);
    const run = testIo();
    const exit = runWafctl(['emulator', '--port', '0', '--admin-token', 'flag-admin-token'], run.io);
    const url = (await run.stdoutMatches(/\n/)).trim();
    const response = await fetch(`${url}/api/v1/groups`, {
      headers: { authorization: 'Bearer flag-admin-token' },
    });
    expect(response.status).toBe(200);
    run.signal('SIGTERM');
    expect(await exit).toBe(0);
    expect(run.stderr()).toMatch(
      /^Warning: --admin-token shows the token to every user of this machine \(ps\)/,
    );
  });

  it('--admin-token-file: a missing or empty file, or both ways at once, is one error line', async () => {
    const empty = join(dir, 'empty');
    await writeFile(empty, '\n');
    const cases = [
      [
        ['--admin-token-file', join(dir, 'missing')],
        `cannot read the token file ${join(dir, 'missing')}: ENOENT.`,
      ],
      [['--admin-token-file', empty], `the token file ${empty} is empty.`],
      [
        ['--admin-token-file', empty, '--admin-token', 'x-admin-token'],
        'give either --admin-token-file FILE or --admin-token T, not both.',
      ],
    ] as const;
    for (const [args, message] of cases) {
      const result = await runCli(['emulator', '--port', '0', ...args]);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(`Error: ${message}\n`);
    }
  });

  it('startEmulator itself refuses an empty admin token', async () => {
    await expect(startEmulator({ port: 0, adminToken: '' })).rejects.toThrow(
      'the admin token must be printable ASCII characters without spaces, and not empty',
    );
  });

  it.each([
    [['--port', 'eighty'], '--port must be an integer from 0 to 65535'],
    [['--port', '70000'], '--port must be an integer from 0 to 65535'],
    [['--fault-rate', '1.5'], '--fault-rate must be a number from 0 to 1'],
    [['--latency', '-3'], '--latency must be an integer >= 0'],
    [['--fault-seed', 'abc'], '--fault-seed must be an integer'],
  ])('rejects %j with one line and exit 1', async (args, message) => {
    const result = await runCli(['emulator', ...args], {
      env: { WAF_EMULATOR_ADMIN_TOKEN: 'cli-admin-token' },
    });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringContaining(message)]);
  });

  it('a corrupt state file is one error line and exit 1, and the token is never printed', async () => {
    const statePath = join(dir, 'state.json');
    await writeFile(statePath, '{"format_version": 1, "groups": [');
    const result = await runCli(['emulator', '--port', '0', '--state', statePath], {
      env: { WAF_EMULATOR_ADMIN_TOKEN: 'cli-admin-token' },
    });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringContaining(statePath)]);
    expect(result.stderr).not.toContain('cli-admin-token');
  });
});
