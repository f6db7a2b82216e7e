/**
 * End-to-end fixtures: a real emulator on a free port, the environment the CLI needs to reach it,
 * an API client for out-of-band changes, and temporary configuration directories.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { onTestFinished } from 'vitest';
import { type ApiClient, type Clock, createApiClient } from '../../src/api/index.js';
import { DEMO_USERS } from '../../src/emulator/demo-directory.js';
import { type EmulatorOptions, startEmulator } from '../../src/emulator/index.js';

export const E2E_TOKEN = 'e2e-admin-token-7f3a9c';

export interface Stats {
  total: number;
  by_route: Record<string, number>;
}

export interface TestFirewall {
  url: string;
  /** WAF_URL and WAF_TOKEN for `runCli`. */
  env: Record<string, string>;
  api: ApiClient;
  /**
   * A client calling as a seeded user, with `userToken(username)` (the seed must give it: see
   * `ruleWritersSeed`): the emulator records that user as the `username` of the rules it updates,
   * and of those it creates without naming a creator.
   */
  as(username: string): ApiClient;
  stats(): Promise<Stats>;
  resetStats(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A clock that moves only when told: `advance(ms)`, or `sleep(ms)`, which moves it and resolves at
 * once. It is both the emulator's clock (`startTestFirewall({ clock })`: timestamps, sync delays) and
 * an API client's or a command's (`testIo({ clock })`): a command that polls with backoff then moves
 * the emulator's time by each wait, so a sync delay passes without a real sleep. `sleeps` records
 * the waits asked for. `timer(ms, fire)` (the deadline of `apply --wait`'s reads in flight) fires once
 * the clock is moved past it, by a sleep or by `advance`: a test moves it to say that time passed
 * while a request hung.
 */
export interface ManualClock extends Clock {
  advance(ms: number): void;
  readonly sleeps: number[];
  timer(ms: number, fire: () => void): () => void;
}

/** 2026-11-27 08:00:00 UTC: a fixed start, so that the timestamps a test sees are known. */
export const MANUAL_CLOCK_START = Date.UTC(2026, 10, 27, 8, 0, 0);

export function manualClock(startMs = MANUAL_CLOCK_START): ManualClock {
  let now = startMs;
  const sleeps: number[] = [];
  const timers = new Set<{ at: number; fire: () => void }>();
  const advance = (ms: number) => {
    if (!(Number.isFinite(ms) && ms >= 0)) throw new Error(`manualClock: cannot advance by ${ms} ms`);
    now += ms;
    for (const timer of [...timers].filter((t) => t.at <= now)) {
      timers.delete(timer);
      timer.fire();
    }
  };
  return {
    now: () => now,
    advance,
    sleeps,
    sleep: async (ms) => {
      sleeps.push(ms);
      advance(ms);
    },
    timer: (ms, fire) => {
      const timer = { at: now + ms, fire };
      timers.add(timer);
      return () => timers.delete(timer);
    },
    random: () => 0.5,
  };
}

/**
 * A running emulator (admin token E2E_TOKEN, free port). Any emulator option passes through: the
 * sync ones (`clock`, `syncDelayMs`, `syncFail`) make actions pending, then synced or error.
 */
export async function startTestFirewall(options: EmulatorOptions = {}): Promise<TestFirewall> {
  const emulator = await startEmulator({ port: 0, adminToken: E2E_TOKEN, ...options });
  return {
    url: emulator.url,
    env: { WAF_URL: emulator.url, WAF_TOKEN: E2E_TOKEN },
    api: createApiClient({ baseUrl: emulator.url, token: E2E_TOKEN }),
    as: (username) => createApiClient({ baseUrl: emulator.url, token: userToken(username) }),
    stats: async () => (await (await fetch(`${emulator.url}/__emulator/stats`)).json()) as Stats,
    resetStats: async () => {
      await fetch(`${emulator.url}/__emulator/stats/reset`, { method: 'POST' });
    },
    close: () => emulator.close(),
  };
}

/** The token `ruleWritersSeed` gives a user. */
export function userToken(username: string): string {
  return `token-of-${username}-0001`;
}

/**
 * A seed where `writers` may write application rules, each calling with `userToken(username)`
 * (`firewall.as(username)`): the directory is the demo's (alice is still `u-1001`, ...), plus a user
 * `u-NAME` for a writer it lacks, every user with its token; and one more group, `rule-writers`
 * (permission 1, "Handle rules"), holding the writers. A rule's `username` is then whoever updated it
 * last, or the creator its create named (else whoever created it).
 */
export function ruleWritersSeed(writers: readonly string[]): NonNullable<EmulatorOptions['seed']> {
  const known = new Set(DEMO_USERS.map((user) => user.username));
  const extra = writers
    .filter((name) => !known.has(name))
    .map((name) => ({ id: `u-${name}`, username: name }));
  const users = [...DEMO_USERS, ...extra].map((user) => ({ ...user, token: userToken(user.username) }));
  const idOf = new Map(users.map((user) => [user.username, user.id]));
  return {
    users,
    groups: [
      {
        name: 'rule-writers',
        permissions: [{ permission_id: 1, service_id: '' }],
        user_ids: [...new Set(writers)].map((name) => idOf.get(name) ?? name),
      },
    ],
  };
}

/** Writes `files` (relative path -> text) into `dir`, creating the directories they need. */
export async function writeFiles(dir: string, files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
}

/** Writes `files` (relative path -> YAML text) into a new temporary directory and returns it. */
export async function writeConfig(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'wafctl-config-'));
  await writeFiles(dir, files);
  return dir;
}

/**
 * A loopback URL that refuses connections (ECONNREFUSED), on a port this test holds until it ends:
 * the local end of a connection the test keeps open to a listener of its own. Nothing listens on
 * that port, and no other test can be given it (a freed port could be taken by another worker's
 * emulator at once).
 */
export async function unreachableUrl(): Promise<string> {
  const { createServer, connect } = await import('node:net');
  const accepted = new Set<import('node:net').Socket>();
  const server = createServer((socket) => accepted.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as import('node:net').AddressInfo;
  const held = connect({ host: '127.0.0.1', port });
  await new Promise<void>((resolve, reject) => held.once('connect', resolve).once('error', reject));
  onTestFinished(async () => {
    held.destroy();
    for (const socket of accepted) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return `http://127.0.0.1:${held.localPort}`;
}
