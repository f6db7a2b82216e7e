/**
 * Resolves where, as whom and how patiently wafctl talks to the API: `--url` / `WAF_URL`, the token
 * from `--token-file` / `WAF_TOKEN` (never a flag), or `--url embedded`, which starts the emulator
 * in-process for this one command with a random administrator token that never leaves the process;
 * and the whole-response deadline of each request from `--timeout` / `WAF_TIMEOUT`.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { ApiClient, ApiClientOptions } from '../api/index.js';
import { DEFAULT_TIMEOUT_SECONDS } from '../api/retry.js';
import { usageError, WafctlError } from '../errors.js';
import { isBearerToken, registerSecret } from '../secrets.js';
import { type ConnectionFlags, quoteValue, readTimeout } from './options.js';
import { writeErr } from './output.js';
import { debugEnabled } from './report-error.js';

export interface Connection {
  baseUrl: string;
  token: string;
  /** Whole-response deadline of each request attempt, in seconds. */
  timeoutSeconds: number;
  /** Stops the embedded emulator, if any. Safe to call more than once. */
  close(): Promise<void>;
}

export const EMBEDDED = 'embedded';

function connectionError(message: string): WafctlError {
  return new WafctlError('CONNECTION', message, { userFault: true });
}

export async function openConnection(
  flags: ConnectionFlags,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Connection> {
  const url = flags.url ?? env.WAF_URL;
  if (url === undefined || url === '') {
    throw connectionError(`no API URL: pass --url URL or set WAF_URL (or use --url ${EMBEDDED}).`);
  }
  const timeoutSeconds = resolveTimeout(flags, env);
  if (url === EMBEDDED) return { ...(await openEmbedded(flags.emulatorState)), timeoutSeconds };
  if (flags.emulatorState !== undefined) {
    throw connectionError(`--emulator-state only applies with --url ${EMBEDDED}.`);
  }
  const token = await readToken(flags.tokenFile, env);
  return { baseUrl: url, token, timeoutSeconds, close: async () => {} };
}

/** `--timeout` (already checked by commander) wins over WAF_TIMEOUT; neither: the default. */
function resolveTimeout(flags: ConnectionFlags, env: NodeJS.ProcessEnv): number {
  if (flags.timeout !== undefined) return flags.timeout;
  const value = env.WAF_TIMEOUT;
  if (value === undefined) return DEFAULT_TIMEOUT_SECONDS;
  const read = readTimeout('WAF_TIMEOUT', value);
  if ('problem' in read) throw usageError(`${read.problem}, got ${quoteValue(value)}.`);
  return read.seconds;
}

async function readToken(tokenFile: string | undefined, env: NodeJS.ProcessEnv): Promise<string> {
  let token: string | undefined;
  if (tokenFile !== undefined) {
    try {
      token = (await readFile(tokenFile, 'utf8')).trim();
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? 'unreadable';
      throw connectionError(`cannot read the token file ${tokenFile}: ${reason}.`);
    }
    if (token === '') throw connectionError(`the token file ${tokenFile} is empty.`);
  } else {
    token = env.WAF_TOKEN;
    if (token === undefined || token === '') {
      throw connectionError('no API token: set WAF_TOKEN or pass --token-file FILE.');
    }
  }
  registerSecret(token);
  // Checked here, not left to fetch: its error would quote the header, and read like a bug.
  if (!isBearerToken(token)) {
    throw connectionError(
      `the API token ${tokenFile === undefined ? 'in WAF_TOKEN' : `in ${tokenFile}`} contains characters an HTTP header cannot carry (spaces, control or non-ASCII characters).`,
    );
  }
  return token;
}

async function openEmbedded(statePath: string | undefined): Promise<Omit<Connection, 'timeoutSeconds'>> {
  const token = randomBytes(24).toString('hex');
  registerSecret(token);
  const { startEmulator } = await import('../emulator/index.js');
  const emulator = await startEmulator({ port: 0, adminToken: token, ...(statePath ? { statePath } : {}) });
  let closed = false;
  return {
    baseUrl: emulator.url,
    token,
    close: async () => {
      if (closed) return;
      closed = true;
      await emulator.close();
    },
  };
}

/**
 * Runs `work` with a client for the resolved connection, and always stops an embedded emulator
 * afterwards. With WAFCTL_DEBUG=1 the client logs one (redacted) line per request to stderr.
 */
export async function withApiClient<T>(
  flags: ConnectionFlags,
  work: (api: ApiClient, connection: Connection) => Promise<T>,
  /** Client settings a command needs (e.g. `get --limit` reads small pages, one at a time). */
  clientOptions: Pick<ApiClientOptions, 'pageSize' | 'concurrency'> = {},
): Promise<T> {
  const connection = await openConnection(flags);
  try {
    const { createApiClient } = await import('../api/index.js');
    const api = createApiClient({
      ...clientOptions,
      baseUrl: connection.baseUrl,
      token: connection.token,
      timeoutSeconds: connection.timeoutSeconds,
      ...(debugEnabled() ? { log: writeErr } : {}),
    });
    return await work(api, connection);
  } finally {
    await connection.close();
  }
}
