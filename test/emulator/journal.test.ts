/** `--state`: the journal (durable before the answer, replayed at start), compaction, and the lock. */
import { appendFile, readFile, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRules, makeTempDir, notificationInput, ruleInput, startTestEmulator } from './helpers.js';
import {
  crashImage,
  eventually,
  journalLines,
  ruleDescriptions,
  ruleList,
  startupError,
} from './state-helpers.js';

let dir: string;
let cleanup: () => Promise<void>;
let statePath: string;

beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir());
  statePath = join(dir, 'state.json');
});
afterEach(() => cleanup());

/** An image of a state whose first write (r0) is in the state file and the next ones in the journal. */
async function imageWithJournal(count: number): Promise<string> {
  const { emulator, api } = await startTestEmulator({ statePath });
  try {
    for (let i = 0; i < count; i++) await createRules(api, [ruleInput({ description: `r${i}` })]);
    return await crashImage(statePath, join(dir, 'image'));
  } finally {
    await emulator.close();
  }
}

describe('the journal', () => {
  it('holds one line per acknowledged write, with its effect, before the answer is sent', async () => {
    const { emulator, api } = await startTestEmulator({ statePath });
    try {
      const [first = ''] = await createRules(api, [ruleInput({ description: 'first' })]);
      const [second = ''] = await createRules(api, [ruleInput({ description: 'second' })]);
      await api.put(`/api/v1/application_rules/${first}`, { attrs: { enabled: false } });
      await api.delete('/api/v1/application_rules', { rule_ids: [second] });
      await api.post('/api/v1/settings/notifications', { notification: notificationInput() });
      // The first write created the state file itself; the journal holds the next four.
      const lines = (await journalLines(statePath)).map((line) => JSON.parse(line));
      expect(lines.map((line) => line.seq)).toEqual([2, 3, 4, 5]);
      expect(lines[0].changes.application_rules.upsert[0]).toMatchObject({
        id: second,
        description: 'second',
      });
      expect(lines[1].changes).toEqual({
        application_rules: { upsert: [expect.objectContaining({ id: first, enabled: false })], delete: [] },
      });
      expect(lines[2].changes).toEqual({ application_rules: { upsert: [], delete: [second] } });
      expect(lines[3].changes.notifications.upsert[0]).toMatchObject({ name: 'splunk' });
      expect(lines[3].next_ids).toMatchObject({ application_rule: 3 });

      const image = await crashImage(statePath, join(dir, 'image'));
      const restarted = await startTestEmulator({ statePath: image });
      try {
        expect(await ruleList(restarted.api)).toEqual(await ruleList(api));
        const [third = ''] = await createRules(restarted.api, [ruleInput()]);
        expect(third).toBe('3');
      } finally {
        await restarted.emulator.close();
      }
    } finally {
      await emulator.close();
    }
  });

  it('a replayed journal keeps the creator a create named, and the user an update recorded', async () => {
    const { emulator, api } = await startTestEmulator({ statePath });
    try {
      await createRules(api, [ruleInput({ description: 'in the state file' })]);
      const [named = ''] = await createRules(api, [ruleInput({ username: 'gitops-bot' })]);
      const [updated = ''] = await createRules(api, [
        ruleInput({ username: 'gitops-bot', description: 'b' }),
      ]);
      await api.put(`/api/v1/application_rules/${updated}`, { attrs: { enabled: false } });
      const image = await crashImage(statePath, join(dir, 'image'));
      const restarted = await startTestEmulator({ statePath: image });
      try {
        const creators = Object.fromEntries(
          (await ruleList(restarted.api)).map((rule) => [rule.id, rule.username]),
        );
        // The admin token updated the last one: the update records its user.
        expect([creators[named], creators[updated]]).toEqual(['gitops-bot', 'admin']);
      } finally {
        await restarted.emulator.close();
      }
    } finally {
      await emulator.close();
    }
  });

  it('drops a torn last line (a crash mid-append) with a note, and truncates it away', async () => {
    const image = await imageWithJournal(3);
    const good = await readFile(`${image}.journal`, 'utf8');
    await appendFile(`${image}.journal`, '{"seq":4,"changes":{"application_rules":{"ups');
    const notices: string[] = [];
    const { emulator, api } = await startTestEmulator({ statePath: image, onNotice: (n) => notices.push(n) });
    try {
      expect(await ruleDescriptions(api)).toEqual(['r0', 'r1', 'r2']);
      expect(notices).toEqual([
        expect.stringContaining(`dropped the torn last line (3) of ${image}.journal`),
      ]);
      expect(await readFile(`${image}.journal`, 'utf8')).toBe(good);
      await createRules(api, [ruleInput({ description: 'after' })]);
      expect((await journalLines(image)).map((line) => JSON.parse(line).seq)).toEqual([2, 3, 4]);
    } finally {
      await emulator.close();
    }
  });

  it('drops a damaged last line that ends with a newline too', async () => {
    const image = await imageWithJournal(2);
    const good = await readFile(`${image}.journal`, 'utf8');
    await appendFile(`${image}.journal`, '\0\0\0\0\n');
    const { emulator, api } = await startTestEmulator({ statePath: image });
    try {
      expect(await ruleDescriptions(api)).toEqual(['r0', 'r1']);
      expect(await readFile(`${image}.journal`, 'utf8')).toBe(good);
    } finally {
      await emulator.close();
    }
  });

  it.each([
    ['not JSON', () => '{"seq": 3, "changes":', 'not valid JSON'],
    ['not a record', () => '{"seq": 3, "changes": {"widgets": {}}}', 'changes.widgets: unknown field'],
  ])(
    'a corrupt line before the last (%s) is an error naming the file and line, files untouched',
    async (_c, bad, reason) => {
      const image = await imageWithJournal(4);
      const lines = (await readFile(`${image}.journal`, 'utf8')).split('\n');
      lines[1] = bad();
      await writeFile(`${image}.journal`, lines.join('\n'));
      const before = await readFile(`${image}.journal`, 'utf8');
      const error = await startupError({ statePath: image, adminToken: 'journal-corrupt-admin-token' });
      expect(error.code).toBe('EMULATOR_STATE');
      expect(error.message).toContain(`emulator state journal ${image}.journal line 2 is corrupt`);
      expect(error.message).toContain(reason);
      expect(await readFile(`${image}.journal`, 'utf8')).toBe(before);
      // The failed start gave the lock back.
      await expect(stat(`${image}.lock`)).rejects.toThrow();
    },
  );

  it('a line out of sequence is corruption, and a journal without its state file is refused', async () => {
    const image = await imageWithJournal(3);
    const lines = (await readFile(`${image}.journal`, 'utf8')).split('\n');
    await writeFile(`${image}.journal`, `${lines[0]}\n${lines[0]}\n${lines[1]}\n`);
    expect((await startupError({ statePath: image })).message).toContain(
      'line 2 is corrupt: seq 2 follows seq 2',
    );
    await writeFile(`${image}.journal`, `${lines[1]}\n`);
    expect((await startupError({ statePath: image })).message).toContain(
      'line 1 is corrupt: seq 3 does not continue the state file (seq 1)',
    );
    await writeFile(image.replace('state.json', 'other.json.journal'), `${lines[0]}\n`);
    const orphan = await startupError({ statePath: image.replace('state.json', 'other.json') });
    expect(orphan.message).toContain('does not exist but its journal');
  });

  it('a state file from before the journal (no journal_seq) loads, and gets a journal', async () => {
    const old = {
      format_version: 1,
      users: [],
      rules: [],
      groups: [],
      application_rules: [],
      notifications: [],
      schedules: [],
      next_ids: { group: 1, application_rule: 7, condition: 1, schedule: 1 },
    };
    await writeFile(statePath, JSON.stringify(old));
    const { emulator, api } = await startTestEmulator({ statePath });
    try {
      expect(await createRules(api, [ruleInput()])).toEqual(['7']);
      const image = await crashImage(statePath, join(dir, 'image'));
      expect((await journalLines(image)).map((line) => JSON.parse(line).seq)).toEqual([1]);
      const restarted = await startTestEmulator({ statePath: image });
      expect((await ruleList(restarted.api)).map((rule) => rule.id)).toEqual(['7']);
      await restarted.emulator.close();
    } finally {
      await emulator.close();
    }
    expect(JSON.parse(await readFile(statePath, 'utf8'))).toMatchObject({ journal_seq: 1 });
  });
});

describe('compaction', () => {
  it('folds the journal into the state file in the background; the state survives a crash and a restart', async () => {
    const { emulator, api } = await startTestEmulator({ statePath, journalCompactBytes: 1 });
    const descriptions = Array.from({ length: 60 }, (_, i) => `c${i}`);
    try {
      for (const description of descriptions) await createRules(api, [ruleInput({ description })]);
      // Compacted at least once: the state file took in journaled writes, the journal lost them.
      await eventually(async () => JSON.parse(await readFile(statePath, 'utf8')).journal_seq > 30);
      const lines = await journalLines(statePath);
      expect(lines.length).toBeLessThan(40);
      const image = await crashImage(statePath, join(dir, 'image'));
      const restarted = await startTestEmulator({ statePath: image });
      try {
        expect(await ruleDescriptions(restarted.api)).toEqual(descriptions);
      } finally {
        await restarted.emulator.close();
      }
    } finally {
      await emulator.close();
    }
    const again = await startTestEmulator({ statePath });
    try {
      expect(await ruleDescriptions(again.api)).toEqual(descriptions);
    } finally {
      await again.emulator.close();
    }
  });

  it('a crash after the compacted state file is written but before the journal is swapped is safe', async () => {
    let swapping = () => {};
    const swapStarted = new Promise<void>((resolve) => {
      swapping = resolve;
    });
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { emulator, api } = await startTestEmulator({
      statePath,
      journalCompactBytes: 1,
      fileFault: async (operation, path) => {
        if (operation !== 'write' || !path.endsWith('.journal.tmp')) return;
        swapping();
        await held;
      },
    });
    // Writes queue behind the held swap (it is short in real life): stop at the first that waits.
    const acknowledged: string[] = [];
    const writes: Promise<unknown>[] = [];
    try {
      for (let i = 0; i < 60; i++) {
        const description = `w${i}`;
        const write = createRules(api, [ruleInput({ description })]).then(() =>
          acknowledged.push(description),
        );
        writes.push(write);
        if (
          (await Promise.race([write.then(() => 'done'), swapStarted.then(() => 'swapping')])) === 'swapping'
        ) {
          break;
        }
      }
      await swapStarted;
      const image = await crashImage(statePath, join(dir, 'image'));
      const snapshot = JSON.parse(await readFile(image, 'utf8'));
      // The state file holds lines the old journal still has: replay must skip them, not apply twice.
      expect(JSON.parse((await journalLines(image))[0] ?? '{}').seq).toBeLessThanOrEqual(
        snapshot.journal_seq,
      );
      const restarted = await startTestEmulator({ statePath: image });
      try {
        expect(await ruleDescriptions(restarted.api)).toEqual(acknowledged);
      } finally {
        await restarted.emulator.close();
      }
    } finally {
      release();
      await Promise.all(writes);
      await emulator.close();
    }
  });
});

describe('the lock', () => {
  it('one emulator per state file: a second is refused naming the holder, until the first closes', async () => {
    const first = await startTestEmulator({ statePath });
    const lock = JSON.parse(await readFile(`${statePath}.lock`, 'utf8'));
    expect(lock).toMatchObject({ pid: process.pid, hostname: hostname() });
    const error = await startupError({ statePath });
    expect(error.code).toBe('EMULATOR_STATE');
    expect(error.message).toBe(
      `emulator state file ${statePath} is in use by pid ${process.pid} on host ${hostname()} (started ${lock.started})`,
    );
    await first.emulator.close();
    await expect(stat(`${statePath}.lock`)).rejects.toThrow();
    const second = await startTestEmulator({ statePath });
    await second.emulator.close();
  });

  it('a lock held from another host is honoured (its pid cannot be checked from here)', async () => {
    const other = { pid: 1, hostname: 'elsewhere.example', started: '2030-01-01T00:00:00.000Z', token: 'x' };
    await writeFile(`${statePath}.lock`, JSON.stringify(other));
    expect((await startupError({ statePath })).message).toContain(
      'in use by pid 1 on host elsewhere.example',
    );
  });
});
