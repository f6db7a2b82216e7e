/**
 * `wafctl emulator`: serve the API locally until SIGINT/SIGTERM. The emulator module (zod, yaml, the
 * whole server) is imported inside the action, so `wafctl --version` never pays for it.
 */
import { resolve } from 'node:path';
import { Command } from 'commander';
import { usageError } from '../core/errors.js';
import { isBearerToken, registerSecret, shortSecretWarning } from '../core/secrets.js';
import type { InterruptSignal, Io } from './io.js';
import { quoteValue } from './options.js';
import { writeErr, writeOut } from './output.js';

interface EmulatorFlags {
  host: string;
  port: string;
  adminToken?: string;
  adminTokenFile?: string;
  state?: string;
  seed?: string;
  latency?: string;
  faultRate?: string;
  faultSeed?: string;
  syncDelay?: string;
  /** Each `--sync-fail` given, as typed (comma lists not yet split). */
  syncFail: string[];
}

function parseNumber(flag: string, raw: string | undefined, check: (n: number) => boolean, expected: string) {
  if (raw === undefined) return undefined;
  const value = raw.trim() === '' ? Number.NaN : Number(raw);
  if (!check(value)) throw usageError(`${flag} must be ${expected}, got '${raw}'.`);
  return value;
}

/**
 * `--sync-delay MS` and `--sync-fail NAME[,NAME]` (repeatable) as startEmulator's options: how long
 * application-rule actions stay pending after a write, and the firewalls whose sync ends in error.
 */
export function syncOptions(flags: Pick<EmulatorFlags, 'syncDelay' | 'syncFail'>): {
  syncDelayMs?: number;
  syncFail?: string[];
} {
  const syncDelayMs = parseNumber(
    '--sync-delay',
    flags.syncDelay,
    (n) => Number.isSafeInteger(n) && n >= 0,
    'an integer >= 0 (milliseconds)',
  );
  const names = flags.syncFail.flatMap((value) => value.split(',').map((name) => name.trim()));
  if (names.some((name) => name === '')) {
    const given = flags.syncFail.map((value) => `'${value}'`).join(', ');
    throw usageError(`--sync-fail must be firewall names separated by commas, got ${given}.`);
  }
  return {
    ...(syncDelayMs === undefined ? {} : { syncDelayMs }),
    ...(names.length === 0 ? {} : { syncFail: [...new Set(names)] }),
  };
}

function waitForSignal(io: Io): Promise<InterruptSignal> {
  return new Promise((resolve) => {
    const stop = io.onSignal((signal) => {
      stop();
      resolve(signal);
    });
  });
}

async function runEmulator(flags: EmulatorFlags, io: Io): Promise<number> {
  const port = parseNumber(
    '--port',
    flags.port,
    (n) => Number.isInteger(n) && n >= 0 && n <= 65535,
    'an integer from 0 to 65535',
  );
  const latencyMs = parseNumber(
    '--latency',
    flags.latency,
    (n) => Number.isInteger(n) && n >= 0,
    'an integer >= 0 (milliseconds)',
  );
  const faultRate = parseNumber(
    '--fault-rate',
    flags.faultRate,
    (n) => n >= 0 && n <= 1,
    'a number from 0 to 1',
  );
  const faultSeed = parseNumber('--fault-seed', flags.faultSeed, Number.isSafeInteger, 'an integer');
  const sync = syncOptions(flags);
  const adminToken = await readAdminToken(flags, io);
  registerSecret(adminToken);
  if (adminToken !== undefined && !isBearerToken(adminToken)) {
    const source =
      flags.adminTokenFile !== undefined
        ? flags.adminTokenFile
        : flags.adminToken === undefined
          ? 'WAF_EMULATOR_ADMIN_TOKEN'
          : '--admin-token';
    throw usageError(
      `${source} must be a token of printable ASCII characters without spaces (an empty one would make any caller an administrator).`,
    );
  }

  const { loadSeedFile, startEmulator } = await import('../emulator/index.js');
  const seed = flags.seed === undefined ? undefined : await loadSeedFile(resolve(io.cwd, flags.seed));
  warnShortSecrets(io, adminToken, seed?.users ?? []);
  // A seeded password is a way in too: POST /api/v1/signin hands out a token.
  const seedHasToken =
    seed?.users?.some((user) => user.token !== undefined || user.password !== undefined) ?? false;
  if (adminToken === undefined && !seedHasToken) {
    throw usageError(
      'the emulator needs a token to accept requests: pass --admin-token-file FILE, set WAF_EMULATOR_ADMIN_TOKEN, ' +
        'or give --seed FILE with users that have a token or a password.',
    );
  }
  const emulator = await startEmulator({
    host: flags.host,
    port,
    adminToken,
    statePath: flags.state === undefined ? undefined : resolve(io.cwd, flags.state),
    seed,
    latencyMs,
    faultRate,
    faultSeed,
    ...sync,
    // A stale lock taken over, a torn journal line dropped: worth a line, not worth stopping.
    onNotice: (message) => writeErr(io, `Note: ${message}`),
  });
  // Handlers first: a script may signal as soon as it reads the ready line, and the default action
  // would kill the process with the lock held and the journal unfolded.
  const signal = waitForSignal(io);
  // Listening already: this line is the "ready" signal scripts wait for.
  writeOut(io, emulator.url);
  await signal;
  await emulator.close();
  return 0;
}

/**
 * The administrator token: from `--admin-token-file` (trimmed), else `--admin-token` (with a warning:
 * argv shows in `ps` to every user of the machine), else WAF_EMULATOR_ADMIN_TOKEN.
 */
async function readAdminToken(flags: EmulatorFlags, io: Io): Promise<string | undefined> {
  if (flags.adminTokenFile !== undefined && flags.adminToken !== undefined) {
    throw usageError('give either --admin-token-file FILE or --admin-token T, not both.');
  }
  if (flags.adminTokenFile !== undefined) {
    const { readSecretFile } = await import('./connection.js');
    return readSecretFile(flags.adminTokenFile, 'token', io.cwd);
  }
  if (flags.adminToken !== undefined) {
    writeErr(
      io,
      'Warning: --admin-token shows the token to every user of this machine (ps); use --admin-token-file FILE or WAF_EMULATOR_ADMIN_TOKEN.',
    );
    return flags.adminToken;
  }
  return io.env.WAF_EMULATOR_ADMIN_TOKEN || undefined;
}

/** Short secrets are redacted all the same (loadSeedFile registered them); one warning for each. */
function warnShortSecrets(
  io: Io,
  adminToken: string | undefined,
  users: readonly { username: string; token?: string | undefined; password?: string | undefined }[],
): void {
  const warnings = [shortSecretWarning('the admin token', 'token', adminToken)];
  for (const user of users) {
    const who = `seed user ${quoteValue(user.username)}`;
    warnings.push(shortSecretWarning(`the token of ${who}`, 'token', user.token));
    warnings.push(shortSecretWarning(`the password of ${who}`, 'password', user.password));
  }
  for (const warning of warnings) if (warning !== undefined) writeErr(io, `Warning: ${warning}.`);
}

/** `wafctl emulator`'s options and help; `done` is given the exit code. */
export function emulatorCommand(io: Io, done: (code: number) => void): Command {
  return new Command('emulator')
    .description('serve the WAF management API locally (for pipelines, demos and tests)')
    .option('--host <H>', 'interface to listen on', '127.0.0.1')
    .option('--port <N>', 'port to listen on (0 picks a free port)', '8080')
    .option(
      '--admin-token-file <FILE>',
      'read the administrator token from FILE (env: WAF_EMULATOR_ADMIN_TOKEN)',
    )
    .option(
      '--admin-token <T>',
      'administrator token on the command line (visible in ps: prefer --admin-token-file)',
    )
    .option(
      '--state <FILE>',
      'persist state to FILE (JSON) and FILE.journal (every change made durable before it is answered); ' +
        'FILE.lock keeps a second emulator off it',
    )
    .option('--seed <FILE>', 'seed users and read-only rules from FILE (JSON or YAML)')
    .option('--latency <MS>', 'delay every request by MS milliseconds')
    .option(
      '--fault-rate <R>',
      'probability (0..1) of injecting a fault into a request: 503, 429, 500 or reset after the work, ' +
        'or (writes only) a 200 with HTML, truncated JSON or status "error" after the work',
    )
    .option('--fault-seed <S>', 'seed for reproducible faults')
    .option(
      '--sync-delay <MS>',
      'application-rule actions stay "pending" for MS milliseconds after each write, then "synced" (default 0)',
    )
    .option(
      '--sync-fail <NAME[,NAME]>',
      'actions on these firewalls end in sync "error" (repeatable)',
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .action(async (flags: EmulatorFlags) => done(await runEmulator(flags, io)));
}
