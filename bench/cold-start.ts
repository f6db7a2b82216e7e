/**
 * Start-up from a fresh process, as a shell runs it: `wafctl --version` and a plan of an empty
 * configuration on the embedded emulator, each from the bundle that ships (dist/wafctl.mjs) and from
 * the tsc output (dist/cli/main.js, the baseline), beside a bare `node -e 0`. The commands take turns
 * (one warm-up round, then N rounds), so a slow moment of the machine hits them all; medians win.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The bundle (`npm run build`), from dist/bench-build/bench/ where this file runs. */
export const CLI_PATH = fileURLToPath(new URL('../../wafctl.mjs', import.meta.url));
/** The tsc output of the same sources, what `bin` pointed at before the bundle. */
export const TSC_CLI_PATH = fileURLToPath(new URL('../../cli/main.js', import.meta.url));

export interface ColdStart {
  medianMs: number;
  minMs: number;
  maxMs: number;
  runs: number;
  /** Medians of the other commands, by name. */
  others: Record<string, number>;
}

function time(args: string[], check: (stdout: string) => boolean): number {
  const started = performance.now();
  const result = spawnSync(process.execPath, args, {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  const elapsed = performance.now() - started;
  if (result.status !== 0 || !check(result.stdout)) {
    throw new Error(
      `node ${args.join(' ')} failed (exit ${result.status}): ${result.stderr || result.stdout}`,
    );
  }
  return elapsed;
}

const median = (times: readonly number[]): number => {
  const sorted = [...times].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};

export function measureColdStart(runs: number): ColdStart {
  const empty = mkdtempSync(join(tmpdir(), 'wafctl-cold-'));
  try {
    writeFileSync(join(empty, 'waf.yaml'), '{}\n');
    const version = (stdout: string) => /^\d+\.\d+\.\d+/.test(stdout);
    const noChanges = (stdout: string) => stdout.startsWith('No changes.');
    const plan = ['plan', '--url', 'embedded', empty];
    const commands: Record<string, [string[], (stdout: string) => boolean]> = {
      version: [[CLI_PATH, '--version'], version],
      'node -e 0': [['-e', '0'], () => true],
      'tsc output --version': [[TSC_CLI_PATH, '--version'], version],
      'empty plan': [[CLI_PATH, ...plan], noChanges],
      'tsc output empty plan': [[TSC_CLI_PATH, ...plan], noChanges],
    };
    const times = new Map(Object.keys(commands).map((name) => [name, [] as number[]]));
    // Warm-up: the first spawn also reads the files from disk; a user's shell rarely pays that twice.
    for (const [args, check] of Object.values(commands)) time(args, check);
    for (let round = 0; round < runs; round++) {
      for (const [name, [args, check]] of Object.entries(commands)) times.get(name)?.push(time(args, check));
    }
    const own = times.get('version') ?? [];
    const others = Object.fromEntries(
      [...times].filter(([name]) => name !== 'version').map(([name, list]) => [name, median(list)]),
    );
    return {
      medianMs: median(own),
      minMs: own.reduce((a, b) => Math.min(a, b), Infinity),
      maxMs: own.reduce((a, b) => Math.max(a, b), 0),
      runs,
      others,
    };
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
}
