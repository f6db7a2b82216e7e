/**
 * Group members written by username (issue 30): refresh resolves them to ids through
 * GET /api/v1/users, export writes usernames, and a server without /users falls back to ids.
 */

import { rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startTestFirewall, type TestFirewall, writeConfig } from '../helpers/firewall.js';

const NO_CHANGES = 'No changes. The firewall matches the configuration.\n';

let firewall: TestFirewall;
const dirs: string[] = [];
beforeEach(async () => {
  firewall = await startTestFirewall();
});
afterEach(async () => {
  await firewall.close();
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function config(text: string): Promise<string> {
  const dir = await writeConfig({ 'groups.yaml': text });
  dirs.push(dir);
  return dir;
}

/** A server in front of the firewall that has no /api/v1/users (an older Seer Box): 404 there. */
async function withoutUsers(target: string): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    if ((req.url ?? '').startsWith('/api/v1/users')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: 'error', message: 'Not Found' }));
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === 'string' && name !== 'host' && name !== 'content-length') headers[name] = value;
      }
      const method = req.method ?? 'GET';
      const answer = await fetch(`${target}${req.url}`, {
        method,
        headers,
        ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
      });
      res.writeHead(answer.status, {
        'content-type': answer.headers.get('content-type') ?? 'application/json',
      });
      res.end(Buffer.from(await answer.arrayBuffer()));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('group members by username', () => {
  it('plans and applies usernames as ids, then plans no changes', async () => {
    const dir = await config('groups:\n  - name: soc\n    users: [alice, bob, u-1003]\n');
    const plan = await runCli(['plan', dir], { env: firewall.env });
    expect(plan.stderr).toBe('');
    expect(plan.stdout).toContain('group.soc will be created');
    // The plan compares and sends ids, and names them as the listing does (issue 40).
    expect(plan.stdout).toContain('members added: alice (u-1001), bob (u-1002), carol (u-1003)');
    expect(plan.stdout).toContain('+ "carol (u-1003)"');
    const json = JSON.parse((await runCli(['plan', dir, '--format', 'json'], { env: firewall.env })).stdout);
    expect(json.changes[0].after.users).toEqual(['u-1001', 'u-1002', 'u-1003']);
    expect(json.usernames).toEqual({ 'u-1001': 'alice', 'u-1002': 'bob', 'u-1003': 'carol' });

    const apply = await runCli(['apply', dir, '--auto-approve'], { env: firewall.env });
    expect(apply.stderr).not.toContain('Note:');
    expect(apply.code).toBe(0);
    const created = (await firewall.api.groups.list()).find((g) => g.name === 'soc');
    const members = (await firewall.api.groups.get(created?.id ?? '')).users?.map((u) => u.id).sort();
    expect(members).toEqual(['u-1001', 'u-1002', 'u-1003']);

    const again = await runCli(['plan', dir, '--detailed-exitcode'], { env: firewall.env });
    expect(again.stdout).toBe(NO_CHANGES);
    expect(again.code).toBe(0);
    // Ids and usernames of the same users are the same members: no flapping.
    const byIds = await config('groups:\n  - name: soc\n    users: [u-1002, u-1001, carol]\n');
    expect((await runCli(['plan', byIds, '--detailed-exitcode'], { env: firewall.env })).stdout).toBe(
      NO_CHANGES,
    );
  });

  it('names an unknown member at its list item, with the nearest username', async () => {
    const dir = await config('groups:\n  - name: soc\n    users:\n      - alice\n      - bobb\n');
    const plan = await runCli(['plan', dir], { env: firewall.env });
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain(
      'groups.yaml:5:9 groups[0].users[1]: unknown user "bobb": neither a username nor a user id the server knows (did you mean "bob"?)',
    );
    expect(await firewall.api.groups.list()).toHaveLength(1); // the built-in admins only
  });

  it("an id that is also another user's username resolves to the id, and says which is which", async () => {
    const clash = await startTestFirewall({
      seed: {
        users: [
          { id: 'u-1', username: 'alice' },
          { id: 'u-2', username: 'u-1' },
        ],
      },
    });
    try {
      const dir = await config('groups:\n  - name: soc\n    users:\n      - u-1\n');
      const plan = await runCli(['plan', dir, '--format', 'json'], { env: clash.env });
      expect(plan.code).toBe(0);
      expect(JSON.parse(plan.stdout).changes[0].after.users).toEqual(['u-1']);
      expect(plan.stderr).toContain(
        'groups.yaml:4:9 groups[0].users[0]: "u-1" is the id of user u-1 and also the username of user u-2: taken as the id (ids win); write u-2 to name the other',
      );
      const plain = await runCli(['plan', await config('groups:\n  - name: soc\n    users: [alice]\n')], {
        env: clash.env,
      });
      expect(plain.stderr).toBe('');
    } finally {
      await clash.close();
    }
  });

  it('export writes usernames, and the export plans to no changes', async () => {
    await firewall.api.groups.create({ name: 'soc', permissions: [], user_ids: ['u-1003', 'u-1001'] });
    const exported = await runCli(['export'], { env: firewall.env });
    expect(exported.stderr).toBe('');
    expect(exported.stdout).toContain('users: [alice, carol]');
    expect(exported.stdout).not.toContain('u-1001');

    const dir = await config('');
    await writeFile(join(dir, 'groups.yaml'), exported.stdout);
    const plan = await runCli(['plan', dir, '--detailed-exitcode'], { env: firewall.env });
    expect(plan.stdout).toBe(NO_CHANGES);
    expect(plan.code).toBe(0);
  });

  it('a server without /users (404): members are ids as written, with one note', async () => {
    const proxy = await withoutUsers(firewall.url);
    try {
      const env = { ...firewall.env, WAF_URL: proxy.url };
      const dir = await config('groups:\n  - name: soc\n    users: [u-1001]\n');
      const apply = await runCli(['apply', dir, '--auto-approve'], { env });
      expect(apply.code).toBe(0);
      const notes = apply.stderr.split('\n').filter((line) => line.includes('no user listing'));
      expect(notes).toEqual([
        'Note: the server has no user listing (GET /api/v1/users answered 404): group members are taken as user ids, as written, and exported as ids.',
      ]);
      const again = await runCli(['plan', dir, '--detailed-exitcode'], { env });
      expect(again.stdout).toBe(NO_CHANGES);

      const exported = await runCli(['export'], { env });
      expect(exported.stdout).toContain('u-1001');
      expect(exported.stderr.match(/no user listing/g)).toHaveLength(1);

      // A username cannot be resolved there: it is sent as written, and the server refuses it.
      const named = await config('groups:\n  - name: soc\n    users: [alice]\n');
      const refused = await runCli(['apply', named, '--auto-approve'], { env });
      expect(refused.code).toBe(1);
      expect(`${refused.stdout}${refused.stderr}`).toContain("unknown user id 'alice'");
    } finally {
      await proxy.close();
    }
  });
});

describe('pull with members written by username', () => {
  it('writes a member added live by its username, keeps the names, and plans no changes after', async () => {
    const dir = await config('groups:\n  - name: soc\n    users: [alice]   # the analysts\n');
    expect((await runCli(['apply', dir, '--auto-approve'], { env: firewall.env })).code).toBe(0);
    const soc = (await firewall.api.groups.list()).find((group) => group.name === 'soc');
    await firewall.api.groups.update(soc?.id ?? '', {
      name: 'soc',
      permissions: [],
      user_ids: ['u-1001', 'u-1002'],
    });

    const pulled = await runCli(['pull', dir], { env: firewall.env });
    expect(pulled.stderr).toBe('');
    expect(pulled.code).toBe(0);
    const { readFile } = await import('node:fs/promises');
    expect(await readFile(join(dir, 'groups.yaml'), 'utf8')).toBe(
      'groups:\n  - name: soc\n    users: [alice, bob]   # the analysts\n',
    );
    expect((await runCli(['plan', dir], { env: firewall.env })).stdout).toBe(NO_CHANGES);
  });
});
