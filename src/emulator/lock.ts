/**
 * One emulator per state file: `state.json.lock` holds the owner's pid, host and start time (and,
 * on Linux, the boot id and the process's start time in clock ticks since boot). It is created
 * atomically with its content (written to a temp file, then hard-linked into place, which fails if
 * the lock exists), so a reader never sees an empty lock. A lock from another host cannot be
 * checked and is honoured. On this host a lock is stale, and taken over, when its holder is gone:
 *
 * - its pid is not running (`kill(pid, 0)`);
 * - its pid is this process's own, and this process does not hold it: a restart in a fresh pid
 *   namespace (a container) hands the new process the dead holder's pid;
 * - the host has rebooted since (another boot id), or the pid now belongs to a process that started
 *   at another time (a reused pid), or it is a zombie (exited, not yet reaped).
 *
 * The last three read `/proc`; where it is absent (not Linux) only the first two apply. The lock is
 * checked before anything is written, so a full disk neither stops a takeover (removing the stale
 * lock frees its space) nor leaves a temp file behind. Released at close, and at process exit.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, unlinkSync } from 'node:fs';
import { link, open, readFile, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { WafctlError } from '../core/errors.js';
import type { FileFaultHook } from '../files/durable-files.js';

interface LockHolder {
  pid: number;
  hostname: string;
  started: string;
  /** Tells this lock from a later one at the same path, so release never removes another's lock. */
  token: string;
  /** /proc/sys/kernel/random/boot_id when the lock was taken (Linux). */
  boot_id?: string;
  /** Field 22 of /proc/PID/stat: the holder's start time, in clock ticks since boot (Linux). */
  start_ticks?: number;
}

/** What the lock reads of the processes on this host; tests inject zombies, reused pids, reboots. */
export interface ProcessTable {
  /** This process's pid. */
  readonly pid: number;
  /** The text of /proc/PID/stat, or undefined (no such process, or no /proc here). */
  stat(pid: number): string | undefined;
  /** The kernel's boot id, or undefined without /proc. */
  bootId(): string | undefined;
  /** `kill(pid, 0)`: whether a process with this pid exists (EPERM: it does, someone else's). */
  exists(pid: number): boolean;
}

function readProc(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

export const systemProcesses: ProcessTable = {
  pid: process.pid,
  stat: (pid) => readProc(`/proc/${pid}/stat`),
  bootId: () => readProc('/proc/sys/kernel/random/boot_id')?.trim() || undefined,
  exists: (pid) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'EPERM';
    }
  },
};

/**
 * State (field 3) and start time (field 22) of a /proc/PID/stat line. The command name (field 2)
 * is in parentheses and may hold anything, spaces and parentheses included: fields are counted
 * from the last `)`.
 */
export function parseProcStat(text: string): { state: string; startTicks: number } | undefined {
  const fields = text
    .slice(text.lastIndexOf(')') + 1)
    .trim()
    .split(/\s+/);
  const state = fields[0];
  const startTicks = Number(fields[19]);
  if (text.lastIndexOf(')') < 0 || state === undefined || !Number.isSafeInteger(startTicks)) return undefined;
  return { state, startTicks };
}

export function lockPathOf(statePath: string): string {
  return `${statePath}.lock`;
}

const held = new Set<StateLock>();
let exitHookInstalled = false;

export class StateLock {
  constructor(
    readonly path: string,
    private readonly content: string,
    /** The holder's token: a lock with this pid and token is this process's own, not stale. */
    readonly token: string,
  ) {}

  async release(): Promise<void> {
    held.delete(this);
    const current = await readFile(this.path, 'utf8').catch(() => undefined);
    if (current === this.content) await unlink(this.path).catch(() => undefined);
  }

  /** For the process 'exit' hook, where nothing asynchronous runs. */
  releaseSync(): void {
    try {
      if (readFileSync(this.path, 'utf8') === this.content) unlinkSync(this.path);
    } catch {
      // Already gone, or not ours to remove.
    }
  }
}

/** Why the holder (on this host) is gone, or undefined while it may still run. */
function staleReason(holder: LockHolder, me: LockHolder, processes: ProcessTable): string | undefined {
  if (holder.boot_id !== undefined && me.boot_id !== undefined && holder.boot_id !== me.boot_id) {
    return 'which ran before the host restarted';
  }
  if (holder.pid === me.pid) {
    const ours = [...held].some((lock) => lock.token === holder.token);
    return ours ? undefined : "whose pid is this process's own (a restart in a new pid namespace)";
  }
  const stat = processes.stat(holder.pid);
  const proc = stat === undefined ? undefined : parseProcStat(stat);
  if (proc !== undefined) {
    if (proc.state === 'Z' || proc.state === 'X') return 'which has exited (a zombie, not yet reaped)';
    if (holder.start_ticks !== undefined && proc.startTicks !== holder.start_ticks) {
      return 'whose pid now belongs to another process';
    }
    return undefined;
  }
  return processes.exists(holder.pid) ? undefined : 'which is no longer running';
}

/**
 * Creates the lock with its content, or returns false when one exists. The content goes to a temp
 * file first (linked into place whole); the temp file is removed whatever happens.
 */
async function createExclusive(path: string, content: string, fault: FileFaultHook): Promise<boolean> {
  const temp = `${path}.${process.pid}.${randomUUID()}.tmp`;
  try {
    await writeNew(temp, content, fault);
    try {
      await link(temp, path);
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return false;
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS') throw error;
      // A file system without hard links: fall back to an exclusive create (a reader may briefly
      // see it empty, which is then reported as unreadable rather than taken over).
      return await createWithFlag(path, content, fault);
    }
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

async function writeNew(path: string, content: string, fault: FileFaultHook): Promise<void> {
  const handle = await open(path, 'wx');
  try {
    await fault('write', path);
    await handle.writeFile(content, 'utf8');
  } finally {
    await handle.close();
  }
}

async function createWithFlag(path: string, content: string, fault: FileFaultHook): Promise<boolean> {
  try {
    await writeNew(path, content, fault);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    // Created but not written (a full disk): an empty lock would keep every emulator out.
    await unlink(path).catch(() => undefined);
    throw error;
  }
}

function parseHolder(text: string): LockHolder | undefined {
  try {
    const data = JSON.parse(text) as Partial<LockHolder>;
    if (typeof data.pid !== 'number' || typeof data.hostname !== 'string') return undefined;
    return {
      pid: data.pid,
      hostname: data.hostname,
      started: String(data.started),
      token: String(data.token),
      ...(typeof data.boot_id === 'string' ? { boot_id: data.boot_id } : {}),
      ...(typeof data.start_ticks === 'number' ? { start_ticks: data.start_ticks } : {}),
    };
  } catch {
    return undefined;
  }
}

function lockError(statePath: string, what: string, cause?: unknown): WafctlError {
  return new WafctlError('EMULATOR_STATE', `emulator state file ${statePath} ${what}`, {
    cause,
    userFault: true,
  });
}

/** Who this process is, as its lock says it. */
function describeMe(processes: ProcessTable): LockHolder {
  const stat = processes.stat(processes.pid);
  const startTicks = stat === undefined ? undefined : parseProcStat(stat)?.startTicks;
  const bootId = processes.bootId();
  return {
    pid: processes.pid,
    hostname: hostname(),
    started: new Date().toISOString(),
    token: randomUUID(),
    ...(bootId === undefined ? {} : { boot_id: bootId }),
    ...(startTicks === undefined ? {} : { start_ticks: startTicks }),
  };
}

export interface LockOptions {
  /** Hears about a stale lock taken over. */
  notice: (message: string) => void;
  /** Test-only: fails the lock's write as a full disk would. */
  fault?: FileFaultHook;
  /** Test-only: the processes the lock sees (default: this host's, through /proc and kill). */
  processes?: ProcessTable;
}

/** Takes the lock of `statePath`, or throws naming the holder. */
export async function acquireLock(statePath: string, options: LockOptions): Promise<StateLock> {
  const path = lockPathOf(statePath);
  const processes = options.processes ?? systemProcesses;
  const fault = options.fault ?? (() => undefined);
  const me = describeMe(processes);
  const content = `${JSON.stringify(me)}\n`;
  // A few rounds: each finds the lock free (or stale, and removes it) and tries to create it.
  for (let round = 0; round < 5; round++) {
    const text = await readFile(path, 'utf8').catch(() => undefined);
    if (text !== undefined) {
      const holder = parseHolder(text);
      if (holder === undefined) {
        throw lockError(
          statePath,
          `is in use: its lock file ${path} is unreadable; delete it if no emulator uses the state file`,
        );
      }
      const stale = holder.hostname === me.hostname ? staleReason(holder, me, processes) : undefined;
      if (stale === undefined) {
        throw lockError(
          statePath,
          `is in use by pid ${holder.pid} on host ${holder.hostname} (started ${holder.started})`,
        );
      }
      // Remove it only if it is still the same stale lock, not one a rival has just created.
      if ((await readFile(path, 'utf8').catch(() => undefined)) === text) await unlink(path).catch(() => {});
      options.notice(`took over the lock ${path} of pid ${holder.pid} (started ${holder.started}), ${stale}`);
    }
    let created: boolean;
    try {
      created = await createExclusive(path, content, fault);
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? String(error);
      throw lockError(statePath, `cannot be locked: creating ${path} failed (${reason})`, error);
    }
    if (created) {
      const lock = new StateLock(path, content, me.token);
      held.add(lock);
      if (!exitHookInstalled) {
        exitHookInstalled = true;
        process.on('exit', () => {
          for (const lock of held) lock.releaseSync();
        });
      }
      return lock;
    }
  }
  throw lockError(statePath, `cannot be locked: ${path} keeps changing`);
}
