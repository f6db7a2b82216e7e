/**
 * A state file or journal that breaks the store's invariants (unique keys and names, ids below their
 * counters) is refused at start, naming the file and the record's path or the journal's line:
 * loaded as it is, the next POST would replace an existing record.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StoreRecord as JournalRecord, StoreState } from '../../src/emulator/collections.js';
import {
  type Client,
  createRules,
  makeTempDir,
  notificationInput,
  ruleInput,
  scheduleAttrs,
  startTestEmulator,
} from './helpers.js';
import { crashImage, startupError } from './state-helpers.js';

let dir: string;
let cleanup: () => Promise<void>;
let statePath: string;

beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir());
  statePath = join(dir, 'state.json');
});
afterEach(() => cleanup());

type State = StoreState & { journal_seq: number };

/** The item at `index`, which the test made sure exists. */
function at<T>(list: readonly T[] | undefined, index: number): T {
  const item = list?.[index];
  if (item === undefined) throw new Error(`no item ${index}`);
  return item;
}

/** Two of each kind: groups g0 g1 (ids 1 2), rules (1 2), notifications n0 n1, schedules s0 s1 (ids 1 2). */
async function fill(api: Client): Promise<void> {
  for (const i of [0, 1]) {
    await api.post('/api/v1/groups', { attrs: { name: `g${i}` } });
    await createRules(api, [ruleInput({ description: `r${i}` })]);
    await api.post('/api/v1/settings/notifications', { notification: notificationInput({ name: `n${i}` }) });
    await api.post('/api/v1/reports/schedules', { attrs: scheduleAttrs({ name: `s${i}` }) });
  }
}

describe('a state file', () => {
  let saved: State;

  beforeEach(async () => {
    const { emulator, api } = await startTestEmulator({ statePath });
    await fill(api);
    await emulator.close(); // folds everything into the state file
    saved = JSON.parse(await readFile(statePath, 'utf8'));
    // Without the built-in admins group (id 0), so that groups.0 and groups.1 are g0 and g1.
    saved.groups = saved.groups.filter((g) => g.name !== 'admins');
  });

  it.each<[string, (state: State) => void, string]>([
    [
      'two groups of one name',
      (s) => {
        at(s.groups, 1).name = 'g0';
      },
      "groups.1.name: duplicate name 'g0' (also groups.0)",
    ],
    [
      'two groups of one id',
      (s) => {
        at(s.groups, 1).id = at(s.groups, 0).id;
      },
      "groups.1.id: duplicate id '1' (also groups.0)",
    ],
    [
      'two schedules of one name',
      (s) => {
        at(s.schedules, 1).name = 's0';
      },
      "schedules.1.name: duplicate name 's0' (also schedules.0)",
    ],
    [
      'two notifications of one name',
      (s) => {
        at(s.notifications, 1).name = 'n0';
      },
      "notifications.1.name: duplicate name 'n0' (also notifications.0)",
    ],
    [
      'two application rules of one id',
      (s) => {
        at(s.application_rules, 1).id = at(s.application_rules, 0).id;
      },
      "application_rules.1.id: duplicate id '1' (also application_rules.0)",
    ],
    [
      'next_ids.group behind an existing group',
      (s) => {
        s.next_ids.group = 2;
      },
      "groups.1.id: id '2' is not below next_ids.group (2): the next one created would get it and replace this one",
    ],
    [
      'next_ids.schedule behind an existing schedule',
      (s) => {
        s.next_ids.schedule = 1;
      },
      "schedules.0.id: id '1' is not below next_ids.schedule (1)",
    ],
    [
      'next_ids.application_rule behind an existing rule',
      (s) => {
        s.next_ids.application_rule = 2;
      },
      "application_rules.1.id: id '2' is not below next_ids.application_rule (2)",
    ],
    [
      'next_ids.condition behind an existing condition',
      (s) => {
        s.next_ids.condition = 1;
      },
      "application_rules.0.conditions.0.id: id '1' is not below next_ids.condition (1)",
    ],
  ])('with %s is refused, naming the file and the record, untouched', async (_case, mutate, reason) => {
    mutate(saved);
    const content = JSON.stringify(saved);
    await writeFile(statePath, content);
    const error = await startupError({ statePath });
    expect(error.code).toBe('EMULATOR_STATE');
    expect(error.message).toContain(
      `emulator state file ${statePath} is not a valid emulator state: ${reason}`,
    );
    expect(await readFile(statePath, 'utf8')).toBe(content);
  });

  it('as the emulator writes it loads, and ids go on from its counters', async () => {
    const { emulator, api } = await startTestEmulator({ statePath });
    try {
      const reply = await api.post<{ group: { id: string } }>('/api/v1/groups', { attrs: { name: 'g2' } });
      expect(reply.body.data?.group.id).toBe('3');
    } finally {
      await emulator.close();
    }
  });
});

describe('a journal', () => {
  /** A crash image: state file holding group g0 (id 1), journal line 1 creating `write`'s record. */
  async function imageWithLine(
    write: (api: Client) => Promise<void>,
  ): Promise<{ image: string; line: JournalRecord }> {
    const { emulator, api } = await startTestEmulator({ statePath });
    try {
      await api.post('/api/v1/groups', { attrs: { name: 'g0' } });
      await api.post('/api/v1/reports/schedules', { attrs: scheduleAttrs({ name: 's0' }) });
      await write(api);
      const image = await crashImage(statePath, join(dir, 'image'));
      const lines = (await readFile(`${image}.journal`, 'utf8')).trim().split('\n');
      expect(lines).toHaveLength(2); // the schedule, then `write`
      return { image, line: JSON.parse(lines[1] ?? '') };
    } finally {
      await emulator.close();
    }
  }

  async function refusedWith(image: string, edited: JournalRecord, reason: string): Promise<void> {
    const journal = `${image}.journal`;
    const lines = (await readFile(journal, 'utf8')).trim().split('\n');
    const content = `${lines[0]}\n${JSON.stringify(edited)}\n`;
    await writeFile(journal, content);
    const error = await startupError({ statePath: image });
    expect(error.code).toBe('EMULATOR_STATE');
    expect(error.message).toBe(
      `emulator state journal ${journal} line 2 cannot be replayed: ${reason} ` +
        '(the journal does not fit the state file: restore both from the same backup)',
    );
    expect(await readFile(journal, 'utf8')).toBe(content);
  }

  it('whose next_ids is behind the id it creates is refused (the next POST would replace that group)', async () => {
    const { image, line } = await imageWithLine(async (api) => {
      await api.post('/api/v1/groups', { attrs: { name: 'g1' } });
    });
    expect(at(line.changes.groups?.upsert, 0).id).toBe('2');
    line.next_ids.group = 2;
    await refusedWith(
      image,
      line,
      "changes.groups.upsert.0.id: id '2' is not below next_ids.group (2): the next one created would get it and replace this one",
    );
  });

  it('whose next_ids goes back is refused', async () => {
    const { image, line } = await imageWithLine(async (api) => {
      await api.post('/api/v1/groups', { attrs: { name: 'g1' } });
    });
    line.next_ids.schedule = 1;
    await refusedWith(
      image,
      line,
      'next_ids.schedule: 1 is below 2, the counter before this line (counters never go back)',
    );
  });

  it('with a second group of one name is refused', async () => {
    const { image, line } = await imageWithLine(async (api) => {
      await api.post('/api/v1/groups', { attrs: { name: 'g1' } });
    });
    at(line.changes.groups?.upsert, 0).name = 'g0';
    await refusedWith(
      image,
      line,
      "changes.groups.upsert.0.name: a group named 'g0' exists already (id '1')",
    );
  });

  it('with a second schedule of one name is refused', async () => {
    const { image, line } = await imageWithLine(async (api) => {
      await api.post('/api/v1/reports/schedules', { attrs: scheduleAttrs({ name: 's1' }) });
    });
    at(line.changes.schedules?.upsert, 0).name = 's0';
    await refusedWith(
      image,
      line,
      "changes.schedules.upsert.0.name: a schedule named 's0' exists already (id '1')",
    );
  });

  it('with an application rule or condition id its counter would hand out again is refused', async () => {
    const { image, line } = await imageWithLine(async (api) => {
      await createRules(api, [ruleInput()]);
    });
    const rule = { ...line, next_ids: { ...line.next_ids, application_rule: 1 } };
    await refusedWith(
      image,
      rule,
      "changes.application_rules.upsert.0.id: id '1' is not below next_ids.application_rule (1): the next one created would get it and replace this one",
    );
    const condition = { ...line, next_ids: { ...line.next_ids, condition: 1 } };
    await refusedWith(
      image,
      condition,
      "changes.application_rules.upsert.0.conditions.0.id: id '1' is not below next_ids.condition (1): the next one created would get it and replace this one",
    );
  });

  it('with one notification twice in a line is refused', async () => {
    const { image, line } = await imageWithLine(async (api) => {
      await api.post('/api/v1/settings/notifications', { notification: notificationInput() });
    });
    const splunk = at(line.changes.notifications?.upsert, 0);
    line.changes.notifications = { upsert: [splunk, { ...splunk, enabled: false }], delete: [] };
    await refusedWith(image, line, "changes.notifications.upsert.1.name: name 'splunk' is upserted twice");
  });

  it('a group taking the name another group gives up in the same line is fine', async () => {
    const { image, line } = await imageWithLine(async (api) => {
      await api.post('/api/v1/groups', { attrs: { name: 'g1' } });
    });
    line.changes.groups = { upsert: [{ ...at(line.changes.groups?.upsert, 0), name: 'g0' }], delete: ['1'] };
    const journal = `${image}.journal`;
    const lines = (await readFile(journal, 'utf8')).trim().split('\n');
    await writeFile(journal, `${lines[0]}\n${JSON.stringify(line)}\n`);
    const restarted = await startTestEmulator({ statePath: image });
    try {
      const groups = await restarted.api.get<{ groups: { id: string; name: string }[] }>('/api/v1/groups');
      expect(groups.body.data?.groups.map(({ id, name }) => ({ id, name }))).toEqual([
        { id: '0', name: 'admins' },
        { id: '2', name: 'g0' },
      ]);
    } finally {
      await restarted.emulator.close();
    }
  });
});
