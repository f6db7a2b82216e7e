/**
 * What lives as long as one command line (`runWafctl`): values computed once per run and shared by
 * the parts of a command that need them (the workspace: wafctl.yaml and the trusted ref's checkout),
 * and the clean-ups that end with the run (a temporary directory). Kept beside the run's `Io`, so
 * that runs in one process (the test suite) never share them.
 */
import type { Io } from './io.js';

interface Scope {
  values: Map<string, Promise<unknown>>;
  cleanups: (() => Promise<void>)[];
}

const SCOPES = new WeakMap<Io, Scope>();

function scopeOf(io: Io): Scope {
  let scope = SCOPES.get(io);
  if (scope === undefined) {
    scope = { values: new Map(), cleanups: [] };
    SCOPES.set(io, scope);
  }
  return scope;
}

/** `make()`'s value, made once per run and `key`; a failure is not kept (the next call tries again). */
export function oncePerRun<T>(io: Io, key: string, make: () => Promise<T>): Promise<T> {
  const { values } = scopeOf(io);
  const known = values.get(key) as Promise<T> | undefined;
  if (known !== undefined) return known;
  const made = make();
  values.set(key, made);
  made.catch(() => values.delete(key));
  return made;
}

/** Runs `cleanup` when the run ends, whatever its outcome. */
export function atRunEnd(io: Io, cleanup: () => Promise<void>): void {
  scopeOf(io).cleanups.push(cleanup);
}

/** Ends the run's scope: every clean-up, last registered first; a failing one does not stop the rest. */
export async function endRun(io: Io): Promise<void> {
  const scope = SCOPES.get(io);
  if (scope === undefined) return;
  SCOPES.delete(io);
  for (const cleanup of scope.cleanups.reverse()) await cleanup().catch(() => undefined);
}
