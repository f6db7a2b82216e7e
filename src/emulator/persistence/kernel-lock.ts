/**
 * An exclusive kernel lock (flock(2)) on a file this process has open, taken by util-linux `flock`.
 *
 * Node.js has no flock API. `flock -x -n 3` is run once, with this process's descriptor as its fd 3:
 * it locks the open file description (which a flock lock belongs to), then exits. The description
 * stays open here, so the lock is this process's until it closes the descriptor or dies (kill -9
 * included): the kernel then releases it. No helper process outlives the call, and Node's own
 * descriptors are close-on-exec, so no later child inherits the lock. The alternatives weighed, and
 * what was measured, are in docs/emulator.md ("The lock").
 */
import { spawn } from 'node:child_process';

/** `locked`: this descriptor holds the lock; `busy`: another one does; else why no kernel lock. */
export type KernelLockOutcome = 'locked' | 'busy' | { unavailable: string };

/** The flock command, looked up on PATH. */
export const FLOCK_COMMAND = 'flock';

/** Tries, without waiting, to take an exclusive flock(2) lock on `fd` (open read-write). */
export function flockExclusive(fd: number, command: string = FLOCK_COMMAND): Promise<KernelLockOutcome> {
  return new Promise((resolve) => {
    let child: ReturnType<typeof spawn>;
    try {
      // -n: fail at once rather than wait; -x: exclusive; the descriptor form, `flock [options] number`.
      child = spawn(command, ['-x', '-n', '3'], {
        stdio: ['ignore', 'ignore', 'pipe', fd],
        timeout: 10_000,
        killSignal: 'SIGKILL',
      });
    } catch (error) {
      resolve({
        unavailable: `${command} cannot be run (${(error as NodeJS.ErrnoException).code ?? error})`,
      });
      return;
    }
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      resolve({
        unavailable:
          error.code === 'ENOENT'
            ? `${command}: not found`
            : `${command} cannot be run (${error.code ?? error.message})`,
      });
    });
    child.on('close', (code, signal) => {
      const said = stderr.trim().split('\n').filter(Boolean).join('; ');
      // With -n, a lock held elsewhere is exit status 1 and nothing on stderr (util-linux's default
      // conflict status; other failures print why, and exit 64, 65 or 71).
      if (code === 0) resolve('locked');
      else if (code === 1 && said === '') resolve('busy');
      else resolve({ unavailable: said || `${command} ended with ${signal ?? `exit status ${code}`}` });
    });
  });
}
