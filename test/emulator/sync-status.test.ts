/**
 * The sync lifecycle of application-rule actions (issue 44, docs/emulator.md "Synchronization"):
 * pending after each write, then synced (or error on a failing firewall) once the delay has passed on
 * the emulator's clock. The clock is a manual one: no test sleeps.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EmulatorOptions, RunningEmulator } from '../../src/emulator/index.js';
import { type ManualClock, manualClock } from '../helpers/firewall.js';
import {
  type Client,
  createRules,
  makeTempDir,
  ruleInput,
  startTestEmulator,
  type WireAction,
  type WireApplicationRule,
} from './helpers.js';
import { crashImage, ruleList } from './state-helpers.js';

const TWO_FIREWALLS = {
  actions: [
    { firewall_action: 'block', firewall_name: 'waf-eu-1' },
    { firewall_action: 'block', firewall_name: 'waf-us-1' },
  ],
};

let clock: ManualClock;
let running: RunningEmulator[] = [];
let dir: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  clock = manualClock();
  ({ dir, cleanup } = await makeTempDir());
});
afterEach(async () => {
  for (const emulator of running) await emulator.close();
  running = [];
  await cleanup();
});

async function start(options: EmulatorOptions = {}): Promise<Client> {
  const { emulator, api } = await startTestEmulator({ clock, ...options });
  running.push(emulator);
  return api;
}

async function getRule(api: Client, id: string): Promise<WireApplicationRule> {
  const reply = await api.get<{ rule: WireApplicationRule }>(`/api/v1/application_rules/${id}`);
  if (reply.body.data === undefined) throw new Error(`GET rule ${id}: ${JSON.stringify(reply.body)}`);
  return reply.body.data.rule;
}

/** `firewall=status` of each action, as GET-one shows them. */
async function statuses(api: Client, id: string): Promise<string[]> {
  const actions: WireAction[] = (await getRule(api, id)).actions ?? [];
  return actions.map((a) => `${a.firewall_name}=${a.sync_status}`);
}

describe('sync_status lifecycle', () => {
  it('without a delay (the default) an action is synced at once, and no sync_due is ever shown', async () => {
    const api = await start();
    const [id = ''] = await createRules(api, [ruleInput()]);
    expect(await getRule(api, id)).toMatchObject({
      actions: [
        {
          application_rule_id: id,
          firewall_action: 'block',
          firewall_name: 'waf-eu-1',
          sync_status: 'synced',
        },
      ],
    });
    expect(Object.keys((await getRule(api, id)).actions?.[0] ?? {})).not.toContain('sync_due');
  });

  it('is pending until exactly the delay has passed on the clock, then synced', async () => {
    const api = await start({ syncDelayMs: 1000 });
    const [id = ''] = await createRules(api, [ruleInput(TWO_FIREWALLS)]);
    expect(await statuses(api, id)).toEqual(['waf-eu-1=pending', 'waf-us-1=pending']);
    clock.advance(999);
    expect(await statuses(api, id)).toEqual(['waf-eu-1=pending', 'waf-us-1=pending']);
    clock.advance(1);
    expect(await statuses(api, id)).toEqual(['waf-eu-1=synced', 'waf-us-1=synced']);
    expect(Object.keys((await getRule(api, id)).actions?.[0] ?? {})).not.toContain('sync_due');
  });

  it("a wait on the shared manual clock (a command's backoff) lets the delay pass", async () => {
    const api = await start({ syncDelayMs: 250 });
    const [id = ''] = await createRules(api, [ruleInput()]);
    await clock.sleep(200);
    expect(await statuses(api, id)).toEqual(['waf-eu-1=pending']);
    await clock.sleep(50);
    expect(await statuses(api, id)).toEqual(['waf-eu-1=synced']);
    expect(clock.sleeps).toEqual([200, 50]);
  });

  it('ends in error on a failing firewall, after the delay, and only for that firewall', async () => {
    const api = await start({ syncDelayMs: 500, syncFail: ['waf-us-1', 'waf-ap-9'] });
    const [id = ''] = await createRules(api, [ruleInput(TWO_FIREWALLS)]);
    expect(await statuses(api, id)).toEqual(['waf-eu-1=pending', 'waf-us-1=pending']);
    clock.advance(500);
    expect(await statuses(api, id)).toEqual(['waf-eu-1=synced', 'waf-us-1=error']);
  });

  it('without a delay, a failing firewall is in error at once', async () => {
    const api = await start({ syncFail: ['waf-us-1'] });
    const [id = ''] = await createRules(api, [ruleInput(TWO_FIREWALLS)]);
    expect(await statuses(api, id)).toEqual(['waf-eu-1=synced', 'waf-us-1=error']);
  });

  it('an update (one rule or several) makes the actions pending again, for a new delay', async () => {
    const api = await start({ syncDelayMs: 1000 });
    const [first = '', second = '', untouched = ''] = await createRules(api, [
      ruleInput(),
      ruleInput(),
      ruleInput(),
    ]);
    clock.advance(1000);
    expect(await statuses(api, first)).toEqual(['waf-eu-1=synced']);

    await api.put(`/api/v1/application_rules/${first}`, { attrs: { priority: 'low' } });
    expect(await statuses(api, first)).toEqual(['waf-eu-1=pending']);
    clock.advance(600);
    await api.put('/api/v1/application_rules/', { attrs: { enabled: false }, rule_ids: [second] });
    expect(await statuses(api, second)).toEqual(['waf-eu-1=pending']);
    clock.advance(400);
    expect(await statuses(api, first)).toEqual(['waf-eu-1=synced']);
    expect(await statuses(api, second)).toEqual(['waf-eu-1=pending']);
    expect(await statuses(api, untouched)).toEqual(['waf-eu-1=synced']);
    clock.advance(600);
    expect(await statuses(api, second)).toEqual(['waf-eu-1=synced']);
  });

  it('a refused update changes nothing: the actions stay synced', async () => {
    const api = await start({ syncDelayMs: 1000 });
    const [id = ''] = await createRules(api, [ruleInput()]);
    clock.advance(1000);
    const refused = await api.put(`/api/v1/application_rules/${id}`, { attrs: { priority: 7 } });
    expect(refused.status).toBe(400);
    expect(await statuses(api, id)).toEqual(['waf-eu-1=synced']);
  });

  it.each([
    ['full', undefined],
    ['single-action', 'single-action' as const],
  ])('the listing (%s rows) shows the status of the moment in actions and action', async (_shape, shape) => {
    const api = await start({ syncDelayMs: 1000, syncFail: ['waf-us-1'], applicationRuleListShape: shape });
    await createRules(api, [
      ruleInput(TWO_FIREWALLS),
      ruleInput({ actions: TWO_FIREWALLS.actions.slice(1) }),
    ]);
    const listed = async () =>
      (await ruleList(api)).map((rule) => ({
        action: rule.action?.sync_status,
        actions: rule.actions?.map((a) => a.sync_status),
      }));
    const pending = await listed();
    clock.advance(1000);
    const settled = await listed();
    if (shape === undefined) {
      expect(pending).toEqual([
        { action: 'pending', actions: ['pending', 'pending'] },
        { action: 'pending', actions: ['pending'] },
      ]);
      expect(settled).toEqual([
        { action: 'synced', actions: ['synced', 'error'] },
        { action: 'error', actions: ['error'] },
      ]);
    } else {
      expect(pending).toEqual([{ action: 'pending' }, { action: 'pending' }]);
      expect(settled).toEqual([{ action: 'synced' }, { action: 'error' }]);
    }
    const row = (await ruleList(api))[0];
    expect(Object.keys(row?.action ?? {})).not.toContain('sync_due');
  });

  it('refuses a sync delay that is not an integer >= 0 and an empty firewall name', async () => {
    for (const syncDelayMs of [-1, 1.5, Number.NaN]) {
      await expect(start({ syncDelayMs })).rejects.toThrow(
        'emulator: sync delay must be an integer number of milliseconds >= 0',
      );
    }
    await expect(start({ syncFail: ['waf-eu-1', ' '] })).rejects.toThrow(
      'emulator: sync-fail firewall names must not be empty',
    );
  });
});

describe('sync_status and the state file', () => {
  it('a pending action stays pending across a restart, whatever the new settings, and syncs on time', async () => {
    const statePath = join(dir, 'state.json');
    const first = await start({ statePath, syncDelayMs: 1000, syncFail: ['waf-us-1'] });
    const [id = ''] = await createRules(first, [ruleInput(TWO_FIREWALLS)]);
    clock.advance(400);
    await running.pop()?.close();

    // The outcome and its time were decided by the write: a restart without the options keeps them.
    const second = await start({ statePath });
    expect(await statuses(second, id)).toEqual(['waf-eu-1=pending', 'waf-us-1=pending']);
    clock.advance(600);
    expect(await statuses(second, id)).toEqual(['waf-eu-1=synced', 'waf-us-1=error']);
  });

  it('a journal replayed after a crash says the same as the emulator that wrote it', async () => {
    const statePath = join(dir, 'state.json');
    const api = await start({ statePath, syncDelayMs: 1000 });
    const [id = ''] = await createRules(api, [ruleInput()]);
    clock.advance(1000);
    await api.put(`/api/v1/application_rules/${id}`, { attrs: { priority: 'low' } });
    const image = await crashImage(statePath, join(dir, 'crash'));
    expect(await readFile(`${image}.journal`, 'utf8')).toContain('"sync_due"');

    const replayed = await start({ statePath: image });
    expect(await statuses(replayed, id)).toEqual(['waf-eu-1=pending']);
    clock.advance(1000);
    expect(await statuses(replayed, id)).toEqual(['waf-eu-1=synced']);
  });

  it('a state file and journal written before sync_due existed load, their statuses shown as stored', async () => {
    const statePath = join(dir, 'state.json');
    const rule = (id: string, status: string) => ({
      id,
      actions: [
        { application_rule_id: id, firewall_action: 'block', firewall_name: 'waf-eu-1', sync_status: status },
      ],
      conditions: [
        {
          id: `${id}0`,
          application_rule_id: id,
          operator: 'match',
          not_op: false,
          expressions: [{ expression: '^/admin', condition_id: `${id}0` }],
          targets: [{ target: 'path', condition_id: `${id}0` }],
        },
      ],
      alert_set_ids: [],
      description: `rule ${id}`,
      duration: null,
      enabled: true,
      priority: 'high',
      rq_host: 'shop.example.com',
      rule_set: null,
      rule_set_id: null,
      service: null,
      start_time: null,
      timestamp_create: 1_700_000_000_000_000,
      timestamp_update: 1_700_000_000_000_000,
      username: 'gitops-bot',
    });
    // Format 1 as an older wafctl wrote it: no rule_settings, no journal_seq, no sync_due.
    const old = {
      format_version: 1,
      users: [{ id: 'u-1000', username: 'admin' }],
      rules: [],
      groups: [],
      application_rules: [rule('1', 'synced')],
      notifications: [],
      schedules: [],
      next_ids: { group: 1, application_rule: 3, condition: 30, schedule: 1 },
    };
    await writeFile(statePath, JSON.stringify(old));
    const line = {
      seq: 1,
      changes: { application_rules: { upsert: [rule('2', 'Failed')], delete: [] } },
      next_ids: old.next_ids,
    };
    await writeFile(`${statePath}.journal`, `${JSON.stringify(line)}\n`);

    const api = await start({ statePath, syncDelayMs: 1000 });
    expect(await statuses(api, '1')).toEqual(['waf-eu-1=synced']);
    expect(await statuses(api, '2')).toEqual(['waf-eu-1=Failed']);
    expect((await getRule(api, '1')).username).toBe('gitops-bot');
  });
});
