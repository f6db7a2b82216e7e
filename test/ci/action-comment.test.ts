/**
 * The action's sticky pull-request comment (`comment: true`) against a local HTTP server standing in
 * for the GitHub REST API: created once, then updated in place, found on a later page, the token
 * only in the Authorization header, and a clear error (method, path, status, message) on a refusal.
 * Run end to end: dist/action.mjs with a stub wafctl, as the runner runs it.
 */

import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { upsertComment } from '../../src/action/comment.js';
import { runAction, stubCli } from './action-helpers.js';

const TOKEN = 'ghs_test_token_0123456789';

interface Seen {
  method: string;
  url: string;
  authorization: string | undefined;
  body: string;
  /** Everything but the Authorization header: the token must appear nowhere else. */
  rest: string;
}

interface Comment {
  id: number;
  body: string;
  html_url: string;
  user?: { login: string };
}

/** Who the job's token comments as. */
const BOT = { login: 'github-actions[bot]' };

/** A GitHub API of one repository (o/r) and one pull request (#5), 2 comments a page. */
async function fakeGitHub(options: { comments?: Comment[]; status?: number } = {}) {
  const comments: Comment[] = options.comments ?? [];
  const seen: Seen[] = [];
  let nextId = 1000;
  const server = createServer(async (request: IncomingMessage, response) => {
    let body = '';
    for await (const chunk of request) body += chunk;
    const { authorization, ...headers } = request.headers;
    seen.push({
      method: request.method ?? '',
      url: request.url ?? '',
      authorization,
      body,
      rest: JSON.stringify({ url: request.url, headers, body }),
    });
    const send = (status: number, payload: unknown, extra: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': 'application/json', ...extra });
      response.end(JSON.stringify(payload));
    };
    if (options.status !== undefined) {
      return send(options.status, { message: 'Resource not accessible by integration' });
    }
    const url = new URL(request.url ?? '/', 'http://x');
    if (request.method === 'GET' && url.pathname === '/repos/o/r/issues/5/comments') {
      const page = Number(url.searchParams.get('page') ?? '1');
      const size = 2;
      const last = Math.max(1, Math.ceil(comments.length / size));
      const link: Record<string, string> =
        page < last
          ? {
              link: `<http://${request.headers.host}/repos/o/r/issues/5/comments?per_page=2&page=${page + 1}>; rel="next"`,
            }
          : {};
      return send(200, comments.slice((page - 1) * size, page * size), link);
    }
    if (request.method === 'POST' && url.pathname === '/repos/o/r/issues/5/comments') {
      const comment = {
        id: nextId++,
        body: JSON.parse(body).body,
        html_url: `https://github.test/o/r/pull/5#c${nextId}`,
        user: BOT,
      };
      comments.push(comment);
      return send(201, comment);
    }
    const patch = /^\/repos\/o\/r\/issues\/comments\/(\d+)$/.exec(url.pathname);
    if (request.method === 'PATCH' && patch) {
      const comment = comments.find((c) => c.id === Number(patch[1]));
      if (!comment) return send(404, { message: 'Not Found' });
      comment.body = JSON.parse(body).body;
      return send(200, comment);
    }
    send(404, { message: 'Not Found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  servers.push(server);
  return { url: `http://127.0.0.1:${port}`, comments, seen };
}

const servers: ReturnType<typeof createServer>[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

/** A pull_request event file, as GITHUB_EVENT_PATH names it. */
async function pullRequestEvent(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'wafctl-event-'));
  const file = join(dir, 'event.json');
  await writeFile(file, JSON.stringify({ action: 'synchronize', pull_request: { number: 5 } }));
  return file;
}

async function planWithComment(api: string, inputs: Record<string, string> = {}, exit?: number) {
  const stub = await stubCli(exit);
  const result = await runAction(
    { command: 'plan', paths: 'config', comment: 'true', 'github-token': TOKEN, ...inputs },
    {
      cwd: stub.dir,
      env: {
        WAFCTL_ACTION_CLI: stub.cli,
        GITHUB_EVENT_PATH: await pullRequestEvent(),
        GITHUB_EVENT_NAME: 'pull_request',
        GITHUB_REPOSITORY: 'o/r',
        GITHUB_API_URL: api,
      },
    },
  );
  // wafctl never needs the GitHub token: the action does not pass it on.
  const tokens = await stub.tokens();
  expect(tokens.length).toBeGreaterThan(0);
  expect(tokens.flat()).not.toContain('INPUT_GITHUB-TOKEN');
  return result;
}

describe('the action: the sticky pull-request comment', () => {
  it('creates ONE comment, then updates the same comment on the next run', async () => {
    const github = await fakeGitHub({ comments: [{ id: 1, body: 'LGTM', html_url: 'h1' }] });
    const first = await planWithComment(github.url);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(first.stdout).toContain('wafctl action: created the pull-request comment');
    expect(github.comments).toHaveLength(2);
    expect(github.comments[1]?.body).toBe('<!-- wafctl-plan -->\nplan\n');

    const second = await planWithComment(github.url, {}, 3);
    expect(second.code).toBe(3); // fail-on's exit, the comment posted all the same
    expect(second.stdout).toContain('wafctl action: updated the pull-request comment');
    expect(github.comments).toHaveLength(2);
    expect(github.seen.map((r) => r.method)).toEqual(['GET', 'POST', 'GET', 'PATCH']);
    expect(github.seen.at(-1)?.url).toBe(`/repos/o/r/issues/comments/${github.comments[1]?.id}`);
  });

  it('finds its comment on a later page', async () => {
    const others = [1, 2, 3].map((id) => ({ id, body: `comment ${id}`, html_url: `h${id}` }));
    const github = await fakeGitHub({
      comments: [...others, { id: 4, body: '<!-- wafctl-plan:staging -->\nold', html_url: 'h4', user: BOT }],
    });
    const result = await planWithComment(github.url, { environment: 'staging' });
    expect(result.code, result.stdout).toBe(0);
    expect(github.seen.map((r) => `${r.method} ${r.url}`)).toEqual([
      'GET /repos/o/r/issues/5/comments?per_page=100',
      'GET /repos/o/r/issues/5/comments?per_page=2&page=2',
      'PATCH /repos/o/r/issues/comments/4',
    ]);
    expect(github.comments[3]?.body).toBe('<!-- wafctl-plan:staging -->\n<!-- wafctl-plan -->\nplan\n');
  });

  it("never edits another author's comment that starts with the marker: its own is created", async () => {
    const planted = {
      id: 7,
      body: '<!-- wafctl-plan -->\nplanted',
      html_url: 'h7',
      user: { login: 'mallory' },
    };
    const github = await fakeGitHub({ comments: [planted] });
    const result = await planWithComment(github.url);
    expect(result.code, result.stdout).toBe(0);
    expect(github.seen.map((r) => r.method)).toEqual(['GET', 'POST']);
    expect(github.comments[0]?.body).toBe('<!-- wafctl-plan -->\nplanted');
    // With a personal token, comment-author names its user.
    const mine = await fakeGitHub({ comments: [{ ...planted, user: { login: 'ci-user' } }] });
    const updated = await planWithComment(mine.url, { 'comment-author': 'ci-user' });
    expect(updated.code, updated.stdout).toBe(0);
    expect(mine.seen.map((r) => r.method)).toEqual(['GET', 'PATCH']);
  });

  it('sends the token only in the Authorization header, and never prints it', async () => {
    const github = await fakeGitHub();
    const result = await planWithComment(github.url);
    expect(result.code).toBe(0);
    for (const request of github.seen) {
      expect(request.authorization).toBe(`Bearer ${TOKEN}`);
      expect(request.rest).not.toContain(TOKEN);
    }
    expect(result.stdout + result.stderr + result.summary).not.toContain(TOKEN);
  });

  it('a refusal (403) fails the step with the method, path, status and message, not the token', async () => {
    const github = await fakeGitHub({ status: 403 });
    const result = await planWithComment(github.url);
    expect(result.code).toBe(1);
    expect(result.outputs).toMatchObject({ 'exit-code': '2', 'has-changes': 'true' });
    expect(result.stdout).toContain(
      '::error::wafctl action: comment: GitHub API GET /repos/o/r/issues/5/comments?per_page=100: 403 Resource not accessible by integration',
    );
    expect(result.stdout).toContain('pull-requests: write');
    expect(result.stdout + result.stderr).not.toContain(TOKEN);
  });

  it('not on a pull request: a warning, no request, the step passes', async () => {
    const github = await fakeGitHub();
    const stub = await stubCli();
    const result = await runAction(
      { command: 'drift', paths: 'config', comment: 'true', 'github-token': TOKEN },
      {
        cwd: stub.dir,
        env: { WAFCTL_ACTION_CLI: stub.cli, GITHUB_EVENT_NAME: 'schedule', GITHUB_API_URL: github.url },
      },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      '::warning::wafctl action: comment: this run is not for a pull request (schedule)',
    );
    expect(github.seen).toEqual([]);
  });

  it('does not follow a next link to another origin with the token', async () => {
    const calls: string[] = [];
    const fetch = (async (url: URL) => {
      calls.push(String(url));
      return new Response('[]', {
        status: 200,
        headers: { link: '<https://evil.test/steal?page=2>; rel="next"' },
      });
    }) as typeof globalThis.fetch;
    await expect(
      upsertComment({
        apiUrl: 'https://api.github.test',
        repository: 'o/r',
        issue: 5,
        token: TOKEN,
        marker: 'm',
        author: 'github-actions[bot]',
        body: 'b',
        fetch,
      }),
    ).rejects.toThrow('GitHub API GET /steal?page=2: refusing to send the token to https://evil.test');
    expect(calls).toEqual(['https://api.github.test/repos/o/r/issues/5/comments?per_page=100']);
  });
});
