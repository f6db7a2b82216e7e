/**
 * Emulators as real processes (the built CLI, `npm run build`) on one state file: the kernel lock
 * refuses a second and a third while the first runs, in whatever pid namespace each runs, and is
 * released by the kernel when the first is killed with SIGKILL, so the next start needs nothing done
 * by hand and loads every acknowledged write. The lock itself: lock.test.ts.
 */
import { type ChildProcessWithoutNullStreams, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseProcStat, systemProcesses } from '../../src/emulator/persistence/lock.js';
import { type CliResult, spawnCli } from '../helpers/cli.js';
import { MULTIPART, makeTempDir, ruleInput, type WireApplicationRule } from './helpers.js';
import { type Served, serve } from './serve-cli.js';
import { eventually } from './state-helpers.js';

const TOKEN = 'lock-processes-admin-token';

/** The kernel lock is taken with util-linux `flock`; without it the emulator falls back to the pid. */
const haveFlock = spawnSync('flock', ['--version']).status === 0;

/** A new pid namespace needs root (CAP_SYS_ADMIN) and util-linux `unshare`, allowed by the sandbox. */
const UNSHARE = ['unshare', '--pid', '--fork', '--mount-proc', '--kill-child=SIGKILL'];
const canUnshare =
  process.getuid?.() === 0 && spawnSync(UNSHARE[0] ?? '', [...UNSHARE.slice(1), 'true']).status === 0;

let dir: string;
let cleanup: () => Promise<void>;
let statePath: string;
let lockPath: string;
let args: string[];
const running: ChildProcessWithoutNullStreams[] = [];

beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir());
  statePath = join(dir, 'state.json');
  lockPath = `${statePath}.lock`;
  await writeFile(join(dir, 'token'), `${TOKEN}\n`);
  args = ['--port', '0', '--admin-token-file', join(dir, 'token'), '--state', statePath];
});
afterEach(async () => {
  for (const child of running.splice(0)) child.kill('SIGKILL');
  await cleanup();
});

/** `wafctl emulator ARGS` in a new pid namespace, once it has printed its URL. */
async function serveInNewPidNamespace(): Promise<Served> {
  const served = await serve(args, {}, UNSHARE);
  running.push(served.child);
  return served;
}

/** `wafctl emulator ARGS` in a new pid namespace, run to its end. */
function runInNewPidNamespace(): Promise<CliResult> {
  return spawnCli(['emulator', ...args], { prefix: UNSHARE });
}

/** The pid, in this namespace, of `parent`'s child (the emulator that `unshare --fork` started). */
function childOf(parent: number): number {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(
        stat
          .slice(stat.lastIndexOf(')') + 1)
          .trim()
          .split(/\s+/)[1],
      );
      if (ppid === parent) return Number(entry);
    } catch {
      // Gone meanwhile.
    }
  }
  throw new Error(`no child of pid ${parent}`);
}

/** Creates `count` application rules; the ids and descriptions of those acknowledged (200). */
async function writeRules(url: string, prefix: string, count: number): Promise<Map<string, string>> {
  const acknowledged = new Map<string, string>();
  for (let index = 0; index < count; index++) {
    const description = `${prefix}${index}`;
    const response = await fetch(`${url}/api/v1/application_rules`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': MULTIPART },
      body: JSON.stringify({ rules: [ruleInput({ description })] }),
    });
    const body = (await response.json()) as { data?: { rule_ids: string[] } };
    expect(response.status).toBe(200);
    acknowledged.set(body.data?.rule_ids[0] ?? '', description);
  }
  return acknowledged;
}

async function listRules(url: string): Promise<Map<string, string | null>> {
  const response = await fetch(`${url}/api/v1/application_rules?paginate=false`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  const body = (await response.json()) as { data: { application_rules: WireApplicationRule[] } };
  return new Map(body.data.application_rules.map((rule) => [rule.id, rule.description]));
}

interface Record {
  pid: number;
  started: string;
  start_ticks?: number;
}

const readRecord = async (): Promise<Record> => JSON.parse(await readFile(lockPath, 'utf8')) as Record;

/** The refusal, as the CLI prints it on stderr. */
const refusal = (owner: string, record: Record) => [
  `Error: emulator state file ${statePath} is in use by ${owner} on host ${hostname()} (started ${record.started})`,
];

/**
 * After the owner's SIGKILL: a new emulator starts here at once, notes the takeover and serves
 * every acknowledged write.
 */
async function restartsWithEverything(record: Record, acknowledged: Map<string, string>): Promise<void> {
  expect(existsSync(lockPath)).toBe(true); // the record stays; the kernel lock went with the owner
  const next = await serve(args);
  running.push(next.child);
  await eventually(async () => next.stderr().includes('Note:'));
  expect(next.stderr().trim()).toBe(
    `Note: took over the lock ${lockPath} of pid ${record.pid} (started ${record.started}), which has ended (the kernel released its lock)`,
  );
  expect(await listRules(next.url)).toEqual(acknowledged);
  next.child.kill('SIGTERM');
  expect(await next.exit).toBe(0);
  expect(existsSync(lockPath)).toBe(false);
}

describe.skipIf(!haveFlock)('emulators on one state file (needs util-linux flock, absent here)', () => {
  it('a second and a third are refused at once while the first runs; after its kill -9 a new one starts with every acknowledged write', async () => {
    const first = await serve(args);
    running.push(first.child);
    const acknowledged = await writeRules(first.url, 'before-', 10);
    const record = await readRecord();
    expect(record.pid).toBe(first.child.pid);

    const refused = await Promise.all([spawnCli(['emulator', ...args]), spawnCli(['emulator', ...args])]);
    for (const result of refused) {
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr.trim().split('\n')).toEqual(refusal(`pid ${first.child.pid}`, record));
    }
    for (const [id, description] of await writeRules(first.url, 'after-', 5))
      acknowledged.set(id, description);

    first.child.kill('SIGKILL');
    expect(await first.exit).toBe(null);
    await restartsWithEverything(record, acknowledged);
  });

  // Needs root and a working `unshare --pid --fork --mount-proc` (util-linux): skipped otherwise.
  it.skipIf(!canUnshare)(
    'an owner in another pid namespace (unshare, as root): refused here, and the other way round; after its kill -9 one starts here',
    async () => {
      // The owner here, a second in a new pid namespace, where the owner's pid does not exist.
      const here = await serve(args);
      running.push(here.child);
      const hereRecord = await readRecord();
      const fromInside = await runInNewPidNamespace();
      expect(fromInside.code).toBe(1);
      expect(fromInside.stderr.trim().split('\n')).toEqual(
        refusal(`pid ${here.child.pid} of another pid namespace`, hereRecord),
      );
      here.child.kill('SIGTERM');
      expect(await here.exit).toBe(0);

      // The owner in a new pid namespace, a second here.
      const inside = await serveInNewPidNamespace();
      const acknowledged = await writeRules(inside.url, 'inside-', 10);
      const record = await readRecord();
      const emulatorPid = childOf(inside.child.pid ?? 0);
      expect(record.pid).not.toBe(emulatorPid); // its pid as its own namespace numbers it
      // From here that pid is no process, or another one: the pid-based lock would take it over.
      const seenHere = parseProcStat(systemProcesses.stat(record.pid) ?? '');
      expect(seenHere === undefined || seenHere.startTicks !== record.start_ticks).toBe(true);
      const second = await spawnCli(['emulator', ...args]);
      expect(second.code).toBe(1);
      expect(second.stderr.trim().split('\n')).toEqual(
        refusal(`pid ${record.pid} of another pid namespace`, record),
      );

      process.kill(emulatorPid, 'SIGKILL');
      await inside.exit; // unshare ends once the emulator it forked has been reaped
      await restartsWithEverything(record, acknowledged);
    },
  );
});
