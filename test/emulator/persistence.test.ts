import { access, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createRules,
  makeTempDir,
  notificationInput,
  ruleInput,
  scheduleAttrs,
  startTestEmulator,
  type WireGroup,
} from './helpers.js';
import { startupError } from './state-helpers.js';

let dir: string;
let cleanup: () => Promise<void>;
let statePath: string;

beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir());
  statePath = join(dir, 'state.json');
});
afterEach(() => cleanup());

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

describe('persistence', () => {
  it('creates the file on the first change, and everything survives a restart', async () => {
    const seed = { users: [{ id: 'u-9', username: 'nina', token: 'nina-secret-token' }] };
    const first = await startTestEmulator({ statePath, seed });
    expect(await exists(statePath)).toBe(false);
    await first.api.get('/api/v1/groups');
    expect(await exists(statePath)).toBe(false);
    const group = (
      await first.api.post<{ group: WireGroup }>('/api/v1/groups', {
        attrs: { name: 'g', user_ids: ['u-9'] },
      })
    ).body.data?.group;
    const ruleIds = await createRules(first.api, [ruleInput(), ruleInput({ description: 'two' })]);
    await first.api.post('/api/v1/settings/notifications', { notification: notificationInput() });
    await first.api.post('/api/v1/reports/schedules', { attrs: scheduleAttrs() });
    await first.api.delete('/api/v1/application_rules', { rule_ids: [ruleIds[1]] });
    const before = {
      groups: (await first.api.get('/api/v1/groups')).body,
      rules: (await first.api.get('/api/v1/application_rules?paginate=false')).body,
      notifications: (await first.api.get('/api/v1/settings/notifications')).body,
      schedules: (await first.api.get('/api/v1/reports/schedules?paginate=false')).body,
    };
    await first.emulator.close();

    const saved = await readFile(statePath, 'utf8');
    expect(JSON.parse(saved)).toMatchObject({ format_version: 1 });
    expect(saved).not.toContain('nina-secret-token');
    // A clean shutdown folds the journal into the state file and gives the lock back.
    expect(await readdir(dir)).toEqual(['state.json']);

    const second = await startTestEmulator({ statePath, seed });
    try {
      expect((await second.api.get('/api/v1/groups')).body).toEqual(before.groups);
      expect((await second.api.get('/api/v1/application_rules?paginate=false')).body).toEqual(before.rules);
      expect((await second.api.get('/api/v1/settings/notifications')).body).toEqual(before.notifications);
      expect((await second.api.get('/api/v1/reports/schedules?paginate=false')).body).toEqual(
        before.schedules,
      );
      expect(
        (await second.api.get(`/api/v1/groups/${group?.id}`, { token: 'nina-secret-token' })).status,
      ).toBe(403);
      // Ids continue after a restart: the deleted rule's id is not handed out again.
      const [next = ''] = await createRules(second.api, [ruleInput()]);
      expect(Number(next)).toBeGreaterThan(Number(ruleIds[1]));
    } finally {
      await second.emulator.close();
    }
  });

  it('the state file wins over the seed for what it holds', async () => {
    const seedA = {
      rules: [
        {
          id: 'from-a',
          action: 'block',
          kind: 'application',
          rq_host: 'a',
          target: 'path',
          expression: { type: 'regex', values: [] },
        },
      ],
    };
    const seedB = {
      rules: [
        {
          id: 'from-b',
          action: 'block',
          kind: 'application',
          rq_host: 'b',
          target: 'path',
          expression: { type: 'regex', values: [] },
        },
      ],
    };
    const first = await startTestEmulator({ statePath, seed: seedA });
    await first.api.post('/api/v1/groups', { attrs: { name: 'mutate' } });
    await first.emulator.close();
    const second = await startTestEmulator({ statePath, seed: seedB });
    try {
      const rules = await second.api.get<{ rules: { id: string }[] }>('/api/v1/rules?paginate=false');
      expect(rules.body.data?.rules.map((r) => r.id)).toEqual(['from-a']);
    } finally {
      await second.emulator.close();
    }
  });

  it('one bulk POST of 1,000 rules is persisted', async () => {
    const first = await startTestEmulator({ statePath });
    await createRules(
      first.api,
      Array.from({ length: 1000 }, (_, i) => ruleInput({ description: `r${i}` })),
    );
    await first.emulator.close();
    const saved = JSON.parse(await readFile(statePath, 'utf8')) as { application_rules: unknown[] };
    expect(saved.application_rules).toHaveLength(1000);
  });

  it.each([
    ['not JSON', '{"format_version": 1, "groups": ['],
    ['empty', ''],
    ['the wrong shape', JSON.stringify({ format_version: 1, groups: 'none' })],
    ['an unknown format version', JSON.stringify({ format_version: 99 })],
  ])(
    'a corrupt state file (%s) is an EMULATOR_STATE error naming the file, left untouched',
    async (_case, content) => {
      await writeFile(statePath, content);
      const error = await startupError({ statePath });
      expect(error.code).toBe('EMULATOR_STATE');
      expect(error.message).toContain(statePath);
      expect(await readFile(statePath, 'utf8')).toBe(content);
    },
  );

  it('an unreadable state path is an EMULATOR_STATE error', async () => {
    const error = await startupError({ statePath: dir });
    expect(error.code).toBe('EMULATOR_STATE');
    expect(error.message).toContain(dir);
  });

  it('a state file in a missing directory is an EMULATOR_STATE error at start', async () => {
    const error = await startupError({ statePath: join(dir, 'missing', 'state.json') });
    expect(error.code).toBe('EMULATOR_STATE');
    expect(error.message).toContain('cannot be created');
  });
});
