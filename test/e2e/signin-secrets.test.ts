/**
 * The sign-in password and the token it obtains are secrets: with WAFCTL_DEBUG=1, against a server
 * that echoes both back everywhere it can (messages, records, refusals), neither reaches stdout or
 * stderr, raw, JSON-escaped or URL-encoded. The server is a stand-in whose token the test knows (the
 * emulator's are random), speaking just enough of the API for `get groups`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { group } from '../api/helpers.js';
import { runCli } from '../helpers/cli.js';
import { writeConfig } from '../helpers/firewall.js';

const PASSWORD = 'pa"ss\\wo/rd é&x=1 +7';
const TOKEN = 'signed"in\\tok/en-9f8e7d';
const FORMS = [PASSWORD, TOKEN].flatMap((secret) => [
  secret,
  JSON.stringify(secret).slice(1, -1),
  encodeURIComponent(secret),
  new URLSearchParams({ s: secret }).toString().slice(2),
]);
const leaks = (text: string) => FORMS.filter((form) => text.includes(form));

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return JSON.parse(text) as Record<string, unknown>;
}

/** Echoes the password and the token in every answer it can. */
async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const echo = `token ${TOKEN} password ${PASSWORD} ${encodeURIComponent(PASSWORD)}`;
  if (req.method === 'POST' && req.url === '/api/v1/signin') {
    const body = await readJson(req);
    if (body.password !== PASSWORD) {
      return send(res, 401, { status: 'error', message: `wrong password ${String(body.password)}` });
    }
    return send(res, 200, { status: 'ok', message: `welcome, ${echo}`, data: { token: TOKEN } });
  }
  if (req.headers.authorization !== `Bearer ${TOKEN}`) {
    return send(res, 403, { status: 'error', message: `Forbidden: ${echo}` });
  }
  const record = group({ description: echo });
  if (req.url === '/api/v1/groups') return send(res, 200, { status: 'ok', data: { groups: [record] } });
  return send(res, 200, { status: 'ok', data: { group: record } });
}

let server: Server;
let url: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('the sign-in password and the obtained token, with WAFCTL_DEBUG=1', () => {
  it('never reach the output of a command that signs in and reads records echoing them', async () => {
    const env = {
      WAF_URL: url,
      WAF_SIGNIN_USERNAME: 'alice',
      WAF_SIGNIN_PASSWORD: PASSWORD,
      WAFCTL_DEBUG: '1',
    };
    const json = await runCli(['get', 'groups', '--output', 'json'], { env });
    expect(json.code, json.stderr).toBe(0);
    expect(json.stderr).toMatch(/^--> POST \/api\/v1\/signin\n<-- 200 POST \/api\/v1\/signin/);
    expect((JSON.parse(json.stdout) as { description: string }[])[0]?.description).toBe(
      'token [REDACTED] password [REDACTED] [REDACTED]',
    );
    const yaml = await runCli(['get', 'groups', '42', '--output', 'yaml'], { env });
    expect(yaml.code, yaml.stderr).toBe(0);
    expect(leaks(json.stdout + json.stderr + yaml.stdout + yaml.stderr)).toEqual([]);
  });

  it('never reach the output with --password-file either, nor a refusal that echoes the password', async () => {
    const dir = await writeConfig({ password: `${PASSWORD}\n` });
    const env = { WAF_URL: url, WAF_SIGNIN_USERNAME: 'alice', WAFCTL_DEBUG: '1' };
    const ok = await runCli(['get', 'groups', '--password-file', join(dir, 'password')], { env });
    expect(ok.code, ok.stderr).toBe(0);

    const refused = await runCli(['get', 'groups'], {
      env: { ...env, WAF_SIGNIN_PASSWORD: `${PASSWORD}-wrong` },
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('Error: sign-in as alice failed: wrong password [REDACTED]\n');
    expect(leaks(ok.stdout + ok.stderr + refused.stdout + refused.stderr)).toEqual([]);
  });
});
