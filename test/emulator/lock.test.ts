/**
 * The state file's lock: the kernel's flock held while it is taken, the record of an owner that held
 * it, the lock without `flock`; when a record's holder counts as gone (its pid reused by this very
 * process, a zombie, another process under the same pid, another boot), and a full disk at takeover.
 * Processes on one state file, in pid namespaces too: lock-processes.test.ts.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, readdir, readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  acquireLock,
  type ProcessTable,
  parseProcStat,
  type StateLock,
  systemProcesses,
} from '../../src/emulator/persistence/lock.js';
import { makeTempDir } from './helpers.js';
import { diskError, eventually, startupError } from './state-helpers.js';

let dir: string;
let cleanup: () => Promise<void>;
let statePath: string;
const locks: StateLock[] = [];

beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir());
  statePath = join(dir, 'state.json');
});
afterEach(async () => {
  for (const lock of locks.splice(0)) await lock.release();
  await cleanup();
});

/** A /proc/PID/stat line: command name with spaces and parentheses, the given state and start time. */
function statLine(pid: number, state: string, startTicks: number): string {
  const middle = `1 1 1 0 -1 4194304 100 0 0 0 0 0 0 0 20 0 1 0 ${startTicks} 3133440 389`;
  return `${pid} (node (x) y) ${state} ${middle}\n`;
}

/** A host whose processes are `running` (pid -> stat line); this process is pid 4242. */
function fakeHost(running: Record<number, string>, bootId = 'boot-now'): ProcessTable {
  return {
    pid: 4242,
    stat: (pid) => running[pid],
    bootId: () => bootId,
    exists: (pid) => running[pid] !== undefined,
  };
}

async function writeLock(holder: Record<string, unknown>): Promise<void> {
  const lock = { hostname: hostname(), started: '2020-01-01T00:00:00.000Z', token: 'earlier-run', ...holder };
  await writeFile(`${statePath}.lock`, JSON.stringify(lock));
}

async function take(
  processes?: ProcessTable,
  flockCommand?: string,
): Promise<{ lock: StateLock; notices: string[] }> {
  const notices: string[] = [];
  const lock = await acquireLock(statePath, {
    notice: (message) => notices.push(message),
    ...(processes === undefined ? {} : { processes }),
    ...(flockCommand === undefined ? {} : { flockCommand }),
  });
  locks.push(lock);
  return { lock, notices };
}

async function refusal(processes: ProcessTable, flockCommand?: string): Promise<string> {
  const error = await take(processes, flockCommand).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof Error)) throw new Error('expected the lock to be refused');
  return error.message;
}

const tookOver = (pid: number, why: string) =>
  `took over the lock ${statePath}.lock of pid ${pid} (started 2020-01-01T00:00:00.000Z), ${why}`;

describe('parseProcStat', () => {
  it('reads state and start time after the last parenthesis, whatever the command name holds', () => {
    expect(parseProcStat(statLine(7, 'Z', 58982))).toEqual({ state: 'Z', startTicks: 58982 });
    expect(parseProcStat('7 (a) b) S 1 2')).toBeUndefined();
    expect(parseProcStat('garbage')).toBeUndefined();
  });

  it('reads this process as /proc shows it (Linux), and the lock records it', async () => {
    const stat = systemProcesses.stat(process.pid);
    if (stat === undefined) {
      expect(existsSync('/proc/self/stat')).toBe(false); // not Linux: nothing to record
      return;
    }
    const mine = parseProcStat(stat);
    expect(mine?.state).toMatch(/^[RS]$/);
    await take();
    const written = JSON.parse(await readFile(`${statePath}.lock`, 'utf8'));
    expect(written).toMatchObject({ pid: process.pid, start_ticks: mine?.startTicks, kernel_lock: true });
    expect(written.boot_id).toBe(systemProcesses.bootId());
    expect(written.pid_ns).toMatch(/^pid:\[\d+\]$/);
  });
});

describe('a stale lock is taken over', () => {
  it("when its pid is this process's own and this process does not hold it (a new pid namespace)", async () => {
    await writeLock({ pid: process.pid });
    const { notices } = await take();
    expect(notices).toEqual([
      tookOver(process.pid, "whose pid is this process's own (a restart in a new pid namespace)"),
    ]);
    expect(JSON.parse(await readFile(`${statePath}.lock`, 'utf8'))).toMatchObject({ pid: process.pid });
  });

  it('but not when this process holds it (a second emulator in the same process)', async () => {
    const { lock } = await take();
    const holder = JSON.parse(await readFile(lock.path, 'utf8'));
    expect(await refusal(systemProcesses)).toBe(
      `emulator state file ${statePath} is in use by pid ${process.pid} on host ${hostname()} (started ${holder.started})`,
    );
  });

  it('when its pid is a zombie', async () => {
    await writeLock({ pid: 77, start_ticks: 500 });
    const { notices } = await take(fakeHost({ 77: statLine(77, 'Z', 500) }));
    expect(notices).toEqual([tookOver(77, 'which has exited (a zombie, not yet reaped)')]);
  });

  it('when its pid now belongs to a process started at another time; honoured while it is the same', async () => {
    await writeLock({ pid: 77, start_ticks: 500, boot_id: 'boot-now' });
    expect(await refusal(fakeHost({ 77: statLine(77, 'S', 500) }))).toContain('is in use by pid 77');
    const { notices } = await take(fakeHost({ 77: statLine(77, 'S', 9_000) }));
    expect(notices).toEqual([tookOver(77, 'whose pid now belongs to another process')]);
  });

  it('when the host has restarted since (another boot id), though its pid runs', async () => {
    await writeLock({ pid: 77, start_ticks: 500, boot_id: 'boot-before' });
    const { notices } = await take(fakeHost({ 77: statLine(77, 'S', 500) }));
    expect(notices).toEqual([tookOver(77, 'which ran before the host restarted')]);
  });

  it('without /proc, by kill(pid, 0) alone; a lock without start time is honoured while its pid runs', async () => {
    const noProc: ProcessTable = {
      pid: 4242,
      stat: () => undefined,
      bootId: () => undefined,
      exists: (pid) => pid === 77,
    };
    await writeLock({ pid: 77 });
    expect(await refusal(noProc)).toContain('is in use by pid 77');
    await writeLock({ pid: 78, boot_id: 'boot-before' });
    const { notices } = await take(noProc);
    expect(notices).toEqual([tookOver(78, 'which is no longer running')]);
  });

  // A real zombie: `sh` starts a short sleep in the background, then becomes a long sleep that never
  // reaps it. Only Linux's /proc tells a zombie apart; elsewhere it counts as running (honoured).
  it('when its pid is a real zombie on this host (Linux; elsewhere the lock is honoured)', async () => {
    const parent = spawn('sh', ['-c', 'sleep 0.05 & echo $!; exec sleep 30'], { stdio: 'pipe' });
    try {
      const zombie = await new Promise<number>((resolve) =>
        parent.stdout.setEncoding('utf8').once('data', (line: string) => resolve(Number(line.trim()))),
      );
      await writeLock({ pid: zombie });
      if (!existsSync('/proc/self/stat')) {
        expect(await refusal(systemProcesses)).toContain(`is in use by pid ${zombie}`);
        return;
      }
      await eventually(async () => parseProcStat(systemProcesses.stat(zombie) ?? '')?.state === 'Z');
      expect(systemProcesses.exists(zombie)).toBe(true); // kill(pid, 0) alone would call it alive
      const { notices } = await take();
      expect(notices).toEqual([tookOver(zombie, 'which has exited (a zombie, not yet reaped)')]);
    } finally {
      parent.kill('SIGKILL');
    }
  });
});

describe('a full disk', () => {
  const fullForLocks = (operation: string, path: string) => {
    if (operation === 'write' && path.includes('.lock')) throw diskError('ENOSPC');
  };

  it('at a takeover: one error line, no temp file left; the next start takes the lock', async () => {
    await writeLock({ pid: process.pid });
    for (let attempt = 0; attempt < 3; attempt++) {
      const error = await startupError({ statePath, fileFault: fullForLocks });
      expect(error.message).toBe(
        `emulator state file ${statePath} cannot be locked: creating ${statePath}.lock failed (ENOSPC)`,
      );
    }
    expect(await readdir(dir)).toEqual([]);
    await take();
    expect(await readdir(dir)).toEqual(['state.json.lock']);
  });

  it('with a live holder: refused naming the holder, before anything is written', async () => {
    const { lock } = await take();
    const holder = JSON.parse(await readFile(lock.path, 'utf8'));
    const error = await startupError({ statePath, fileFault: fullForLocks });
    expect(error.message).toBe(
      `emulator state file ${statePath} is in use by pid ${process.pid} on host ${hostname()} (started ${holder.started})`,
    );
    expect(await readdir(dir)).toEqual(['state.json.lock']);
  });
});

/** Whether util-linux `flock` runs here (Linux); the kernel lock needs it. */
const haveFlock = spawnSync('flock', ['--version']).status === 0;

/** `flock --nonblock PATH true` from another process: 0 when PATH is free, 1 when it is locked. */
const flockNow = (path: string) => spawnSync('flock', ['--nonblock', path, 'true']).status;

describe.skipIf(!haveFlock)('the kernel lock (needs util-linux flock, absent here)', () => {
  it('is held from acquisition to release: another flock fails meanwhile; the file goes at release', async () => {
    const { lock, notices } = await take();
    expect(lock.kernel).toBe(true);
    expect(notices).toEqual([]);
    expect(flockNow(lock.path)).toBe(1);
    await lock.release();
    expect(existsSync(lock.path)).toBe(false);
    expect((await take()).lock.kernel).toBe(true);
  });

  it('starts racing for a fresh file: exactly one wins, the others are refused naming it', async () => {
    for (let round = 0; round < 3; round++) {
      const outcomes = await Promise.allSettled(Array.from({ length: 6 }, () => take()));
      const won = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value.lock] : []));
      expect(won).toHaveLength(1);
      for (const outcome of outcomes) {
        if (outcome.status === 'rejected')
          expect(String(outcome.reason)).toContain(`is in use by pid ${process.pid}`);
      }
      await won[0]?.release();
    }
  });

  it('a record left by an owner that held it on this kernel is taken over at once, whatever its pid says', async () => {
    // Pid 77 runs, started when the record says: by its pid alone the record would be honoured.
    await writeLock({ pid: 77, start_ticks: 500, boot_id: 'boot-now', kernel_lock: true, pid_ns: 'pid:[1]' });
    const { lock, notices } = await take(fakeHost({ 77: statLine(77, 'S', 500) }));
    expect(notices).toEqual([tookOver(77, 'which has ended (the kernel released its lock)')]);
    expect(JSON.parse(await readFile(lock.path, 'utf8'))).toMatchObject({ pid: 4242, kernel_lock: true });
  });

  it('a record from another host is honoured, saying how to clear it (its kernel lock may not reach here)', async () => {
    const record = { pid: 1, hostname: 'elsewhere.example', boot_id: 'boot-there', kernel_lock: true };
    await writeLock(record);
    const before = await readFile(`${statePath}.lock`, 'utf8');
    expect(await refusal(fakeHost({}))).toBe(
      `emulator state file ${statePath} is in use by pid 1 on host elsewhere.example (started 2020-01-01T00:00:00.000Z); ` +
        `a lock taken on another host cannot be checked from here: delete ${statePath}.lock if no emulator there uses the state file`,
    );
    expect(await readFile(`${statePath}.lock`, 'utf8')).toBe(before);
  });

  it('names a live owner in another pid namespace as such', async () => {
    const { lock } = await take();
    const holder = JSON.parse(await readFile(lock.path, 'utf8'));
    const elsewhere: ProcessTable = { ...systemProcesses, pid: 4242, pidNamespace: () => 'pid:[1]' };
    expect(await refusal(elsewhere)).toBe(
      `emulator state file ${statePath} is in use by pid ${process.pid} of another pid namespace on host ${hostname()} (started ${holder.started})`,
    );
  });

  it('a lock file locked by another program, with no record: refused, saying so', async () => {
    const other = spawn('flock', [`${statePath}.lock`, 'sleep', '30'], { stdio: 'ignore' });
    try {
      await eventually(async () => existsSync(`${statePath}.lock`) && flockNow(`${statePath}.lock`) === 1);
      expect(await refusal(systemProcesses)).toBe(
        `emulator state file ${statePath} is in use: its lock file ${statePath}.lock is locked by a process that does not name itself; is another program locking it?`,
      );
    } finally {
      other.kill('SIGKILL');
    }
  });
});

describe('without the kernel lock: the record alone, with a note', () => {
  const note = (reason: string) =>
    process.platform === 'linux'
      ? [
          `no kernel lock on ${statePath}.lock (${reason}): only the pid it records keeps a second emulator ` +
            `off ${statePath}, and that does not see one in another pid namespace (another container)`,
        ]
      : [];

  it('no flock command: the record keeps a second emulator off; no empty file is left behind', async () => {
    const missing = join(dir, 'no-such-flock');
    const { lock, notices } = await take(undefined, missing);
    expect(lock.kernel).toBe(false);
    expect(notices).toEqual(note(`${missing}: not found`));
    expect(JSON.parse(await readFile(lock.path, 'utf8'))).not.toHaveProperty('kernel_lock');
    expect(await readdir(dir)).toEqual(['state.json.lock']);
    expect(await refusal(systemProcesses, missing)).toContain(`is in use by pid ${process.pid}`);
    await lock.release();
    expect(await readdir(dir)).toEqual([]);
  });

  it('a flock that cannot lock the file (a file system without locks): the note quotes it', async () => {
    const failing = join(dir, 'flock');
    await writeFile(failing, '#!/bin/sh\necho "flock: 3: No locks available" >&2\nexit 71\n');
    await chmod(failing, 0o755);
    const { lock, notices } = await take(undefined, failing);
    expect(lock.kernel).toBe(false);
    expect(notices).toEqual(note('flock: 3: No locks available'));
    expect((await readdir(dir)).sort()).toEqual(['flock', 'state.json.lock']);
  });
});
