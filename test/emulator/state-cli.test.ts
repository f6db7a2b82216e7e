/**
 * `wafctl emulator --state` as a real process (the built CLI): kill -9 in the middle of a stream of
 * writes loses nothing acknowledged, and one emulator at a time owns a state file.
 */
import { spawn } from 'node:child_process';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { MULTIPART, makeTempDir, ruleInput, type WireApplicationRule } from './helpers.js';
import { serve } from './serve-cli.js';
import { eventually } from './state-helpers.js';

const TOKEN = 'state-cli-admin-token';

let dir: string;
let cleanup: () => Promise<void>;
let statePath: string;
let args: string[];

beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir());
  statePath = join(dir, 'state.json');
  await writeFile(join(dir, 'token'), `${TOKEN}\n`);
  args = ['--port', '0', '--admin-token-file', join(dir, 'token'), '--state', statePath];
});
afterEach(() => cleanup());

async function listRules(url: string): Promise<Map<string, string | null>> {
  const response = await fetch(`${url}/api/v1/application_rules?paginate=false`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  const body = (await response.json()) as { data: { application_rules: WireApplicationRule[] } };
  return new Map(body.data.application_rules.map((rule) => [rule.id, rule.description]));
}

const gone = (path: string) =>
  stat(path).then(
    () => false,
    () => true,
  );

describe('wafctl emulator --state', () => {
  it('kill -9 mid-stream: every acknowledged write survives the restart, nothing answered 500 appears', async () => {
    const first = await serve(args);
    const acknowledged = new Map<string, string>();
    const refused: string[] = [];
    const total = 200;
    let next = 0;
    let killed = false;
    const worker = async () => {
      while (next < total) {
        const description = `crash-${next++}`;
        try {
          const response = await fetch(`${first.url}/api/v1/application_rules`, {
            method: 'POST',
            headers: { authorization: `Bearer ${TOKEN}`, 'content-type': MULTIPART },
            body: JSON.stringify({ rules: [ruleInput({ description })] }),
          });
          const body = (await response.json()) as { data?: { rule_ids: string[] } };
          if (response.status === 200) acknowledged.set(body.data?.rule_ids[0] ?? '', description);
          else refused.push(description);
        } catch {
          // The emulator was killed with this request in flight: its outcome is unknown.
        }
        if (!killed && acknowledged.size >= 100) {
          killed = true;
          first.child.kill('SIGKILL');
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    expect(await first.exit).toBe(null);
    expect(killed).toBe(true);

    const second = await serve(args);
    try {
      await eventually(async () => second.stderr().includes('Note: took over the lock'));
      expect(second.stderr()).toContain(`of pid ${first.child.pid}`);
      const present = await listRules(second.url);
      for (const [id, description] of acknowledged) expect(present.get(id)).toBe(description);
      const descriptions = new Set(present.values());
      for (const description of refused) expect(descriptions.has(description)).toBe(false);
    } finally {
      second.child.kill('SIGTERM');
    }
    expect(await second.exit).toBe(0);
  });

  it('a second emulator on the same file exits 1 naming file and holder; after the first exits, one starts', async () => {
    const first = await serve(args);
    const holder = JSON.parse(await readFile(`${statePath}.lock`, 'utf8')) as { started: string };
    const second = await runCli(['emulator', ...args]);
    expect(second.code).toBe(1);
    expect(second.stdout).toBe('');
    expect(second.stderr.trim().split('\n')).toEqual([
      `Error: emulator state file ${statePath} is in use by pid ${first.child.pid} on host ${hostname()} (started ${holder.started})`,
    ]);
    first.child.kill('SIGTERM');
    expect(await first.exit).toBe(0);
    expect(await gone(`${statePath}.lock`)).toBe(true);

    const third = await serve(args);
    expect(third.stderr()).toBe('');
    third.child.kill('SIGINT');
    expect(await third.exit).toBe(0);
    expect(await gone(`${statePath}.lock`)).toBe(true);
  });

  it('a stale lock (its pid no longer runs here) is taken over, with a note on stderr', async () => {
    const dead = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => dead.on('close', resolve));
    const stale = { pid: dead.pid, hostname: hostname(), started: '2020-01-01T00:00:00.000Z', token: 'old' };
    await writeFile(`${statePath}.lock`, JSON.stringify(stale));
    const served = await serve(args);
    try {
      await eventually(async () => served.stderr().includes('Note:'));
      expect(served.stderr().trim()).toBe(
        `Note: took over the lock ${statePath}.lock of pid ${dead.pid} (started 2020-01-01T00:00:00.000Z), which is no longer running`,
      );
      expect(JSON.parse(await readFile(`${statePath}.lock`, 'utf8'))).toMatchObject({
        pid: served.child.pid,
      });
    } finally {
      served.child.kill('SIGTERM');
    }
    expect(await served.exit).toBe(0);
  });
});
