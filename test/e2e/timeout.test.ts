/**
 * `--timeout` / `WAF_TIMEOUT` end to end: the built CLI against a server that sends its headers and
 * then trickles its body for ever must give up within the deadline, naming the host; bad values are
 * usage errors; a refused connection names the host too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeSlowServers, type SlowServer, startSlowServer } from '../api/slow-server.js';
import { runCli } from '../helpers/cli.js';
import { unreachableUrl } from '../helpers/firewall.js';

const TOKEN = 'e2e-timeout-token-7a6b5c';

let trickling: SlowServer;

beforeAll(async () => {
  trickling = await startSlowServer('trickle');
});

afterAll(closeSlowServers);

/** `wafctl get groups` against the trickling server, with `args` and `env`; how long it took. */
async function getGroups(args: string[], env: Record<string, string> = {}) {
  const started = performance.now();
  const result = await runCli(['get', 'groups', '--url', trickling.url, ...args], {
    env: { WAF_TOKEN: TOKEN, ...env },
  });
  return { ...result, ms: performance.now() - started };
}

describe('the whole-response deadline', () => {
  it('--timeout 0.5 gives up on a trickling body, naming the host, exit 1', async () => {
    const result = await getGroups(['--timeout', '0.5']);
    expect(result.stderr).toBe(
      `Error: [GET] /api/v1/groups: ${trickling.host} did not answer within 0.5 s\n`,
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.ms).toBeLessThan(10_000); // a 0.5 s deadline plus the start of a Node process, on a busy machine
  });

  it('WAF_TIMEOUT=0.5 does the same; --timeout wins over it', async () => {
    const [fromEnv, flagWins, flagWinsOverBadEnv] = await Promise.all([
      getGroups([], { WAF_TIMEOUT: '0.5' }),
      getGroups(['--timeout', '0.3'], { WAF_TIMEOUT: '0.5' }),
      getGroups(['--timeout', '0.3'], { WAF_TIMEOUT: 'abc' }),
    ]);
    expect(fromEnv.stderr).toBe(
      `Error: [GET] /api/v1/groups: ${trickling.host} did not answer within 0.5 s\n`,
    );
    expect(fromEnv.code).toBe(1);
    for (const result of [flagWins, flagWinsOverBadEnv]) {
      expect(result.stderr).toBe(
        `Error: [GET] /api/v1/groups: ${trickling.host} did not answer within 0.3 s\n`,
      );
      expect(result.code).toBe(1);
    }
  });

  it('is documented in --help, with its default and variable', async () => {
    const result = await runCli(['get', '--help']);
    expect(result.stdout).toMatch(/--timeout <SECONDS>/);
    expect(result.stdout.replace(/\s+/g, ' ')).toContain('(default: 60, env: WAF_TIMEOUT)');
  });
});

describe('invalid timeouts are usage errors', () => {
  it('--timeout 0, -1, abc, empty, 1e3, Infinity, 0x10: exit 1, naming the option and the value', async () => {
    const values = ['0', '-1', 'abc', '', '1e3', 'Infinity', '0x10'];
    const requestsBefore = trickling.received.length;
    const results = await Promise.all(values.map((value) => getGroups(['--timeout', value])));
    for (const [i, result] of results.entries()) {
      expect(result.stderr).toContain(
        `option '--timeout <SECONDS>' argument '${values[i]}' is invalid. --timeout must be a positive number of seconds (e.g. 60 or 0.5).`,
      );
      expect(result.code).toBe(1);
    }
    expect(trickling.received).toHaveLength(requestsBefore); // refused before any request
  });

  it('WAF_TIMEOUT 0, -2, abc, blank: exit 1, naming the variable and the value (empty is unset)', async () => {
    const values = ['0', '-2', 'abc', ' '];
    const requestsBefore = trickling.received.length;
    const results = await Promise.all(values.map((value) => getGroups([], { WAF_TIMEOUT: value })));
    for (const [i, result] of results.entries()) {
      expect(result.stderr).toBe(
        `Error: WAF_TIMEOUT must be a positive number of seconds (e.g. 60 or 0.5), got ${JSON.stringify(values[i])}.\n`,
      );
      expect(result.code).toBe(1);
    }
    expect(trickling.received).toHaveLength(requestsBefore); // refused before any request
  });
});

describe('network errors', () => {
  it('a refused connection names the host and port', async () => {
    const url = await unreachableUrl();
    const result = await runCli(['get', 'groups', '--url', url], { env: { WAF_TOKEN: TOKEN } });
    expect(result.stderr).toBe(
      `Error: [GET] /api/v1/groups: cannot reach ${new URL(url).host}: ECONNREFUSED\n`,
    );
    expect(result.code).toBe(1);
  });
});
