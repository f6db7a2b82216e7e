/**
 * `preparePull` / `assertUnchanged`: pull edits exactly the text it planned on. A file edited while
 * pull waits on the API (or between planning and writing) is refused, never edited by stale paths.
 */

import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../../src/api/index.js';
import { loadDesiredState } from '../../../src/config/load.js';
import { KINDS } from '../../../src/kinds/index.js';
import { assertUnchanged, preparePull } from '../../../src/ops/pull/pull.js';
import { E2E_TOKEN, startTestFirewall, type TestFirewall, writeConfig } from '../../helpers/firewall.js';

const GROUPS = `groups:
  - name: soc
    description: Tier-1 analysts
    users: [u-1001]
`;

/** The same file after someone inserted an admin group above `soc`. */
const EDITED = `groups:
  - name: root
    is_admin: true
    users: [u-1002]
  - name: soc
    description: Tier-1 analysts
    users: [u-1001]
`;

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A loopback proxy to `target` that runs `beforeFirstAnswer` before answering its first request. */
async function proxy(target: string, beforeFirstAnswer: () => Promise<void>): Promise<string> {
  let first = true;
  const server: Server = createServer((request, response) => {
    void (async () => {
      if (first) {
        first = false;
        await beforeFirstAnswer();
      }
      const answer = await fetch(`${target}${request.url ?? '/'}`, {
        method: request.method,
        headers: { authorization: request.headers.authorization ?? '' },
      });
      response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? '' });
      response.end(Buffer.from(await answer.arrayBuffer()));
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  const address = server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
}

async function firewallWithSoc(): Promise<TestFirewall> {
  const firewall = await startTestFirewall();
  closers.push(() => firewall.close());
  // Changed "in the console": pull has a description to write back.
  await firewall.api.groups.create({
    name: 'soc',
    description: 'Tier-1 analysts (night shift)',
    permissions: [],
    user_ids: ['u-1001'],
  });
  return firewall;
}

const options = (dir: string) => ({
  paths: [dir],
  kinds: KINDS.filter((kind) => kind.section === 'groups'),
  adopt: false,
  concurrency: 2,
  cwd: dir,
  env: {},
});

describe('preparePull', () => {
  it('refuses a file edited while pull waits on the API, instead of editing it by stale positions', async () => {
    const firewall = await firewallWithSoc();
    const dir = await writeConfig({ 'groups.yaml': GROUPS });
    const file = join(dir, 'groups.yaml');
    const config = await loadDesiredState([dir], { cwd: dir, env: {} });
    // The server edits the file before it answers: deterministic, no timing involved.
    const url = await proxy(firewall.url, () => writeFile(file, EDITED));
    const api = createApiClient({ baseUrl: url, token: E2E_TOKEN });

    await expect(preparePull(config, api, options(dir))).rejects.toThrow(
      `${file} changed since pull read it; nothing was written, run pull again`,
    );
    expect(await readFile(file, 'utf8')).toBe(EDITED);
  });

  it('edits the text it read when nothing changed', async () => {
    const firewall = await firewallWithSoc();
    const dir = await writeConfig({ 'groups.yaml': GROUPS });
    const config = await loadDesiredState([dir], { cwd: dir, env: {} });
    const result = await preparePull(config, firewall.api, options(dir));
    expect(result.files.map((f) => f.after)).toEqual([
      GROUPS.replace('Tier-1 analysts', 'Tier-1 analysts (night shift)'),
    ]);
  });
});

describe('assertUnchanged', () => {
  it('passes while every file still holds the text the edits were made on', async () => {
    const dir = await writeConfig({ 'groups.yaml': GROUPS });
    const file = join(dir, 'groups.yaml');
    const fresh = join(dir, 'schedules.yaml');
    await expect(
      assertUnchanged(
        [
          { file, before: GROUPS, after: EDITED, created: false },
          { file: fresh, before: '', after: 'schedules: []\n', created: true },
        ],
        dir,
      ),
    ).resolves.toBeUndefined();
  });

  it('refuses a file changed after pull read it, and a file created meanwhile', async () => {
    const dir = await writeConfig({ 'groups.yaml': EDITED, 'schedules.yaml': 'schedules: []\n' });
    const file = join(dir, 'groups.yaml');
    await expect(assertUnchanged([{ file, before: GROUPS, after: '', created: false }], dir)).rejects.toThrow(
      `${file} changed since pull read it; nothing was written, run pull again`,
    );
    const fresh = join(dir, 'schedules.yaml');
    await expect(
      assertUnchanged([{ file: fresh, before: '', after: 'schedules: []\n', created: true }], dir),
    ).rejects.toThrow(`${fresh} changed since pull read it`);
  });
});
