import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WafctlError } from '../../src/core/errors.js';
import { redact } from '../../src/core/secrets.js';
import { loadSeedFile, startEmulator } from '../../src/emulator/index.js';
import { makeTempDir, startTestEmulator } from './helpers.js';

let dir: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir());
});
afterEach(() => cleanup());

const RULE_YAML = `
users:
  - {id: u-1, username: yara, token: yara-token-123}
  - {id: u-2, username: zed}
rules:
  - id: r-1
    action: block
    kind: application
    rq_host: shop.example.com
    target: path
    expression: {type: regex, values: ["^/admin"]}
`;

async function seedError(name: string, content: string): Promise<WafctlError> {
  const path = join(dir, name);
  await writeFile(path, content);
  const error = await loadSeedFile(path).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof WafctlError)) throw new Error(`expected a WafctlError, got ${String(error)}`);
  return error;
}

describe('seed files', () => {
  it('loads YAML, fills the rule defaults, and registers tokens as secrets', async () => {
    const path = join(dir, 'seed.yaml');
    await writeFile(path, RULE_YAML);
    const seed = await loadSeedFile(path);
    expect(seed.users).toEqual([
      { id: 'u-1', username: 'yara', token: 'yara-token-123' },
      { id: 'u-2', username: 'zed' },
    ]);
    expect(seed.rules?.[0]).toMatchObject({
      id: 'r-1',
      enabled: true,
      deleted: false,
      network_only: false,
      alert_id: null,
    });
    expect(typeof seed.rules?.[0]?.timestamp).toBe('number');
    expect(redact('token yara-token-123')).not.toContain('yara-token-123');
  });

  it('loads JSON, and the seeded user can call the API with its token', async () => {
    const path = join(dir, 'seed.json');
    await writeFile(
      path,
      JSON.stringify({ users: [{ id: 'u-7', username: 'sam', token: 'sam-token-777' }] }),
    );
    const { emulator, api } = await startTestEmulator({ seed: await loadSeedFile(path) });
    try {
      // A seeded user without groups may read schedules and nothing else.
      expect(
        (await api.get('/api/v1/reports/schedules?paginate=false', { token: 'sam-token-777' })).status,
      ).toBe(200);
      expect((await api.get('/api/v1/rules?paginate=false', { token: 'sam-token-777' })).status).toBe(403);
      // A seed without rules keeps the demo rules.
      expect(
        (await api.get('/api/v1/rules?paginate=false')).body.pagination?.total_count,
      ).toBeGreaterThanOrEqual(5);
    } finally {
      await emulator.close();
    }
  });

  it.each([
    ['malformed YAML', 'seed.yaml', 'users: [unclosed', 'cannot be parsed'],
    ['malformed JSON', 'seed.json', '{"users": ', 'cannot be parsed'],
    ['an unknown key', 'seed.yaml', 'notifications: []', 'notifications: unknown field'],
    [
      'a rule without rq_host',
      'seed.yaml',
      'rules: [{id: r, action: block, kind: k, target: t, expression: {type: x, values: []}}]',
      'rules.0.rq_host',
    ],
    [
      'duplicate user ids',
      'seed.yaml',
      'users: [{id: a, username: x}, {id: a, username: y}]',
      'users.1.id: duplicate id',
    ],
    ['a user without username', 'seed.yaml', 'users: [{id: a}]', 'users.0.username: required'],
  ])('%s is a CONFIG_INVALID error naming the file and the place', async (_case, name, content, expected) => {
    const error = await seedError(name, content);
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain(join(dir, name));
    expect(error.message).toContain(expected);
  });

  it('a duplicate token is reported without echoing the token', async () => {
    const error = await seedError(
      'seed.yaml',
      'users: [{id: a, username: x, token: same-token-1}, {id: b, username: y, token: same-token-1}]',
    );
    expect(error.message).toContain('users.1.token: duplicate token');
    expect(error.message).not.toContain('same-token-1');
  });

  it('a missing seed file is a CONFIG_INVALID error', async () => {
    const loading = loadSeedFile(join(dir, 'absent.yaml'));
    await expect(loading).rejects.toBeInstanceOf(WafctlError);
    await expect(loading).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringContaining('absent.yaml'),
    });
  });

  it('startEmulator validates a programmatic seed and rejects bad options', async () => {
    await expect(
      startEmulator({ port: 0, seed: { users: [{ id: '', username: 'x' }] } }),
    ).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
    });
    await expect(startEmulator({ port: 0, faultRate: 2 })).rejects.toMatchObject({ code: 'USAGE' });
    await expect(startEmulator({ port: 70000 })).rejects.toMatchObject({ code: 'USAGE' });
  });

  it('a port in use is a USAGE error saying so', async () => {
    const { emulator } = await startTestEmulator();
    try {
      const port = Number(new URL(emulator.url).port);
      await expect(startEmulator({ port })).rejects.toMatchObject({
        code: 'USAGE',
        message: expect.stringContaining('in use'),
      });
    } finally {
      await emulator.close();
    }
  });
});
