import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_TIMEOUT_SECONDS } from '../../src/api/retry.js';
import { openConnection, withApiClient } from '../../src/cli/connection.js';
import { REDACTED, redact } from '../../src/core/secrets.js';
import { testIo } from '../helpers/io.js';

const noEnv = {} as NodeJS.ProcessEnv;

describe('openConnection', () => {
  it('needs a URL from --url or WAF_URL', async () => {
    await expect(openConnection({}, noEnv)).rejects.toThrow('no API URL: pass --url URL or set WAF_URL');
  });

  it('takes the token from WAF_TOKEN, or from --token-file (trimmed) in preference', async () => {
    const env = { WAF_URL: 'http://127.0.0.1:1', WAF_TOKEN: 'env-token-1234' } as NodeJS.ProcessEnv;
    expect(await openConnection({}, env)).toMatchObject({
      baseUrl: 'http://127.0.0.1:1',
      token: 'env-token-1234',
    });

    const dir = await mkdtemp(join(tmpdir(), 'wafctl-token-'));
    const file = join(dir, 'token');
    await writeFile(file, 'file-token-5678\n');
    expect(await openConnection({ tokenFile: file }, env)).toMatchObject({ token: 'file-token-5678' });
  });

  it('explains a missing token, an unreadable token file and an empty one, without their content', async () => {
    const env = { WAF_URL: 'http://127.0.0.1:1' } as NodeJS.ProcessEnv;
    await expect(openConnection({}, env)).rejects.toThrow(
      'no API token: set WAF_TOKEN or pass --token-file FILE.',
    );
    await expect(openConnection({ tokenFile: '/nonexistent/token' }, env)).rejects.toThrow(
      'cannot read the token file /nonexistent/token: ENOENT.',
    );
    const dir = await mkdtemp(join(tmpdir(), 'wafctl-token-'));
    await writeFile(join(dir, 'empty'), '  \n');
    await expect(openConnection({ tokenFile: join(dir, 'empty') }, env)).rejects.toThrow('is empty');
  });

  it('an empty WAF_TIMEOUT (an unset CI variable) is unset: the default applies', async () => {
    const env = { WAF_URL: 'http://127.0.0.1:1', WAF_TOKEN: 'env-token-1234', WAF_TIMEOUT: '' };
    expect(await openConnection({}, env as NodeJS.ProcessEnv)).toMatchObject({
      timeoutSeconds: DEFAULT_TIMEOUT_SECONDS,
    });
    // Set, it is read; set but blank, it is a value, and refused.
    expect(await openConnection({}, { ...env, WAF_TIMEOUT: '2.5' } as NodeJS.ProcessEnv)).toMatchObject({
      timeoutSeconds: 2.5,
    });
    await expect(openConnection({}, { ...env, WAF_TIMEOUT: ' ' } as NodeJS.ProcessEnv)).rejects.toThrow(
      'WAF_TIMEOUT must be a positive number of seconds (e.g. 60 or 0.5), got " ".',
    );
  });

  it('a token shorter than 8 characters is used and redacted, with one warning that never shows it', async () => {
    // Unique to this test: registered, it is redacted wherever this worker prints it.
    const token = 'k7-Wq9';
    const env = { WAF_URL: 'http://127.0.0.1:1', WAF_TOKEN: token } as NodeJS.ProcessEnv;
    const warnings: string[] = [];
    const warn = (line: string) => warnings.push(line);
    expect(await openConnection({}, env, { warn })).toMatchObject({ token });
    expect(await openConnection({}, env, { warn })).toMatchObject({ token });
    expect(warnings).toEqual([
      'Warning: the API token is only 6 characters: redaction may hide ordinary text; use a longer token.',
    ]);
    expect(redact(`Bearer ${token}`)).toBe(`Bearer ${REDACTED}`);
  });

  it('refuses a token an HTTP header cannot carry, without quoting it', async () => {
    const env = { WAF_URL: 'http://127.0.0.1:1', WAF_TOKEN: 'tok en-with-space' } as NodeJS.ProcessEnv;
    const error = await openConnection({}, env).catch((e: unknown) => e);
    expect(String(error)).toContain(
      'the API token in WAF_TOKEN contains characters an HTTP header cannot carry',
    );
    expect(String(error)).not.toContain('tok en');
  });

  it('refuses --emulator-state without --url embedded', async () => {
    const env = { WAF_URL: 'http://127.0.0.1:1', WAF_TOKEN: 'x-token' } as NodeJS.ProcessEnv;
    await expect(openConnection({ emulatorState: 'a.json' }, env)).rejects.toThrow(
      '--emulator-state only applies with --url embedded.',
    );
  });
});

describe('--url embedded', () => {
  it('serves the API in-process for one command, and persists to --emulator-state', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wafctl-embedded-'));
    const statePath = join(dir, 'state.json');
    const created = await withApiClient(
      testIo().io,
      { url: 'embedded', emulatorState: statePath },
      async (api) => {
        const group = await api.groups.create({
          name: 'embedded-test',
          permissions: [],
          user_ids: ['u-1001'],
        });
        return group.name;
      },
    );
    expect(created).toBe('embedded-test');
    // A second command sees what the first one did, through the state file.
    const names = await withApiClient(
      testIo().io,
      { url: 'embedded', emulatorState: statePath },
      async (api) => (await api.groups.list()).map((g) => g.name),
    );
    expect(names).toEqual(['admins', 'embedded-test']); // admins: built into every Seer Box
    expect(await readFile(statePath, 'utf8')).toContain('embedded-test');
  });

  it('stops the emulator even when the work fails', async () => {
    let url = '';
    await expect(
      withApiClient(testIo().io, { url: 'embedded' }, async (api, connection) => {
        url = connection.baseUrl;
        await api.groups.get('does-not-exist');
      }),
    ).rejects.toThrow('[GET] /api/v1/groups/does-not-exist: 400 Error retrieving group');
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await expect(fetch(`${url}/__emulator/stats`)).rejects.toThrow();
  });
});
