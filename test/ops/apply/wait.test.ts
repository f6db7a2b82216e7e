/**
 * `apply --wait` (src/ops/apply/wait.ts): the rules an apply wrote are read back until every action
 * is synced, in error, or the timeout passes; on a fake clock (nothing sleeps) against a fake client
 * whose rules reach their status at a given time of that clock.
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/api/errors.js';
import type { ApiClient } from '../../../src/api/index.js';
import type { ApplicationRule } from '../../../src/api/records.js';
import type { Change } from '../../../src/core/model.js';
import type { ApplyReport } from '../../../src/ops/apply/model.js';
import { applyExitCode } from '../../../src/ops/apply/model.js';
import { renderApplyReport, renderEnforcement } from '../../../src/ops/apply/report.js';
import { applyReportDocument } from '../../../src/ops/apply/report-document.js';
import {
  type WaitOptions,
  type WrittenRule,
  waitClock,
  waitForEnforcement,
  writtenRules,
} from '../../../src/ops/apply/wait.js';
import { formatDuration, readDuration } from '../../../src/ops/apply/wait-timeout.js';
import { rule } from './helpers.js';

/**
 * A clock that moves only when slept on, or told to (`advance`: time passing while a read hangs),
 * recording each sleep; its timers fire once it moves past them.
 */
function fakeClock() {
  let now = 0;
  const sleeps: number[] = [];
  const timers = new Set<{ at: number; fire: () => void }>();
  const advance = (ms: number) => {
    now += ms;
    for (const timer of [...timers].filter((t) => t.at <= now)) {
      timers.delete(timer);
      timer.fire();
    }
  };
  return {
    now: () => now,
    sleeps,
    advance,
    /** Timers not yet fired nor cancelled. */
    timers: () => timers.size,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      advance(ms);
    },
    timer: (ms: number, fire: () => void) => {
      const timer = { at: now + ms, fire };
      timers.add(timer);
      return () => timers.delete(timer);
    },
  };
}

/**
 * A rule of the fake server: each firewall's status until `at`, then after it (ms on the clock), and
 * its `firewall_action` (default `block`, as `change` plans it).
 */
interface FakeRule {
  firewalls: Record<string, { after: string | undefined; at?: number; action?: string }>;
}

interface FakeServer {
  api: ApiClient;
  /** The `id_list` of each listing call, and the id of each GET-one, in order. */
  listed: string[][];
  got: string[];
  /** The most calls in flight at once. */
  maxInFlight(): number;
  /** The signal each call was given, in order. */
  signals: (AbortSignal | undefined)[];
}

/** A call that never answers: it rejects once its signal aborts (at once if it has), as the API client's do. */
function hung(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_, reject) => {
    const cancelled = () => reject(new Error('cancelled'));
    if (signal?.aborted) cancelled();
    signal?.addEventListener('abort', cancelled, { once: true });
  });
}

/**
 * A client of `rules` on `clock`: the listing filtered by `id_list` gives complete rows (or, with
 * `incomplete`, rows with a single `action`); GET-one answers 404 for an unknown id. `onRead` runs
 * as each call starts; a call for which `hangs` (given the call's number, from 1) is true never
 * answers: it rejects once its signal aborts.
 */
function fakeServer(
  rules: Record<string, FakeRule>,
  clock: { now(): number },
  options: {
    incomplete?: boolean;
    onRead?: () => void;
    fail?: Error;
    hangs?: (call: number) => boolean;
  } = {},
): FakeServer {
  const listed: string[][] = [];
  const got: string[] = [];
  const signals: (AbortSignal | undefined)[] = [];
  let inFlight = 0;
  let most = 0;
  const row = (id: string): ApplicationRule => {
    const firewalls = Object.entries(rules[id]?.firewalls ?? {});
    const actions = firewalls.map(([name, { after, at = 0, action = 'block' }]) => {
      const status = clock.now() >= at ? after : 'pending';
      return {
        firewall_action: action,
        firewall_name: name,
        ...(status === undefined ? {} : { sync_status: status }),
      };
    });
    return { id, rq_host: 'shop.example.com', description: id, actions, complete: true } as ApplicationRule;
  };
  /** One call: counted in flight across a turn of the event loop, so concurrent ones overlap. */
  const call = async <T>(signal: AbortSignal | undefined, answer: () => T): Promise<T> => {
    signals.push(signal);
    options.onRead?.();
    if (options.hangs?.(signals.length)) return hung(signal);
    inFlight += 1;
    most = Math.max(most, inFlight);
    await new Promise((resolve) => setImmediate(resolve));
    inFlight -= 1;
    if (options.fail !== undefined) throw options.fail;
    return answer();
  };
  const applicationRules = {
    async *pages(filters: { id_list?: readonly string[] } = {}, { signal }: { signal?: AbortSignal } = {}) {
      const ids = [...(filters.id_list ?? [])];
      listed.push(ids);
      yield await call(signal, () =>
        ids
          .filter((id) => rules[id] !== undefined)
          .map((id) => {
            const full = row(id);
            if (!options.incomplete) return full;
            return { ...full, actions: full.actions.slice(0, 1), complete: false };
          }),
      );
    },
    get: (id: string, { signal }: { signal?: AbortSignal } = {}) => {
      got.push(id);
      return call(signal, () => {
        if (rules[id] === undefined) {
          throw new ApiError({ method: 'GET', path: `/api/v1/application_rules/${id}`, status: 404 });
        }
        return row(id);
      });
    },
  };
  return {
    api: { applicationRules } as unknown as ApiClient,
    listed,
    got,
    signals,
    maxInFlight: () => most,
  };
}

const change = (description: string, firewalls = ['waf-eu-1']): Change => ({
  kind: 'application_rule',
  key: `shop.example.com/${description}`,
  action: 'create',
  fields: [],
  before: null,
  after: {
    ...rule(description, '^/admin'),
    actions: firewalls.map((name) => ({ firewall_action: 'block', firewall_name: name })),
  },
  impact: [],
});

/** Rules written as `ids`, each planned on `firewalls`. */
const writtenOn = (firewalls: string[], ...ids: string[]): WrittenRule[] =>
  ids.map((id) => ({ change: change(id, firewalls), id }));
const written = (...ids: string[]): WrittenRule[] => writtenOn(['waf-eu-1'], ...ids);

function options(clock: ReturnType<typeof fakeClock>, more: Partial<WaitOptions> = {}): WaitOptions {
  return {
    timeoutMs: 60_000,
    concurrency: 4,
    batchSize: 100,
    clock: waitClock(clock.now, clock.sleep, clock.timer),
    ...more,
  };
}

describe('waitForEnforcement', () => {
  it('polls with backoff until every action is synced, then reports each rule and firewall', async () => {
    const clock = fakeClock();
    const server = fakeServer(
      {
        r1: {
          firewalls: { 'waf-eu-1': { after: 'synced', at: 2500 }, 'waf-us-1': { after: 'synced', at: 500 } },
        },
      },
      clock,
    );
    const rules = writtenOn(['waf-eu-1', 'waf-us-1'], 'r1');
    const enforcement = await waitForEnforcement(server.api, rules, options(clock));
    // Reads at 0, 1 s and 3 s: synced at 2.5 s, seen at 3 s.
    expect(clock.sleeps).toEqual([1000, 2000]);
    expect(enforcement).toMatchObject({
      result: 'enforced',
      polls: 3,
      waitedMs: 3000,
      requests: 3,
      rules: 1,
    });
    expect(
      enforcement.actions.map(({ id, firewall, status, state }) => ({ id, firewall, status, state })),
    ).toEqual([
      { id: 'r1', firewall: 'waf-eu-1', status: 'synced', state: 'synced' },
      { id: 'r1', firewall: 'waf-us-1', status: 'synced', state: 'synced' },
    ]);
    expect(renderEnforcement(enforcement)).toBe(
      'Enforced: 1 application rule synced on waf-eu-1, waf-us-1.\n',
    );
  });

  it('re-reads only the rules not yet settled', async () => {
    const clock = fakeClock();
    const server = fakeServer(
      {
        a: { firewalls: { 'waf-eu-1': { after: 'synced' } } },
        b: { firewalls: { 'waf-eu-1': { after: 'error', at: 1500 } } },
        c: { firewalls: { 'waf-eu-1': { after: 'synced', at: 2000 } } },
      },
      clock,
    );
    const enforcement = await waitForEnforcement(server.api, written('a', 'b', 'c'), options(clock));
    expect(server.listed).toEqual([
      ['a', 'b', 'c'],
      ['b', 'c'],
      ['b', 'c'],
    ]);
    expect(server.got).toEqual([]);
    expect(enforcement.result).toBe('not_enforced');
    expect(enforcement.actions.map((a) => [a.id, a.state])).toEqual([
      ['a', 'synced'],
      ['b', 'error'],
      ['c', 'synced'],
    ]);
    expect(renderEnforcement(enforcement)).toBe(
      [
        '  ! application_rule.shop.example.com/b on waf-eu-1: sync error (sync_status "error")',
        '',
        'Not enforced: 1 of 3 application rules not synced on waf-eu-1.',
        '',
      ].join('\n'),
    );
  });

  it('keeps polling a value it does not know until the timeout, on the documented backoff, then reports it as is', async () => {
    const clock = fakeClock();
    const server = fakeServer({ r1: { firewalls: { 'waf-eu-1': { after: 'Quarantined' } } } }, clock);
    const enforcement = await waitForEnforcement(
      server.api,
      written('r1'),
      options(clock, { timeoutMs: 30_000 }),
    );
    // 1 s doubling up to 10 s, the last sleep up to the timeout, where the wait ends: no read
    // starts at the deadline (it would have no time left).
    expect(clock.sleeps).toEqual([1000, 2000, 4000, 8000, 10_000, 5000]);
    expect(enforcement).toMatchObject({ result: 'timed_out', polls: 6, waitedMs: 30_000 });
    expect(enforcement.actions).toMatchObject([
      { firewall: 'waf-eu-1', status: 'Quarantined', state: 'unknown' },
    ]);
    const text = renderEnforcement(enforcement);
    expect(text).toContain(
      '  ! application_rule.shop.example.com/r1 on waf-eu-1: not synced within 30s (sync_status "Quarantined", a value wafctl does not know)',
    );
    expect(text).toContain('Not enforced within 30s: 1 of 1 application rule not synced on waf-eu-1.');
  });

  it('an action without sync_status is not enforced, and its status is left out', async () => {
    const clock = fakeClock();
    const server = fakeServer({ r1: { firewalls: { 'waf-eu-1': { after: undefined } } } }, clock);
    const enforcement = await waitForEnforcement(
      server.api,
      written('r1'),
      options(clock, { timeoutMs: 1000 }),
    );
    expect(enforcement.result).toBe('timed_out');
    expect(enforcement.actions[0]).not.toHaveProperty('status');
    expect(enforcement.actions[0]?.state).toBe('unknown');
    expect(renderEnforcement(enforcement)).toContain('not synced within 1s (no sync_status)');
  });

  it('lists up to batchSize ids a call, with at most `concurrency` calls in flight', async () => {
    const clock = fakeClock();
    const ids = ['a', 'b', 'c', 'd', 'e'];
    const rules = Object.fromEntries(
      ids.map((id) => [id, { firewalls: { 'waf-eu-1': { after: 'synced' } } }]),
    );
    const server = fakeServer(rules, clock);
    const enforcement = await waitForEnforcement(
      server.api,
      written(...ids),
      options(clock, { batchSize: 2, concurrency: 2 }),
    );
    expect(server.listed).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    expect(server.maxInFlight()).toBe(2);
    expect(enforcement).toMatchObject({ result: 'enforced', polls: 1, requests: 3 });
  });

  it('reads with GET-one, bounded, once the listing gives rows without their actions', async () => {
    const clock = fakeClock();
    const ids = Array.from({ length: 10 }, (_, i) => `r${i}`);
    const rules = Object.fromEntries(
      ids.map((id) => [
        id,
        { firewalls: { 'waf-eu-1': { after: 'synced', at: 1000 }, 'waf-us-1': { after: 'synced' } } },
      ]),
    );
    const server = fakeServer(rules, clock, { incomplete: true });
    const enforcement = await waitForEnforcement(
      server.api,
      writtenOn(['waf-eu-1', 'waf-us-1'], ...ids),
      options(clock, { concurrency: 3 }),
    );
    // Round 1: the listing, then GET-one for each row (a single action is not the rule's all);
    // round 2: GET-one only.
    expect(server.listed).toEqual([ids]);
    expect(server.got).toEqual([...ids, ...ids]);
    expect(server.maxInFlight()).toBe(3);
    expect(enforcement).toMatchObject({ result: 'enforced', polls: 2, requests: 21 });
    expect(enforcement.actions).toHaveLength(20);
  });

  it('a rule no longer found is missing, on the firewalls the plan gave it', async () => {
    const clock = fakeClock();
    const server = fakeServer({}, clock);
    const rules = [{ change: change('gone', ['waf-eu-1', 'waf-us-1']), id: '41' }];
    const enforcement = await waitForEnforcement(server.api, rules, options(clock));
    expect(enforcement.result).toBe('not_enforced');
    expect(enforcement.actions.map((a) => [a.firewall, a.firewall_action, a.state])).toEqual([
      ['waf-eu-1', 'block', 'missing'],
      ['waf-us-1', 'block', 'missing'],
    ]);
    expect(renderEnforcement(enforcement)).toContain(
      '  ! application_rule.shop.example.com/gone on waf-eu-1: not found when read back (deleted or changed since it was written)',
    );
  });

  it('a read that fails ends the wait: unreadable, with the error', async () => {
    const clock = fakeClock();
    const fail = new ApiError({ method: 'GET', path: '/api/v1/application_rules', status: 403 });
    const server = fakeServer({ r1: { firewalls: { 'waf-eu-1': { after: 'synced' } } } }, clock, { fail });
    const enforcement = await waitForEnforcement(server.api, written('r1'), options(clock));
    expect(enforcement.result).toBe('unreadable');
    expect(enforcement.error?.message).toBe(fail.message);
    expect(enforcement.actions).toMatchObject([{ firewall: 'waf-eu-1', state: 'unknown' }]);
    expect(renderEnforcement(enforcement)).toContain(
      `Could not read the rules back to wait for them: ${fail.message}. The writes are done, but whether 1 application rule is enforced is unknown.`,
    );
  });

  it('an interrupt stops the wait cleanly, keeping what it last read', async () => {
    const clock = fakeClock();
    const controller = new AbortController();
    let reads = 0;
    const server = fakeServer({ r1: { firewalls: { 'waf-eu-1': { after: 'synced', at: 60_000 } } } }, clock, {
      onRead: () => {
        reads += 1;
        if (reads === 2) controller.abort();
      },
    });
    const enforcement = await waitForEnforcement(
      server.api,
      written('r1'),
      options(clock, { signal: controller.signal }),
    );
    expect(enforcement).toMatchObject({ result: 'interrupted', polls: 2 });
    expect(enforcement.actions).toMatchObject([{ status: 'pending', state: 'pending' }]);
    // The sleep after the interrupted read returns at once: no third read, and no more waiting.
    expect(reads).toBe(2);
    expect(renderEnforcement(enforcement)).toContain(
      'Stopped waiting for enforcement (interrupted): the writes are done; 1 of 1 application rule not confirmed synced.',
    );
  });

  it('nothing to wait for: no read at all', async () => {
    const clock = fakeClock();
    const server = fakeServer({}, clock);
    const enforcement = await waitForEnforcement(server.api, [], options(clock));
    expect(enforcement).toMatchObject({ result: 'enforced', polls: 0, requests: 0, actions: [] });
    expect(server.listed).toEqual([]);
    expect(renderEnforcement(enforcement)).toContain('nothing to wait for');
  });
});

describe('enforced means read back as written', () => {
  const ADMIN = 'application_rule.shop.example.com/admin';
  it.each([
    {
      lie: 'a rule read back with no action at all',
      planned: ['waf-us-1'],
      read: {},
      lines: [`  ! ${ADMIN} on waf-us-1: not read back (the rule read back has no action on this firewall)`],
      states: [['waf-us-1', 'missing']],
      on: 'waf-us-1',
    },
    {
      lie: 'a planned firewall missing from the read',
      planned: ['waf-eu-1', 'waf-us-1'],
      read: { 'waf-eu-1': { after: 'synced' } },
      lines: [`  ! ${ADMIN} on waf-us-1: not read back (the rule read back has no action on this firewall)`],
      states: [
        ['waf-eu-1', 'synced'],
        ['waf-us-1', 'missing'],
      ],
      on: 'waf-us-1',
    },
    {
      lie: 'another firewall named',
      planned: ['waf-us-1'],
      read: { 'waf-xx-9': { after: 'synced' } },
      lines: [
        `  ! ${ADMIN} on waf-us-1: not read back (the rule read back has no action on this firewall)`,
        `  ! ${ADMIN} on waf-xx-9: read back as block, on a firewall not planned`,
      ],
      states: [
        ['waf-us-1', 'missing'],
        ['waf-xx-9', 'unplanned'],
      ],
      on: 'waf-us-1, waf-xx-9',
    },
    {
      lie: 'a changed firewall_action',
      planned: ['waf-us-1'],
      read: { 'waf-us-1': { after: 'synced', action: 'log' } },
      lines: [`  ! ${ADMIN} on waf-us-1: read back as log, planned block`],
      states: [['waf-us-1', 'changed']],
      on: 'waf-us-1',
    },
  ])(
    '$lie, synced or not, is not enforced, and said so at once',
    async ({ planned, read, lines, states, on }) => {
      const clock = fakeClock();
      const server = fakeServer({ admin: { firewalls: read as FakeRule['firewalls'] } }, clock);
      const enforcement = await waitForEnforcement(server.api, writtenOn(planned, 'admin'), options(clock));
      // Settled at the first read: what was read back is not what was written, and waiting would
      // not make it so.
      expect(enforcement).toMatchObject({ result: 'not_enforced', polls: 1 });
      expect(enforcement.actions.map((a) => [a.firewall, a.state])).toEqual(states);
      expect(renderEnforcement(enforcement)).toBe(
        [...lines, '', `Not enforced: 1 of 1 application rule not synced on ${on}.`, ''].join('\n'),
      );
      const report: ApplyReport = { results: [], refused: [], enforcement };
      expect(applyExitCode(report)).toBe(1);
      const document = applyReportDocument(report, { exit_code: 1, duration_ms: 0 }).enforcement;
      expect(document?.summary.synced).toBe(states.filter(([, state]) => state === 'synced').length);
      const reasons = document?.actions.flatMap((a) =>
        a.reason === undefined ? [] : [`${a.firewall}: ${a.reason}`],
      );
      expect(reasons).toEqual(lines.map((line) => line.split(`${ADMIN} on `)[1]));
    },
  );

  it('a changed action says what it was read back as and what was planned, in the JSON too', async () => {
    const clock = fakeClock();
    const server = fakeServer(
      { admin: { firewalls: { 'waf-us-1': { after: 'synced', action: 'log' } } } },
      clock,
    );
    const enforcement = await waitForEnforcement(
      server.api,
      writtenOn(['waf-us-1'], 'admin'),
      options(clock),
    );
    const document = applyReportDocument(
      { results: [], refused: [], enforcement },
      { exit_code: 1, duration_ms: 0 },
    ).enforcement;
    expect(document?.actions).toEqual([
      {
        kind: 'application_rule',
        key: 'shop.example.com/admin',
        address: 'application_rule.shop.example.com/admin',
        id: 'admin',
        firewall: 'waf-us-1',
        firewall_action: 'log',
        planned_action: 'block',
        status: 'synced',
        state: 'changed',
        reason: 'read back as log, planned block',
      },
    ]);
    expect(document?.summary).toMatchObject({ actions: 1, synced: 0, changed: 1, unplanned: 0, missing: 0 });
  });

  it('a firewall given two actions pairs each with its own: one read back as written, one changed', async () => {
    const clock = fakeClock();
    const server = fakeServer(
      { admin: { firewalls: { 'waf-us-1': { after: 'synced', action: 'log' } } } },
      clock,
    );
    const twice: Change = {
      ...change('admin'),
      after: {
        ...change('admin').after,
        actions: [
          { firewall_action: 'block', firewall_name: 'waf-us-1' },
          { firewall_action: 'log', firewall_name: 'waf-us-1' },
        ],
      },
    } as Change;
    const enforcement = await waitForEnforcement(
      server.api,
      [{ change: twice, id: 'admin' }],
      options(clock),
    );
    expect(enforcement.result).toBe('not_enforced');
    // The one `log` read back is the planned `log`: the planned `block` is what is missing.
    expect(enforcement.actions.map((a) => [a.firewall_action, a.state])).toEqual([
      ['block', 'missing'],
      ['log', 'synced'],
    ]);
  });
});

describe('the timeout bounds the whole wait, reads in flight included', () => {
  it('a read that hangs past the deadline is cancelled, and the wait ends at the deadline: timed_out', async () => {
    const clock = fakeClock();
    // The first call hangs while the run's time passes beyond the 3 s timeout.
    const server = fakeServer({ r1: { firewalls: { 'waf-eu-1': { after: 'synced' } } } }, clock, {
      hangs: () => {
        // Once the call hangs: the time passes.
        queueMicrotask(() => clock.advance(5000));
        return true;
      },
    });
    const enforcement = await waitForEnforcement(
      server.api,
      written('r1'),
      options(clock, { timeoutMs: 3000 }),
    );
    expect(server.signals).toHaveLength(1);
    expect(server.signals[0]?.aborted).toBe(true);
    expect(enforcement).toMatchObject({ result: 'timed_out', polls: 1 });
    expect(clock.sleeps).toEqual([]);
    expect(enforcement.actions).toMatchObject([{ firewall: 'waf-eu-1', state: 'unknown', absent: 'unread' }]);
    expect(renderEnforcement(enforcement)).toBe(
      [
        '  ! application_rule.shop.example.com/r1 on waf-eu-1: not synced within 3s (not read)',
        '',
        'Not enforced within 3s: 1 of 1 application rule not synced on waf-eu-1.',
        '',
      ].join('\n'),
    );
    const report: ApplyReport = { results: [], refused: [], enforcement };
    expect(applyExitCode(report)).toBe(1);
  });

  it('a read cancelled in a later round keeps what the rounds before read', async () => {
    const clock = fakeClock();
    const server = fakeServer({ r1: { firewalls: { 'waf-eu-1': { after: 'synced', at: 60_000 } } } }, clock, {
      hangs: (call) => {
        if (call < 3) return false;
        queueMicrotask(() => clock.advance(60_000));
        return true;
      },
    });
    const enforcement = await waitForEnforcement(
      server.api,
      written('r1'),
      options(clock, { timeoutMs: 10_000 }),
    );
    // Reads at 0 and 1 s; the third, at 3 s, hangs past 10 s and is cancelled there.
    expect(clock.sleeps).toEqual([1000, 2000]);
    expect(server.signals.map((signal) => signal?.aborted)).toEqual([true, true, true]);
    expect(enforcement).toMatchObject({ result: 'timed_out', polls: 3 });
    expect(enforcement.actions).toMatchObject([{ status: 'pending', state: 'pending' }]);
    expect(renderEnforcement(enforcement)).toContain(
      'on waf-eu-1: not synced within 10s (sync_status "pending")',
    );
  });

  it('an interrupt cancels the read in flight too', async () => {
    const clock = fakeClock();
    const controller = new AbortController();
    const server = fakeServer({ r1: { firewalls: { 'waf-eu-1': { after: 'synced' } } } }, clock, {
      hangs: () => {
        queueMicrotask(() => controller.abort());
        return true;
      },
    });
    const enforcement = await waitForEnforcement(
      server.api,
      written('r1'),
      options(clock, { signal: controller.signal }),
    );
    expect(server.signals[0]?.aborted).toBe(true);
    expect(enforcement).toMatchObject({ result: 'interrupted', polls: 1 });
  });

  it('the deadline is let go of once the wait ends', async () => {
    const clock = fakeClock();
    const server = fakeServer({ r1: { firewalls: { 'waf-eu-1': { after: 'synced' } } } }, clock);
    const enforcement = await waitForEnforcement(server.api, written('r1'), options(clock));
    expect(enforcement.result).toBe('enforced');
    expect(clock.timers()).toBe(0);
  });
});

describe('waitClock', () => {
  it("ends the caller's sleep early when the signal aborts", async () => {
    const never = () => new Promise<void>(() => {});
    const clock = waitClock(() => 0, never);
    const controller = new AbortController();
    const slept = clock.sleep(10_000, controller.signal);
    controller.abort();
    await expect(slept).resolves.toBeUndefined();
    // Already aborted: at once.
    await expect(clock.sleep(10_000, controller.signal)).resolves.toBeUndefined();
  });
});

describe('writtenRules', () => {
  it('waits for rules created, replaced (the new one) or updated and done; not deletes, failures or other kinds', () => {
    const created = change('created');
    const updated: Change = {
      ...change('updated'),
      action: 'update',
      id: '7',
      fingerprint: '',
      before: {},
      fields: ['priority'],
    } as Change;
    const replaced: Change = {
      ...change('replaced'),
      action: 'replace',
      id: '8',
      fingerprint: '',
      before: {},
    } as Change;
    const deleted: Change = {
      ...change('deleted'),
      action: 'delete',
      id: '9',
      fingerprint: '',
      before: {},
      after: null,
    } as Change;
    const group: Change = {
      kind: 'group',
      key: 'soc',
      action: 'create',
      fields: [],
      before: null,
      after: {},
      impact: [],
    };
    const report: ApplyReport = {
      results: [
        { change: created, operation: 'create', outcome: { status: 'done', id: '10' } },
        { change: updated, operation: 'update', outcome: { status: 'done' } },
        { change: replaced, operation: 'create', outcome: { status: 'done', id: '11', ambiguous: true } },
        { change: replaced, operation: 'delete', outcome: { status: 'done' } },
        { change: deleted, operation: 'delete', outcome: { status: 'done' } },
        { change: change('failed'), operation: 'create', outcome: { status: 'failed', message: 'no' } },
        { change: group, operation: 'create', outcome: { status: 'done', id: '3' } },
      ],
      refused: [],
    };
    expect(writtenRules(report).map(({ change: c, id }) => [c.key, id])).toEqual([
      ['shop.example.com/created', '10'],
      ['shop.example.com/updated', '7'],
      ['shop.example.com/replaced', '11'],
    ]);
  });
});

describe('the apply report with --wait', () => {
  const applied = (enforcement: ApplyReport['enforcement']): ApplyReport => ({
    results: [{ change: change('r1'), operation: 'create', outcome: { status: 'done', id: '10' } }],
    refused: [],
    requests: 2,
    enforcement,
  });
  const timedOut: ApplyReport['enforcement'] = {
    result: 'timed_out',
    timeoutMs: 300_000,
    waitedMs: 300_000,
    polls: 34,
    requests: 34,
    rules: 1,
    actions: [
      {
        change: change('r1'),
        id: '10',
        firewall: 'waf-eu-1',
        firewall_action: 'block',
        status: 'pending',
        state: 'pending',
      },
    ],
  };

  it('exits 1 unless every action is synced', () => {
    expect(applyExitCode(applied(undefined))).toBe(0);
    expect(applyExitCode(applied({ ...timedOut, result: 'enforced' }))).toBe(0);
    expect(applyExitCode(applied(timedOut))).toBe(1);
  });

  it('the JSON document carries each rule and firewall with its status; absent without --wait', () => {
    const meta = { exit_code: 1, duration_ms: 300_100 };
    expect(applyReportDocument(applied(undefined), meta)).not.toHaveProperty('enforcement');
    expect(applyReportDocument(applied(timedOut), meta).enforcement).toEqual({
      result: 'timed_out',
      timeout_ms: 300_000,
      waited_ms: 300_000,
      polls: 34,
      requests: 34,
      summary: {
        rules: 1,
        actions: 1,
        synced: 0,
        pending: 1,
        error: 0,
        unknown: 0,
        missing: 0,
        changed: 0,
        unplanned: 0,
      },
      actions: [
        {
          kind: 'application_rule',
          key: 'shop.example.com/r1',
          address: 'application_rule.shop.example.com/r1',
          id: '10',
          firewall: 'waf-eu-1',
          firewall_action: 'block',
          status: 'pending',
          state: 'pending',
          reason: 'not synced within 5m (sync_status "pending")',
        },
      ],
    });
  });

  it('the text report names each rule and firewall not enforced, escaped', () => {
    const evil = {
      ...timedOut,
      actions: [{ ...timedOut.actions[0]!, firewall: 'waf\n! forged', status: 'x\u001b[2K' }],
    };
    const text = renderApplyReport(applied(evil));
    expect(text).toContain(
      '  ! application_rule.shop.example.com/r1 on waf\\n! forged: not synced within 5m (sync_status "x\\u001b[2K")',
    );
    expect(text).not.toContain('\u001b');
  });
});

describe('--wait-timeout durations', () => {
  it.each([
    ['90s', 90_000],
    ['5m', 300_000],
    ['1m30s', 90_000],
    ['1.5m', 90_000],
    ['250ms', 250],
    ['1h', 3_600_000],
    ['300', 300_000],
    [' 2s ', 2000],
  ])('%j is %d ms', (text, ms) => {
    expect(readDuration(text)).toBe(ms);
  });

  it.each(['', '0', '0s', '-5s', '5 m', 'm', '5x', '1e3s', 'Infinity', '5m-', 's5'])(
    '%j is refused',
    (text) => {
      expect(readDuration(text)).toBeUndefined();
    },
  );

  it.each([
    [300_000, '5m'],
    [90_000, '1m30s'],
    [1500, '1.5s'],
    [250, '250ms'],
    [3_600_000, '1h'],
    [3_661_000, '1h1m1s'],
  ])('%d ms is %j', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});
