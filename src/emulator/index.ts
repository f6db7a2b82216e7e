/**
 * The wafctl emulator: a local, in-memory fake of the whole WAF management API, the way localstack
 * fakes AWS. Used by `wafctl emulator`, by `--url embedded`, and by the end-to-end tests.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WafctlError } from '../core/errors.js';
import { isBearerToken, registerSecret } from '../core/secrets.js';
import type { FileFaultHook } from '../files/durable-files.js';
import { Authenticator } from './auth.js';
import type { CollectionSpec } from './collections.js';
import { FaultInjector, type FaultKind } from './faults.js';
import { BODY_LIMIT_BYTES } from './http.js';
import { Committer } from './persistence/commit.js';
import { openStateFile } from './persistence/open-state.js';
import { replayJournal } from './persistence/replay.js';
import type { StateFile } from './persistence/state-file.js';
import { type ApplicationRuleListShape, type Route, Router } from './router.js';
import { API_ROUTES } from './routes/index.js';
import { directoryOf, type EmulatorSeed, type ParsedSeed, parseSeed } from './seed.js';
import { createRequestListener } from './server.js';
import { RequestStats } from './stats.js';
import { type EmulatorClock, Store, SYSTEM_CLOCK } from './store.js';
import type { SyncSettings } from './sync.js';
import { type CollectionTable, SIGNIN_PRIVILEGE, tableWith } from './table.js';

export type { FileFaultHook, FileOperation } from '../files/durable-files.js';
export type { CollectionSpec } from './collections.js';
export type { FaultKind } from './faults.js';
export type { ApplicationRuleListShape, Route } from './router.js';
export { type EmulatorSeed, loadSeedFile } from './seed.js';
export type { EmulatorClock } from './store.js';

export interface EmulatorOptions {
  /** Default '127.0.0.1'. */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
  /** Administrator token: everything is allowed. */
  adminToken?: string;
  /**
   * Persist the store to this JSON file plus its journal (`FILE.journal`, one line per write, made
   * durable before the write is answered), locked by `FILE.lock`; loaded at start if present.
   */
  statePath?: string;
  /** Fold the journal into the state file once it reaches this size and the file's (default 4 MiB). */
  journalCompactBytes?: number;
  /** One-line notes for the user (a stale lock taken over, a torn journal line dropped). */
  onNotice?: (message: string) => void;
  /** Test-only: called before each state-file operation; throw (ENOSPC, EIO, ...) to make it fail. */
  fileFault?: FileFaultHook;
  /** Time a client has to send a request's headers (default 20 s); then 408 and the socket is closed. */
  headersTimeoutMs?: number;
  /** Time a client has to send a whole request, body included (default 120 s). */
  requestTimeoutMs?: number;
  /** How long an idle keep-alive connection stays open (default 5 s). */
  keepAliveTimeoutMs?: number;
  /**
   * Users (with tokens), read-only rules and groups; replaces the demo directory key by key. The
   * built-in `admin` user and `admins` group are always added (see seed.ts).
   */
  seed?: EmulatorSeed;
  /** Added to every API request. */
  latencyMs?: number;
  /** Probability (0..1) that an API request gets a fault. */
  faultRate?: number;
  /** Seed of the fault PRNG, for reproducible runs (default: random). */
  faultSeed?: number;
  /**
   * Restrict injected faults to these kinds (default: all of FAULT_KINDS); lets tests force one kind.
   * Write-only kinds (html_after, truncated_after, status_error_after) are never drawn for a read.
   */
  faultKinds?: readonly FaultKind[];
  /**
   * Milliseconds (on `clock`) an application-rule action stays `pending` after each write of its
   * rule, before it reaches `synced` (or `error`: `syncFail`). Default 0: at once (sync.ts).
   */
  syncDelayMs?: number;
  /** Firewall names whose actions end in sync `error` instead of `synced`. */
  syncFail?: readonly string[];
  /**
   * The emulator's time (UNIX ms): timestamps, and when a sync delay has passed. Default: the system
   * clock. Tests pass one they move forward (test/helpers/firewall.ts `manualClock`) to never sleep.
   */
  clock?: EmulatorClock;
  /** Shape of application-rule list rows (default 'full'; see routes/application-rules.ts). */
  applicationRuleListShape?: ApplicationRuleListShape;
  /**
   * Test-only: collections after the built-in table (collections.ts), kept, journaled, checked and
   * guarded like the built-in ones; a family sketched in the test tree (test/kinds/toy/) brings its
   * entry here and its routes in `extraRoutes`. A state file holding them loads only with them.
   */
  extraCollections?: readonly CollectionSpec[];
  /** Test-only: routes after the built-in ones, naming privileges of the table (extraCollections'). */
  extraRoutes?: readonly Route<string>[];
}

export interface RunningEmulator {
  /** `http://HOST:PORT`, no trailing slash. */
  url: string;
  close(): Promise<void>;
}

/** Documented in the README; a slow or stalled client cannot hold a socket longer than these. */
export const SERVER_TIMEOUTS = { headersMs: 20_000, requestMs: 120_000, keepAliveMs: 5_000 } as const;
const DEFAULT_COMPACT_BYTES = 4 * 1024 * 1024;

function checkTimeouts(options: EmulatorOptions, problems: string[]): void {
  const { headersTimeoutMs: headers, requestTimeoutMs: request, keepAliveTimeoutMs: keepAlive } = options;
  for (const [name, value] of [
    ['headers timeout', headers],
    ['request timeout', request],
    ['keep-alive timeout', keepAlive],
  ] as const) {
    if (value !== undefined && !(Number.isInteger(value) && value > 0)) {
      problems.push(`${name} must be an integer number of milliseconds > 0`);
    }
  }
  // node:http refuses a headers timeout above the request timeout.
  if ((headers ?? SERVER_TIMEOUTS.headersMs) > (request ?? SERVER_TIMEOUTS.requestMs)) {
    problems.push('headers timeout must not exceed the request timeout');
  }
}

function checkSync({ syncDelayMs, syncFail }: EmulatorOptions, problems: string[]): void {
  if (syncDelayMs !== undefined && !(Number.isSafeInteger(syncDelayMs) && syncDelayMs >= 0)) {
    problems.push('sync delay must be an integer number of milliseconds >= 0');
  }
  if (syncFail?.some((name) => typeof name !== 'string' || name.trim() === '')) {
    problems.push('sync-fail firewall names must not be empty');
  }
}

/** The sync settings the options ask for (checked by checkSync). */
function syncSettings(options: EmulatorOptions): SyncSettings {
  return { delayMs: options.syncDelayMs ?? 0, failing: new Set(options.syncFail ?? []) };
}

function checkOptions(options: EmulatorOptions): void {
  const problems: string[] = [];
  const { port, latencyMs, faultRate, faultSeed, journalCompactBytes } = options;
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65535)) {
    problems.push('port must be an integer from 0 to 65535');
  }
  if (latencyMs !== undefined && !(Number.isFinite(latencyMs) && latencyMs >= 0)) {
    problems.push('latency must be a number of milliseconds >= 0');
  }
  if (faultRate !== undefined && !(Number.isFinite(faultRate) && faultRate >= 0 && faultRate <= 1)) {
    problems.push('fault rate must be a number from 0 to 1');
  }
  if (faultSeed !== undefined && !Number.isInteger(faultSeed)) problems.push('fault seed must be an integer');
  if (
    journalCompactBytes !== undefined &&
    !(Number.isSafeInteger(journalCompactBytes) && journalCompactBytes >= 0)
  ) {
    problems.push('journal compaction size must be an integer number of bytes >= 0');
  }
  checkTimeouts(options, problems);
  checkSync(options, problems);
  if (options.adminToken !== undefined && !isBearerToken(options.adminToken)) {
    problems.push('the admin token must be printable ASCII characters without spaces, and not empty');
  }
  if (problems.length > 0)
    throw new WafctlError('USAGE', `emulator: ${problems.join('; ')}`, { userFault: true });
}

function listen(server: Server, host: string, port: number): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      const reason = error.code === 'EADDRINUSE' ? 'the address is already in use' : error.message;
      reject(
        new WafctlError('USAGE', `emulator cannot listen on ${host}:${port}: ${reason}`, { cause: error }),
      );
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve(server.address() as AddressInfo);
    });
  });
}

function createHttpServer(options: EmulatorOptions, listener: ReturnType<typeof createRequestListener>) {
  const headersTimeout = options.headersTimeoutMs ?? SERVER_TIMEOUTS.headersMs;
  const server = createServer(
    {
      headersTimeout,
      requestTimeout: options.requestTimeoutMs ?? SERVER_TIMEOUTS.requestMs,
      // Node checks both timeouts on this period (default 30 s): keep it well under the headers timeout.
      connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(headersTimeout / 4))),
    },
    listener,
  );
  server.keepAliveTimeout = options.keepAliveTimeoutMs ?? SERVER_TIMEOUTS.keepAliveMs;
  return server;
}

/** A store without a state file: the seed's directory (or the demo's) and the built-ins. */
function freshStore(table: CollectionTable, seed: ParsedSeed, clock: EmulatorClock): Store {
  const { users, rules, groups } = directoryOf(seed, new Date(clock.now()).toISOString());
  return Store.fromDirectory(table, users, rules, groups, clock);
}

/** The built-in routes and a test's; each must name sign-in or a privilege of the table. */
function routesFor(table: CollectionTable, options: EmulatorOptions): readonly Route<string>[] {
  const routes = [...API_ROUTES, ...(options.extraRoutes ?? [])];
  for (const route of routes) {
    if (route.privilege !== SIGNIN_PRIVILEGE && table.grant(route.privilege) === undefined) {
      throw new WafctlError(
        'USAGE',
        `emulator: route ${route.method} ${route.template} names the privilege '${route.privilege}', which no collection has`,
      );
    }
  }
  return routes;
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  checkOptions(options);
  registerSecret(options.adminToken);
  const seed = options.seed === undefined ? {} : parseSeed(options.seed, 'seed');
  const table = tableWith(options.extraCollections ?? []);
  const routes = routesFor(table, options);
  const opened =
    options.statePath === undefined
      ? undefined
      : await openStateFile(options.statePath, table.format, {
          compactBytes: options.journalCompactBytes ?? DEFAULT_COMPACT_BYTES,
          fault: options.fileFault ?? (() => undefined),
          notice: options.onNotice ?? (() => undefined),
        });
  let stateFile: StateFile | undefined;
  try {
    // A state file wins over the seed and the demo for everything it holds; tokens only ever come
    // from the seed (they are never written to the state file).
    const clock = options.clock ?? SYSTEM_CLOCK;
    const store = opened?.saved
      ? Store.fromState(table, opened.saved, clock)
      : freshStore(table, seed, clock);
    if (opened !== undefined) {
      replayJournal(opened.records, opened.journalPath, (record) => store.replay(record));
    }
    stateFile = opened?.start(() => store.snapshot());
    const listener = createRequestListener({
      router: new Router(routes),
      store,
      auth: new Authenticator(options.adminToken, seed.users ?? []),
      stats: new RequestStats(),
      faults: new FaultInjector(options.faultRate ?? 0, options.faultSeed, options.faultKinds),
      committer: new Committer(store, stateFile),
      latencyMs: options.latencyMs ?? 0,
      bodyLimit: BODY_LIMIT_BYTES,
      listShape: options.applicationRuleListShape ?? 'full',
      sync: syncSettings(options),
    });
    const server = createHttpServer(options, listener);
    const host = options.host ?? '127.0.0.1';
    const address = await listen(server, host, options.port ?? 0);
    const shownHost = host.includes(':') ? `[${host}]` : host;
    return {
      url: `http://${shownHost}:${address.port}`,
      close: async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        await closed;
        await stateFile?.close();
      },
    };
  } catch (error) {
    await (stateFile ? stateFile.close() : opened?.abandon());
    throw error;
  }
}
