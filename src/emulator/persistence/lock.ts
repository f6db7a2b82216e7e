/**
 * One emulator per state file, in two layers, both in `state.json.lock`:
 *
 * 1. A kernel lock: the file is opened read-write and locked with flock(2) (kernel-lock.ts) for as
 *    long as the emulator runs. A second emulator's flock fails at once whatever pid namespace either
 *    runs in (containers sharing a volume share one kernel, and the lock belongs to the open file,
 *    not to a pid), and the kernel releases it when the owner dies, kill -9 included.
 * 2. The owner record, the file's content: pid, host and start time (and, on Linux, the boot id, the
 *    process's start time in clock ticks since boot and its pid namespace), with `kernel_lock: true`
 *    when layer 1 holds it. It names the owner in the refusal (a pid of another pid namespace said
 *    so), and it is all there is where the kernel lock cannot see.
 *
 * Taking it: open (or create) the file and flock it. Busy: refused, naming the owner the record
 * names (a record not written yet, by an owner that has just locked, is waited for briefly).
 * Locked: the file must still be the one at the path (an owner removes it as it releases, so a lock
 * won on a removed file is dropped and the new file tried); then the record found there, if any:
 *
 * - written with the kernel lock under this boot id: its owner ran on this kernel and held a lock we
 *   now hold, so it has ended (killed, crashed). Taken over with a note, whatever its pid says.
 * - anything else comes from an owner whose kernel lock may not reach this process: another host
 *   (a network file system whose flock locks are not shared between its clients, such as NFS mounted
 *   with `nolock` or `local_lock=flock`: each client then locks only its own copy), or a wafctl, or
 *   a start, without the kernel lock. The record's rules apply, as before the kernel lock: a record
 *   from another host is honoured (its pid cannot be checked: delete the file once that emulator is
 *   gone); on this host it is stale, and taken over with a note, when its holder is gone:
 *   - its pid is not running (`kill(pid, 0)`);
 *   - its pid is this process's own, and this process does not hold it: a restart in a fresh pid
 *     namespace (a container) hands the new process the dead holder's pid;
 *   - the host has rebooted since (another boot id), or the pid now belongs to a process that
 *     started at another time (a reused pid), or it is a zombie (exited, not yet reaped).
 *   The last three read `/proc`; where it is absent (not Linux) only the first two apply.
 *
 * The record is judged before anything is written, so a full disk neither stops a takeover nor
 * leaves a file behind. Released at close and at process exit: the file is removed while still
 * locked, then closed.
 *
 * Without the kernel lock (no `flock` command, or one that cannot lock the file: ENOLCK on a file
 * system without locks), the record alone keeps a second emulator off, as before: it is created
 * atomically with its content (written to a temp file, then hard-linked into place, which fails if
 * the lock exists), so a reader never sees an empty lock. On Linux a note says so, since that lock
 * cannot see an owner in another pid namespace.
 *
 * Why the `flock` command on this process's own descriptor (kernel-lock.ts), and the native addons
 * and other ways weighed and measured against it: docs/emulator.md, "The lock".
 */
import { randomUUID } from 'node:crypto';
import {
  close,
  closeSync,
  constants,
  fstat,
  fstatSync,
  ftruncate,
  open as openFd,
  read,
  readFileSync,
  readlinkSync,
  type Stats,
  statSync,
  unlinkSync,
  write,
} from 'node:fs';
import { link, open, readFile, stat, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { promisify } from 'node:util';
import { WafctlError } from '../../core/errors.js';
import type { FileFaultHook } from '../../files/durable-files.js';
import { FLOCK_COMMAND, flockExclusive } from './kernel-lock.js';

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
  /** The holder held the file's kernel lock (flock) too: while it runs, no other flock succeeds. */
  kernel_lock?: true;
  /** Its pid namespace (/proc/self/ns/pid, Linux): a pid means nothing outside it. */
  pid_ns?: string;
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
  /** This process's pid namespace (`pid:[4026531836]`), or undefined without /proc. */
  pidNamespace?(): string | undefined;
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
  pidNamespace: () => {
    try {
      return readlinkSync('/proc/self/ns/pid');
    } catch {
      return undefined;
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

const openAsync = promisify(openFd);
const closeAsync = promisify(close);
const fstatAsync = promisify(fstat);
const ftruncateAsync = promisify(ftruncate);
const readAsync = promisify(read);
const writeAsync = promisify(write);

const held = new Set<StateLock>();
let exitHookInstalled = false;

export class StateLock {
  #released = false;

  constructor(
    readonly path: string,
    private readonly content: string,
    /** The holder's token: a lock with this pid and token is this process's own, not stale. */
    readonly token: string,
    /** The descriptor holding the kernel lock; undefined when only the record keeps others off. */
    private readonly fd: number | undefined,
  ) {}

  /** Whether the kernel holds the lock for this process (else only the owner record does). */
  get kernel(): boolean {
    return this.fd !== undefined;
  }

  async release(): Promise<void> {
    if (this.#released) return;
    this.#released = true;
    held.delete(this);
    if (this.fd === undefined) {
      const current = await readFile(this.path, 'utf8').catch(() => undefined);
      if (current === this.content) await unlink(this.path).catch(() => undefined);
      return;
    }
    // Removed while still locked: whoever opened it meanwhile sees it is no longer at the path.
    try {
      if (await isAtPath(this.fd, this.path)) await unlink(this.path).catch(() => undefined);
    } finally {
      await closeAsync(this.fd).catch(() => undefined);
    }
  }

  /** For the process 'exit' hook, where nothing asynchronous runs. */
  releaseSync(): void {
    if (this.#released) return;
    this.#released = true;
    held.delete(this);
    try {
      if (this.fd === undefined) {
        if (readFileSync(this.path, 'utf8') === this.content) unlinkSync(this.path);
        return;
      }
      const mine = fstatSync(this.fd);
      const there = statSync(this.path);
      if (sameFile(mine, there)) unlinkSync(this.path);
    } catch {
      // Already gone, or not ours to remove.
    } finally {
      if (this.fd !== undefined) {
        try {
          closeSync(this.fd);
        } catch {
          // Closed already.
        }
      }
    }
  }
}

/** Whether two stats describe the same file (same inode on the same device). */
function sameFile(a: Stats, b: Stats): boolean {
  return a.ino === b.ino && a.dev === b.dev;
}

/** Whether `fd` is the file now at `path` (not one removed, or replaced, since it was opened). */
async function isAtPath(fd: number, path: string): Promise<boolean> {
  const [mine, there] = await Promise.all([fstatAsync(fd), stat(path).catch(() => undefined)]);
  return there !== undefined && sameFile(mine, there);
}

/** Why the holder of a record (on this host) is gone, or undefined while it may still run. */
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

/** Whether the holder's record was written under this process's boot id (the same running kernel). */
function sameKernel(holder: LockHolder, me: LockHolder): boolean {
  return holder.boot_id !== undefined && holder.boot_id === me.boot_id;
}

/**
 * Why the holder named by a record is gone, or undefined while it may still run: a record found by
 * a process holding the kernel lock, or by one without it (`kernelHeld` false).
 */
function goneReason(
  holder: LockHolder,
  me: LockHolder,
  processes: ProcessTable,
  kernelHeld: boolean,
): string | undefined {
  if (kernelHeld && holder.kernel_lock === true && sameKernel(holder, me)) {
    return 'which has ended (the kernel released its lock)';
  }
  return holder.hostname === me.hostname ? staleReason(holder, me, processes) : undefined;
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
      ...(data.kernel_lock === true ? { kernel_lock: true as const } : {}),
      ...(typeof data.pid_ns === 'string' ? { pid_ns: data.pid_ns } : {}),
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

/**
 * The refusal naming the holder. `unchecked`: only its record says it runs, and it is on another
 * host, where this process cannot look: the message says how to clear it.
 */
function inUse(attempt: Attempt, holder: LockHolder, unchecked: boolean): WafctlError {
  const { me } = attempt;
  const elsewhere =
    sameKernel(holder, me) &&
    holder.pid_ns !== undefined &&
    me.pid_ns !== undefined &&
    holder.pid_ns !== me.pid_ns;
  const pid = elsewhere ? `pid ${holder.pid} of another pid namespace` : `pid ${holder.pid}`;
  const owner = `is in use by ${pid} on host ${holder.hostname} (started ${holder.started})`;
  if (!unchecked || holder.hostname === me.hostname) return lockError(attempt.statePath, owner);
  return lockError(
    attempt.statePath,
    `${owner}; a lock taken on another host cannot be checked from here: delete ${attempt.path} if no emulator there uses the state file`,
  );
}

function unreadable(statePath: string, path: string): WafctlError {
  return lockError(
    statePath,
    `is in use: its lock file ${path} is unreadable; delete it if no emulator uses the state file`,
  );
}

/** The error when the lock file at `path` could not be created or written. */
function createFailed(statePath: string, path: string, error: unknown): WafctlError {
  const reason = (error as NodeJS.ErrnoException).code ?? String(error);
  return lockError(statePath, `cannot be locked: creating ${path} failed (${reason})`, error);
}

/** The notice that the lock at `path` was taken over from `holder`, gone for `reason`. */
function takenOver(path: string, holder: LockHolder, reason: string): string {
  return `took over the lock ${path} of pid ${holder.pid} (started ${holder.started}), ${reason}`;
}

/** Who this process is, as its lock says it. */
function describeMe(processes: ProcessTable): LockHolder {
  const stat = processes.stat(processes.pid);
  const startTicks = stat === undefined ? undefined : parseProcStat(stat)?.startTicks;
  const bootId = processes.bootId();
  const pidNs = processes.pidNamespace?.();
  return {
    pid: processes.pid,
    hostname: hostname(),
    started: new Date().toISOString(),
    token: randomUUID(),
    ...(bootId === undefined ? {} : { boot_id: bootId }),
    ...(startTicks === undefined ? {} : { start_ticks: startTicks }),
    ...(pidNs === undefined ? {} : { pid_ns: pidNs }),
  };
}

export interface LockOptions {
  /** Hears about a stale lock taken over, and about a lock the kernel cannot hold. */
  notice: (message: string) => void;
  /** Test-only: fails the lock's write as a full disk would. */
  fault?: FileFaultHook;
  /** Test-only: the processes the lock sees (default: this host's, through /proc and kill). */
  processes?: ProcessTable;
  /** Test-only: the flock command (default `flock` on PATH); a missing one means no kernel lock. */
  flockCommand?: string;
}

function remember(lock: StateLock): StateLock {
  held.add(lock);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', () => {
      for (const lock of held) lock.releaseSync();
    });
  }
  return lock;
}

/** Takes the lock of `statePath`, or throws naming the holder. */
export async function acquireLock(statePath: string, options: LockOptions): Promise<StateLock> {
  const processes = options.processes ?? systemProcesses;
  const attempt: Attempt = {
    statePath,
    path: lockPathOf(statePath),
    me: describeMe(processes),
    processes,
    fault: options.fault ?? (() => undefined),
    notice: options.notice,
  };
  const kernel = await lockWithKernel(attempt, options.flockCommand ?? FLOCK_COMMAND);
  if (typeof kernel !== 'string') return kernel;
  if (process.platform === 'linux') {
    options.notice(
      `no kernel lock on ${attempt.path} (${kernel}): only the pid it records keeps a second emulator ` +
        `off ${statePath}, and that does not see one in another pid namespace (another container)`,
    );
  }
  return lockWithRecord(attempt);
}

/** What taking the lock of one state file works with. */
interface Attempt {
  statePath: string;
  path: string;
  /** This process's record. */
  me: LockHolder;
  processes: ProcessTable;
  fault: FileFaultHook;
  notice: (message: string) => void;
}

/** Opens the lock file read-write, creating it if need be; undefined if it vanished meanwhile. */
async function openLockFile(path: string): Promise<{ fd: number; created: boolean } | undefined> {
  const { O_RDWR, O_CREAT, O_EXCL } = constants;
  try {
    return { fd: await openAsync(path, O_RDWR | O_CREAT | O_EXCL, 0o644), created: true };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  try {
    return { fd: await openAsync(path, O_RDWR), created: false };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

async function readRecord(fd: number): Promise<string> {
  const size = Math.min((await fstatAsync(fd)).size, 64 * 1024);
  const buffer = Buffer.alloc(size);
  let done = 0;
  while (done < size) {
    const { bytesRead } = await readAsync(fd, buffer, done, size - done, done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return buffer.subarray(0, done).toString('utf8');
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The lock with the kernel's flock on the lock file, or why there is none (a string): then the
 * caller falls back to the record alone, and this left no file of its own behind.
 */
async function lockWithKernel(attempt: Attempt, command: string): Promise<StateLock | string> {
  const { statePath, path, me, processes, fault, notice } = attempt;
  const mine: LockHolder = { ...me, kernel_lock: true };
  const content = `${JSON.stringify(mine)}\n`;
  let unnamed = false;
  // Rounds: the file removed by an owner releasing it, or an owner that has not written its record
  // yet (it writes right after locking): both settle within milliseconds.
  for (let round = 0; round < 50; round++) {
    if (unnamed) await pause(10);
    unnamed = false;
    let opened: { fd: number; created: boolean } | undefined;
    try {
      opened = await openLockFile(path);
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? String(error);
      throw lockError(statePath, `cannot be locked: opening ${path} failed (${reason})`, error);
    }
    if (opened === undefined) continue;
    const { fd, created } = opened;
    let keep = false;
    try {
      const outcome = await flockExclusive(fd, command);
      if (typeof outcome === 'object') {
        // Leave no empty file of ours: the record-only lock would read it as unreadable.
        if (created && (await fstatAsync(fd)).size === 0 && (await isAtPath(fd, path))) {
          await unlink(path).catch(() => undefined);
        }
        return outcome.unavailable;
      }
      if (!(await isAtPath(fd, path))) continue;
      const text = await readRecord(fd);
      const holder = text.trim() === '' ? undefined : parseHolder(text);
      if (outcome === 'busy') {
        if (holder !== undefined) throw inUse(attempt, holder, false);
        unnamed = true;
        continue;
      }
      if (text.trim() !== '') {
        if (holder === undefined) throw unreadable(statePath, path);
        const gone = goneReason(holder, me, processes, true);
        if (gone === undefined) throw inUse(attempt, holder, true);
        notice(takenOver(path, holder, gone));
      }
      try {
        await fault('write', path);
        await ftruncateAsync(fd, 0);
        await writeAsync(fd, content, 0, 'utf8');
      } catch (error) {
        // Still locked: removing it is safe, and a half-written record would keep others out.
        await unlink(path).catch(() => undefined);
        throw createFailed(statePath, path, error);
      }
      keep = true;
      return remember(new StateLock(path, content, mine.token, fd));
    } finally {
      if (!keep) await closeAsync(fd).catch(() => undefined);
    }
  }
  if (unnamed) {
    throw lockError(
      statePath,
      `is in use: its lock file ${path} is locked by a process that does not name itself; ` +
        'is another program locking it?',
    );
  }
  throw lockError(statePath, `cannot be locked: ${path} keeps changing`);
}

/** The lock by the record alone: created whole if absent, taken over when its holder is gone. */
async function lockWithRecord(attempt: Attempt): Promise<StateLock> {
  const { statePath, path, me, processes, fault, notice } = attempt;
  const content = `${JSON.stringify(me)}\n`;
  // A few rounds: each finds the lock free (or stale, and removes it) and tries to create it.
  for (let round = 0; round < 5; round++) {
    const text = await readFile(path, 'utf8').catch(() => undefined);
    if (text !== undefined) {
      const holder = parseHolder(text);
      if (holder === undefined) throw unreadable(statePath, path);
      const stale = goneReason(holder, me, processes, false);
      if (stale === undefined) throw inUse(attempt, holder, true);
      // Remove it only if it is still the same stale lock, not one a rival has just created.
      if ((await readFile(path, 'utf8').catch(() => undefined)) === text) await unlink(path).catch(() => {});
      notice(takenOver(path, holder, stale));
    }
    let created: boolean;
    try {
      created = await createExclusive(path, content, fault);
    } catch (error) {
      throw createFailed(statePath, path, error);
    }
    if (created) return remember(new StateLock(path, content, me.token, undefined));
  }
  throw lockError(statePath, `cannot be locked: ${path} keeps changing`);
}
