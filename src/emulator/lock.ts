/**
 * One emulator per state file: `state.json.lock` holds the owner's pid, host and start time. It is
 * created atomically with its content (written to a temp file, then hard-linked into place, which
 * fails if the lock exists), so a reader never sees an empty lock. A lock whose pid is no longer
 * running on this host is stale (the owner was killed) and is taken over; a lock from another host
 * cannot be checked and is honoured. Released at close, and at process exit as a safety net.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, unlinkSync } from 'node:fs';
import { link, open, readFile, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { WafctlError } from '../errors.js';

interface LockHolder {
  pid: number;
  hostname: string;
  started: string;
  /** Tells this lock from a later one at the same path, so release never removes another's lock. */
  token: string;
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

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else, which is alive all the same.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** True when created; false when the lock already exists. */
async function createExclusive(path: string, content: string): Promise<boolean> {
  const temp = `${path}.${process.pid}.${randomUUID()}.tmp`;
  await writeFile(temp, content, { flag: 'wx' });
  try {
    await link(temp, path);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS') throw error;
    // A file system without hard links: fall back to an exclusive create (a reader may briefly see
    // it empty, which is then reported as unreadable rather than taken over).
    return createWithFlag(path, content);
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

async function createWithFlag(path: string, content: string): Promise<boolean> {
  try {
    const handle = await open(path, 'wx');
    try {
      await handle.writeFile(content, 'utf8');
    } finally {
      await handle.close();
    }
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
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

/** Takes the lock of `statePath`, or throws naming the holder. `notice` hears about a stale takeover. */
export async function acquireLock(statePath: string, notice: (message: string) => void): Promise<StateLock> {
  const path = lockPathOf(statePath);
  const me: LockHolder = {
    pid: process.pid,
    hostname: hostname(),
    started: new Date().toISOString(),
    token: randomUUID(),
  };
  const content = `${JSON.stringify(me)}\n`;
  // A few rounds: each either takes the lock, or finds it gone or stale and tries again.
  for (let round = 0; round < 5; round++) {
    let created: boolean;
    try {
      created = await createExclusive(path, content);
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? String(error);
      throw lockError(statePath, `cannot be locked: creating ${path} failed (${reason})`, error);
    }
    if (created) {
      const lock = new StateLock(path, content);
      held.add(lock);
      if (!exitHookInstalled) {
        exitHookInstalled = true;
        process.on('exit', () => {
          for (const lock of held) lock.releaseSync();
        });
      }
      return lock;
    }
    const text = await readFile(path, 'utf8').catch(() => undefined);
    if (text === undefined) continue; // released in between
    const holder = parseHolder(text);
    if (holder === undefined) {
      throw lockError(
        statePath,
        `is in use: its lock file ${path} is unreadable; delete it if no emulator uses the state file`,
      );
    }
    if (holder.hostname === me.hostname && !isAlive(holder.pid)) {
      // Remove it only if it is still the same stale lock, not one a rival has just created.
      if ((await readFile(path, 'utf8').catch(() => undefined)) === text) await unlink(path).catch(() => {});
      notice(
        `took over the lock ${path} of pid ${holder.pid} (started ${holder.started}), which is no longer running`,
      );
      continue;
    }
    throw lockError(
      statePath,
      `is in use by pid ${holder.pid} on host ${holder.hostname} (started ${holder.started})`,
    );
  }
  throw lockError(statePath, `cannot be locked: ${path} keeps changing`);
}
