/**
 * End-to-end fixtures: a real emulator on a free port, the environment the CLI needs to reach it,
 * an API client for out-of-band changes, and temporary configuration directories.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { onTestFinished } from 'vitest';
import { type ApiClient, createApiClient } from '../../src/api/index.js';
import { type EmulatorOptions, startEmulator } from '../../src/emulator/index.js';

export const E2E_TOKEN = 'e2e-admin-token-7f3a9c';

export interface Stats {
  total: number;
  by_route: Record<string, number>;
}

export interface TestFirewall {
  url: string;
  /** WAF_URL and WAF_TOKEN for `runCli`. */
  env: Record<string, string>;
  api: ApiClient;
  stats(): Promise<Stats>;
  resetStats(): Promise<void>;
  close(): Promise<void>;
}

export async function startTestFirewall(options: EmulatorOptions = {}): Promise<TestFirewall> {
  const emulator = await startEmulator({ port: 0, adminToken: E2E_TOKEN, ...options });
  return {
    url: emulator.url,
    env: { WAF_URL: emulator.url, WAF_TOKEN: E2E_TOKEN },
    api: createApiClient({ baseUrl: emulator.url, token: E2E_TOKEN }),
    stats: async () => (await (await fetch(`${emulator.url}/__emulator/stats`)).json()) as Stats,
    resetStats: async () => {
      await fetch(`${emulator.url}/__emulator/stats/reset`, { method: 'POST' });
    },
    close: () => emulator.close(),
  };
}

/** Writes `files` (relative path -> text) into `dir`, creating the directories they need. */
export async function writeFiles(dir: string, files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
}

/** Writes `files` (relative path -> YAML text) into a new temporary directory and returns it. */
export async function writeConfig(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'wafctl-config-'));
  await writeFiles(dir, files);
  return dir;
}

/**
 * A loopback URL that refuses connections (ECONNREFUSED), on a port this test holds until it ends:
 * the local end of a connection the test keeps open to a listener of its own. Nothing listens on
 * that port, and no other test can be given it (a freed port could be taken by another worker's
 * emulator at once).
 */
export async function unreachableUrl(): Promise<string> {
  const { createServer, connect } = await import('node:net');
  const accepted = new Set<import('node:net').Socket>();
  const server = createServer((socket) => accepted.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as import('node:net').AddressInfo;
  const held = connect({ host: '127.0.0.1', port });
  await new Promise<void>((resolve, reject) => held.once('connect', resolve).once('error', reject));
  onTestFinished(async () => {
    held.destroy();
    for (const socket of accepted) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return `http://127.0.0.1:${held.localPort}`;
}
