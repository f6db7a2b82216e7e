/** `wafctl --version` from a fresh process, as a shell runs it: spawn, wait, repeat; the median wins. */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The built CLI (`npm run build`), from dist/bench-build/bench/ where this file runs. */
export const CLI_PATH = fileURLToPath(new URL('../../cli/main.js', import.meta.url));

export interface ColdStart {
  medianMs: number;
  minMs: number;
  maxMs: number;
  runs: number;
}

function once(): number {
  const started = performance.now();
  const result = spawnSync(process.execPath, [CLI_PATH, '--version'], { encoding: 'utf8' });
  const elapsed = performance.now() - started;
  if (result.status !== 0 || !/^\d+\.\d+\.\d+/.test(result.stdout)) {
    throw new Error(`wafctl --version failed (exit ${result.status}): ${result.stderr || result.stdout}`);
  }
  return elapsed;
}

export function measureColdStart(runs: number): ColdStart {
  once(); // warm-up: the first spawn also reads the files from disk; a user's shell rarely pays that twice.
  const times = Array.from({ length: runs }, once).sort((a, b) => a - b);
  const middle = Math.floor(times.length / 2);
  const medianMs =
    times.length % 2 === 1 ? (times[middle] ?? 0) : ((times[middle - 1] ?? 0) + (times[middle] ?? 0)) / 2;
  return { medianMs, minMs: times[0] ?? 0, maxMs: times[times.length - 1] ?? 0, runs };
}
