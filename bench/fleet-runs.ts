/**
 * The fleet scenario's runs: the shipped CLI (dist/wafctl.mjs) as a process of its own per command
 * line, as a pipeline runs it (one `drift --env all`, or one `drift --env NAME` per environment in a
 * loop, each paying Node's start). Each process reports its peak RSS on exit through a preloaded
 * script (`process.resourceUsage().maxRSS` is a high-water mark of the process alone); its output
 * is dropped, and a command that does not exit 0 (no drift) breaks the run with its error output.
 */
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CLI_PATH } from './cold-start.js';

export interface CommandsRun {
  wallMs: number;
  /** The highest of the processes' peak RSS, in bytes. */
  maxRssBytes: number;
}

const PRELOAD = `process.on('exit', () => require('node:fs').writeFileSync(process.env.BENCH_RSS_FILE, String(process.resourceUsage().maxRSS * 1024)));\n`;

/** Runs `wafctl ARGS` for each command line, in turn; `dir`: a scratch directory for the preload and the RSS file. */
export async function runCommands(
  commands: readonly string[][],
  token: string,
  dir: string,
): Promise<CommandsRun> {
  const preload = join(dir, 'rss-preload.cjs');
  const rssFile = join(dir, 'rss');
  await writeFile(preload, PRELOAD);
  // The shard of the surrounding shell, if any, must not narrow the fleet.
  const { WAFCTL_SHARD: _shard, ...env } = process.env;
  let maxRssBytes = 0;
  const started = performance.now();
  for (const args of commands) {
    const { code, stderr } = await run(['--require', preload, CLI_PATH, ...args], {
      ...env,
      WAF_TOKEN: token,
      BENCH_RSS_FILE: rssFile,
    });
    if (code !== 0) throw new Error(`wafctl ${args.join(' ')} exited ${code}: ${stderr.trim()}`);
    maxRssBytes = Math.max(maxRssBytes, Number(await readFile(rssFile, 'utf8')));
  }
  return { wallMs: performance.now() - started, maxRssBytes };
}

function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stderr }));
  });
}
