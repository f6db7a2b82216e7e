/**
 * `--state` on a failing disk: a write that cannot be made durable is answered 500 and rolled back,
 * so nothing unacknowledged is ever visible and nothing acknowledged is lost. The disk fails through
 * the test-only `fileFault` hook (a real full disk needs root).
 */
import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FileOperation } from '../../src/emulator/index.js';
import {
  type Client,
  createRules,
  makeTempDir,
  notificationInput,
  ruleInput,
  startTestEmulator,
  type WireNotification,
} from './helpers.js';
import { crashImage, diskError, eventually, ruleDescriptions, ruleList } from './state-helpers.js';

interface RequestStats {
  by_route: Record<string, number>;
}

/** A disk that fails (or stalls) on command, and counts journal fsyncs. */
class FakeDisk {
  failing: { code: 'ENOSPC' | 'EIO'; operations: FileOperation[] } | undefined;
  journalSyncs = 0;
  stall: Promise<void> | undefined;
  /** Resolves once an operation is held by `stall`. */
  stalled: Promise<void> = new Promise(() => {});
  private onStalled = () => {};

  /** Holds every journal operation until the returned function is called. */
  hold(): () => void {
    let release = () => {};
    this.stall = new Promise((resolve) => {
      release = resolve;
    });
    this.stalled = new Promise((resolve) => {
      this.onStalled = resolve;
    });
    return () => {
      this.stall = undefined;
      release();
    };
  }

  readonly hook = async (operation: FileOperation, path: string): Promise<void> => {
    if (!path.endsWith('.journal') && !path.endsWith('.tmp')) return;
    if (operation === 'sync' && path.endsWith('.journal')) this.journalSyncs++;
    if (this.stall !== undefined) {
      this.onStalled();
      await this.stall;
    }
    if (this.failing?.operations.includes(operation)) throw diskError(this.failing.code);
  };
}

let dir: string;
let cleanup: () => Promise<void>;
let statePath: string;
let disk: FakeDisk;
let api: Client;
let close: () => Promise<void>;

beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir());
  statePath = join(dir, 'state.json');
  disk = new FakeDisk();
  const started = await startTestEmulator({ statePath, fileFault: disk.hook });
  api = started.api;
  close = () => started.emulator.close();
  // The first write creates the state file; the ones under test go to the journal.
  await createRules(api, [ruleInput({ description: 'kept' })]);
});
afterEach(async () => {
  await close();
  await cleanup();
});

const SAVE_ERROR = {
  status: 'error',
  message: 'Error saving the emulator state',
  errors: [expect.stringMatching(/^emulator state file .*state\.json cannot be written: ENOSPC/)],
};

async function restartedDescriptions(): Promise<(string | null)[]> {
  const image = await crashImage(statePath, join(dir, 'image'));
  const restarted = await startTestEmulator({ statePath: image });
  try {
    return await ruleDescriptions(restarted.api);
  } finally {
    await restarted.emulator.close();
  }
}

describe('a write that cannot be saved', () => {
  it('ENOSPC on append: 500, not visible; later writes work; a restart shows what was acknowledged', async () => {
    disk.failing = { code: 'ENOSPC', operations: ['write'] };
    const refused = await api.post('/api/v1/application_rules', {
      rules: [ruleInput({ description: 'lost' })],
    });
    expect(refused.status).toBe(500);
    expect(refused.body).toEqual(SAVE_ERROR);
    expect(await ruleDescriptions(api)).toEqual(['kept']);

    disk.failing = undefined;
    // The refused create never happened, its id included.
    expect(await createRules(api, [ruleInput({ description: 'after' })])).toEqual(['2']);
    expect(await ruleDescriptions(api)).toEqual(['kept', 'after']);
    expect(await restartedDescriptions()).toEqual(['kept', 'after']);
  });

  it('EIO on fsync after the bytes were written: the journal is cut back, a crash image lacks it', async () => {
    disk.failing = { code: 'EIO', operations: ['sync'] };
    const refused = await api.post('/api/v1/application_rules', {
      rules: [ruleInput({ description: 'lost' })],
    });
    expect(refused.status).toBe(500);
    expect(refused.body.errors).toEqual([expect.stringContaining('EIO')]);
    expect(await readFile(`${statePath}.journal`, 'utf8')).toBe('');
    disk.failing = undefined;
    await createRules(api, [ruleInput({ description: 'after' })]);
    expect(await restartedDescriptions()).toEqual(['kept', 'after']);
  });

  it('when cutting back fails too, later writes fail until the journal is repaired first', async () => {
    disk.failing = { code: 'EIO', operations: ['sync', 'truncate'] };
    const post = (description: string) =>
      api.post('/api/v1/application_rules', { rules: [ruleInput({ description })] });
    expect((await post('x')).status).toBe(500);
    expect(await readFile(`${statePath}.journal`, 'utf8')).toContain('"x"');
    disk.failing = { code: 'EIO', operations: ['truncate'] };
    expect((await post('y')).status).toBe(500);
    disk.failing = undefined;
    await createRules(api, [ruleInput({ description: 'after' })]);
    expect(await readFile(`${statePath}.journal`, 'utf8')).not.toContain('"x"');
    expect(await restartedDescriptions()).toEqual(['kept', 'after']);
  });

  it('a rolled-back update or delete leaves values and listing order as they were', async () => {
    const ids = await createRules(api, [ruleInput({ description: 'b' }), ruleInput({ description: 'c' })]);
    for (const name of ['n1', 'n2', 'n3']) {
      await api.post('/api/v1/settings/notifications', { notification: notificationInput({ name }) });
    }
    const page = () => api.get('/api/v1/application_rules?paginate=true&page=0&page_size=10');
    const before = await ruleList(api);
    const pageBefore = (await page()).body;
    disk.failing = { code: 'ENOSPC', operations: ['write'] };
    const replies = await Promise.all([
      api.delete('/api/v1/application_rules', { rule_ids: [ids[0]] }),
      api.put(`/api/v1/application_rules/${ids[1]}`, { attrs: { description: 'changed' } }),
      api.delete('/api/v1/settings/notifications/n1'),
      api.post('/api/v1/application_rules', { rules: [ruleInput({ description: 'new' })] }),
    ]);
    expect(replies.map((reply) => reply.status)).toEqual([500, 500, 500, 500]);
    expect(await ruleList(api)).toEqual(before);
    // Read by position too (the listing keeps an index of keys, which must see the undo).
    expect((await page()).body).toEqual(pageBefore);
    const notifications = await api.get<{ notifications: WireNotification[] }>(
      '/api/v1/settings/notifications',
    );
    expect(notifications.body.data?.notifications.map((n) => n.name)).toEqual(['n1', 'n2', 'n3']);
    disk.failing = undefined;
    expect(await createRules(api, [ruleInput()])).toEqual(['4']);
  });

  it('a read waits for a pending write and never sees it when its flush fails', async () => {
    const release = disk.hold();
    disk.failing = { code: 'ENOSPC', operations: ['write'] };
    const write = api.post('/api/v1/application_rules', { rules: [ruleInput({ description: 'pending' })] });
    await disk.stalled; // the write is applied in memory, its flush held
    let readDone = false;
    const read = ruleDescriptions(api).then((descriptions) => {
      readDone = true;
      return descriptions;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(readDone).toBe(false);
    release();
    expect((await write).status).toBe(500);
    expect(await read).toEqual(['kept']);
  });

  it('the first write, which creates the state file, is rolled back too when that fails', async () => {
    const other = join(dir, 'fresh.json');
    const fresh = await startTestEmulator({
      statePath: other,
      fileFault: (operation) => {
        if (operation === 'rename') throw diskError('ENOSPC');
      },
    });
    try {
      expect((await fresh.api.post('/api/v1/groups', { attrs: { name: 'g' } })).status).toBe(500);
      const groups = (await fresh.api.get<{ groups: { name: string }[] }>('/api/v1/groups')).body.data
        ?.groups;
      expect(groups?.map((g) => g.name)).toEqual(['admins']);
      await expect(access(other)).rejects.toThrow();
    } finally {
      await fresh.emulator.close();
    }
  });
});

describe('group commit', () => {
  it('concurrent writes share fsyncs, and each is answered only once its line is durable', async () => {
    const release = disk.hold();
    let answered = 0;
    const writes = Array.from({ length: 20 }, (_, i) =>
      createRules(api, [ruleInput({ description: `w${i}` })]).then((ids) => {
        answered++;
        return ids;
      }),
    );
    await disk.stalled;
    // All 20 have reached the emulator (counted on arrival); give them a moment to be applied.
    await eventually(async () => {
      const stats = (await (await fetch(`${api.url}/__emulator/stats`)).json()) as RequestStats;
      return stats.by_route['POST /api/v1/application_rules'] === 21;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(answered).toBe(0);
    release();
    const ids = (await Promise.all(writes)).flat();
    expect(new Set(ids).size).toBe(20);
    expect(disk.journalSyncs).toBeLessThanOrEqual(3);
    expect((await restartedDescriptions()).length).toBe(21);
  });
});
