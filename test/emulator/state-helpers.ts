/** Helpers for the `--state` tests: crash images, failing disks, and what a restart sees. */
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { WafctlError } from '../../src/core/errors.js';
import { type EmulatorOptions, startEmulator } from '../../src/emulator/index.js';
import type { Client, WireApplicationRule } from './helpers.js';

/**
 * What a crash would leave: the state file and its journal as they are now, copied (without the
 * lock) to `dir`, while the emulator that owns them keeps running. Acknowledged writes are durable
 * before they are answered, so every one of them must be in the copy.
 */
export async function crashImage(statePath: string, dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  const target = join(dir, basename(statePath));
  await copyFile(statePath, target);
  await copyFile(`${statePath}.journal`, `${target}.journal`).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
  return target;
}

export async function journalLines(statePath: string): Promise<string[]> {
  const text = await readFile(`${statePath}.journal`, 'utf8');
  return text.split('\n').filter((line) => line !== '');
}

export async function ruleList(api: Client): Promise<WireApplicationRule[]> {
  const reply = await api.get<{ application_rules: WireApplicationRule[] }>(
    '/api/v1/application_rules?paginate=false',
  );
  if (reply.status !== 200) throw new Error(`listing rules failed: ${JSON.stringify(reply.body)}`);
  return reply.body.data?.application_rules ?? [];
}

export async function ruleDescriptions(api: Client): Promise<(string | null)[]> {
  return (await ruleList(api)).map((rule) => rule.description);
}

/** An error as a full or failing disk raises it. */
export function diskError(code: 'ENOSPC' | 'EIO'): NodeJS.ErrnoException {
  const messages = { ENOSPC: 'no space left on device', EIO: 'i/o error' };
  return Object.assign(new Error(`${code}: ${messages[code]}, write`), { code });
}

export async function startupError(options: EmulatorOptions): Promise<WafctlError> {
  const error = await startEmulator({ port: 0, ...options }).then(
    async (emulator) => {
      await emulator.close();
      return undefined;
    },
    (e: unknown) => e,
  );
  if (!(error instanceof WafctlError)) throw new Error(`expected a WafctlError, got ${String(error)}`);
  return error;
}

/** Polls `check` every 10 ms until it holds (or fails after `ms`); for work done in the background. */
export async function eventually(check: () => Promise<boolean>, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
