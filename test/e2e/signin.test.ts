/**
 * Sign-in end to end: the built CLI signs in to a real emulator seeded from a file with a password
 * user (WAF_SIGNIN_USERNAME with WAF_SIGNIN_PASSWORD or --password-file), and every way it can fail.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSeedFile } from '../../src/emulator/index.js';
import { CLI_PATH, runCli } from '../helpers/cli.js';
import { startTestFirewall, type TestFirewall, unreachableUrl, writeConfig } from '../helpers/firewall.js';

const PASSWORD = 'carol "s3cret" pass/word';
const SEED_YAML = `users:
  - {id: u-1, username: carol, password: '${PASSWORD}'}
  - {id: u-2, username: dave, password: dave-pass-0002}
`;

async function seedFile(): Promise<string> {
  const dir = await writeConfig({ 'seed.yaml': SEED_YAML });
  return join(dir, 'seed.yaml');
}

const GROUPS_YAML = 'groups:\n  - name: superusers\n    is_admin: true\n    users: [u-1]\n';

let firewall: TestFirewall;
let signin: Record<string, string>;
beforeAll(async () => {
  firewall = await startTestFirewall({ seed: await loadSeedFile(await seedFile()) });
  // The admin token only sets the scene: carol's privileges come from this group.
  await firewall.api.groups.create({
    name: 'superusers',
    is_admin: true,
    permissions: [],
    user_ids: ['u-1'],
  });
  signin = { WAF_URL: firewall.url, WAF_SIGNIN_USERNAME: 'carol', WAF_SIGNIN_PASSWORD: PASSWORD };
});
afterAll(() => firewall.close());

async function signInCount(): Promise<number> {
  return (await firewall.stats()).by_route['POST /api/v1/signin'] ?? 0;
}

describe('wafctl signs in without a token', () => {
  it('get groups and plan, with WAF_SIGNIN_USERNAME and WAF_SIGNIN_PASSWORD', async () => {
    const get = await runCli(['get', 'groups', '--output', 'json'], { env: signin });
    expect(get.stderr).toBe('');
    expect(get.code).toBe(0);
    expect((JSON.parse(get.stdout) as { name: string }[]).map((g) => g.name)).toEqual([
      'admins',
      'superusers',
    ]);

    const dir = await writeConfig({ 'groups.yaml': GROUPS_YAML });
    const plan = await runCli(['plan', dir, '--detailed-exitcode'], { env: signin });
    expect(plan.stderr).toBe('');
    expect(plan.stdout).toBe('No changes. The firewall matches the configuration.\n');
    expect(plan.code).toBe(0);
  });

  it('with --password-file (trimmed) instead of WAF_SIGNIN_PASSWORD', async () => {
    const dir = await writeConfig({ 'groups.yaml': GROUPS_YAML, 'secret/password': `${PASSWORD}\n` });
    const env = { WAF_URL: firewall.url, WAF_SIGNIN_USERNAME: 'carol' };
    const args = ['--password-file', join(dir, 'secret/password')];
    const plan = await runCli(['plan', join(dir, 'groups.yaml'), ...args], { env });
    expect(plan.stderr).toBe('');
    expect(plan.code).toBe(0);
    const get = await runCli(['get', 'groups', ...args], { env });
    expect(get.code).toBe(0);
    expect(get.stdout).toContain('superusers');
  });

  it("the signed-in token has the user's privileges, no more", async () => {
    const env = { ...signin, WAF_SIGNIN_USERNAME: 'dave', WAF_SIGNIN_PASSWORD: 'dave-pass-0002' };
    const result = await runCli(['get', 'groups'], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^Error: \[GET\] \/api\/v1\/groups: 403 Forbidden\n/);
  });

  it('a wrong password: one line with the API message, exit 1', async () => {
    const env = { ...signin, WAF_SIGNIN_PASSWORD: 'not-the-password' };
    const result = await runCli(['get', 'groups'], { env });
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('Error: sign-in as carol failed: Invalid username or password\n');
    expect(result.code).toBe(1);
  });

  it('a token wins over the sign-in settings: no sign-in is attempted', async () => {
    const before = await signInCount();
    const env = { ...signin, ...firewall.env, WAF_SIGNIN_PASSWORD: 'not-the-password' };
    const result = await runCli(['get', 'groups'], { env });
    expect(result.code).toBe(0);
    expect(await signInCount()).toBe(before);
  });

  it('only a user name, or only a password: a usage error naming what is missing, before any request', async () => {
    const before = await signInCount();
    const user = await runCli(['get', 'groups'], {
      env: { WAF_URL: firewall.url, WAF_SIGNIN_USERNAME: 'carol' },
    });
    expect(user.stderr).toBe(
      'Error: WAF_SIGNIN_USERNAME is set but no password: set WAF_SIGNIN_PASSWORD or pass --password-file FILE.\n',
    );
    expect(user.code).toBe(1);
    const dir = await writeConfig({ 'groups.yaml': GROUPS_YAML });
    const password = await runCli(['plan', dir, '--password-file', '/nonexistent'], {
      env: { WAF_URL: firewall.url },
    });
    expect(password.stderr).toBe(
      'Error: a sign-in password is given (--password-file) but no user name: set WAF_SIGNIN_USERNAME (or give a token with WAF_TOKEN or --token-file FILE).\n',
    );
    expect(password.code).toBe(1);
    expect(await signInCount()).toBe(before);
  });

  it('a network error names the sign-in', async () => {
    const url = await unreachableUrl();
    const result = await runCli(['get', 'groups'], { env: { ...signin, WAF_URL: url } });
    expect(result.stderr).toBe(
      `Error: sign-in as carol failed: [POST] /api/v1/signin: cannot reach ${new URL(url).host}: ECONNREFUSED\n`,
    );
    expect(result.code).toBe(1);
  });

  it('a server error names the sign-in, and the sign-in is sent once', async () => {
    const faulty = await startTestFirewall({
      seed: await loadSeedFile(await seedFile()),
      faultRate: 1,
      faultKinds: ['error_after'],
    });
    try {
      const result = await runCli(['get', 'groups'], { env: { ...signin, WAF_URL: faulty.url } });
      expect(result.stderr).toBe(
        'Error: sign-in as carol failed: [POST] /api/v1/signin: 500 Internal server error (injected fault)\n',
      );
      expect(result.code).toBe(1);
      expect((await faulty.stats()).by_route['POST /api/v1/signin']).toBe(1);
    } finally {
      await faulty.close();
    }
  });
});

describe('wafctl emulator --seed with password users only', () => {
  let child: ChildProcess | undefined;
  afterAll(() => {
    child?.kill('SIGTERM');
  });

  it('starts without any token, and wafctl signs in to it', async () => {
    const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1' };
    delete env.WAF_EMULATOR_ADMIN_TOKEN;
    child = spawn(process.execPath, [CLI_PATH, 'emulator', '--port', '0', '--seed', await seedFile()], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      let err = '';
      child?.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk;
        const line = /^(http:\/\/\S+)\n/.exec(out);
        if (line?.[1] !== undefined) resolve(line[1]);
      });
      child?.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
        err += chunk;
      });
      child?.on('close', (code) => reject(new Error(`the emulator exited (${code}): ${err}`)));
    });
    // A seeded user may read schedules whatever its groups.
    const result = await runCli(['get', 'schedules'], { env: { ...signin, WAF_URL: url } });
    expect(result.stderr).toBe('No schedules found.\n');
    expect(result.code).toBe(0);
  });
});
