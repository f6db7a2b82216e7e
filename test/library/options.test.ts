/**
 * The library checks its options before any work (issue 50): a JavaScript caller, or a TypeScript
 * one with `any`, may pass anything; a wrong type or value is a `USAGE` error whose one line names the
 * option by its path and what it expected, a connection that lacks what it needs says what, and a
 * credential or a variable of `env` is never quoted, only its type. Never a `TypeError`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apply,
  drift,
  exportState,
  isWafctlError,
  plan,
  test as runRuleTests,
  validate,
} from '../../src/library/index.js';
import type { ApplyOptions } from '../../src/library/types.js';
import { E2E_TOKEN, startTestFirewall, type TestFirewall, unreachableUrl } from '../helpers/firewall.js';
import { EXAMPLES } from '../helpers/fixtures.js';

/** Values that look like secrets: none may appear in any message. */
const TOKEN = 'tok-9f3a61c2-secret';
const PASSWORD = 'pw-hunter2-secret';
const SECRETS = [TOKEN, PASSWORD, '424242'];

/** Options as a JavaScript caller passes them: anything. */
const untyped = (options: unknown) => options as never;

/** Set by each test: nothing answers there, so a call that got past its checks fails otherwise. */
let url = '';

interface Case {
  name: string;
  call: () => Promise<unknown>;
  code: 'USAGE' | 'CONNECTION';
  message: string;
}

/** A connection that would do (`url` is read when a case runs). */
const good = () => ({ url, token: TOKEN });
/** No such directory: a call that read its configuration before its checks would fail otherwise. */
const cwd = '/nonexistent/wafctl-options-test';

/** The cases of each function. */
const CASES: Record<string, Case[]> = {
  plan: [
    {
      name: 'a connection without a token or a sign-in',
      call: () => plan(untyped({ cwd, connection: { url } })),
      code: 'CONNECTION',
      message:
        'plan: no API token: give options.connection.token, or a sign-in (options.connection.username and password).',
    },
    {
      name: 'a token that is no string',
      call: () => plan(untyped({ cwd, connection: { url, token: 424242 } })),
      code: 'USAGE',
      message: 'plan: options.connection.token: expected a string, got a number',
    },
    {
      name: 'paths as one string',
      call: () => plan(untyped({ cwd, connection: good(), paths: 'file.yaml' })),
      code: 'USAGE',
      message: 'plan: options.paths: expected a list of paths (string[]), got a string',
    },
    {
      name: 'a path that is no string',
      call: () => plan(untyped({ cwd, connection: good(), paths: ['.', 3] })),
      code: 'USAGE',
      message: 'plan: options.paths[1]: expected a path (a string), got a number',
    },
    {
      name: 'a misspelt option',
      call: () => plan(untyped({ cwd, connection: good(), tagret: ['group.soc'] })),
      code: 'USAGE',
      message: 'plan: options.tagret: unknown option (did you mean "target"?)',
    },
    {
      name: 'an option no function takes, and nothing near it',
      call: () => plan(untyped({ cwd, connection: good(), colour: 'red' })),
      code: 'USAGE',
      message:
        'plan: options.colour: unknown option; plan takes cwd, env, signal, clock, onNote, onDebug, paths, environment, connection, target, exclude, kind',
    },
    {
      name: 'a misspelt field of the connection, holding a secret',
      call: () => plan(untyped({ cwd, connection: { url, tokn: TOKEN } })),
      code: 'USAGE',
      message: 'plan: options.connection.tokn: unknown option (did you mean "token"?)',
    },
    {
      name: 'a timeout of zero',
      call: () => plan(untyped({ cwd, connection: { ...good(), timeoutSeconds: 0 } })),
      code: 'USAGE',
      message:
        'plan: options.connection.timeoutSeconds: expected a positive number of seconds, at most 2147483, got 0',
    },
    {
      name: 'a timeout a timer cannot hold',
      call: () => plan(untyped({ cwd, connection: { ...good(), timeoutSeconds: 3e6 } })),
      code: 'USAGE',
      message:
        'plan: options.connection.timeoutSeconds: expected a positive number of seconds, at most 2147483, got 3000000',
    },
    {
      name: 'a clock whose now is no function',
      call: () => plan(untyped({ cwd, connection: good(), clock: { now: 5 } })),
      code: 'USAGE',
      message: 'plan: options.clock.now: expected a function, got a number',
    },
    {
      name: 'a signal that is no AbortSignal',
      call: () => plan(untyped({ cwd, connection: good(), signal: 'stop' })),
      code: 'USAGE',
      message: 'plan: options.signal: expected an AbortSignal (aborted, addEventListener), got a string',
    },
    {
      name: 'a variable that is no string (its value is not shown)',
      call: () => plan(untyped({ cwd, connection: good(), env: { WAF_TOKEN: 424242, HOME: '/root' } })),
      code: 'USAGE',
      message: 'plan: options.env.WAF_TOKEN: expected a string, got a number',
    },
    {
      name: 'env as a list',
      call: () => plan(untyped({ cwd, connection: good(), env: [`WAF_TOKEN=${TOKEN}`] })),
      code: 'USAGE',
      message: 'plan: options.env: expected a record of variables (string values), got an array',
    },
    {
      name: 'no options at all',
      call: () => plan(untyped(undefined)),
      code: 'USAGE',
      message: 'plan: options: expected an object of options, got undefined',
    },
    {
      name: 'no cwd',
      call: () => plan(untyped({ connection: good() })),
      code: 'USAGE',
      message: 'plan: options.cwd: expected a directory (a string), got undefined',
    },
    {
      name: 'kind as one string',
      call: () => plan(untyped({ cwd, connection: good(), kind: 'groups' })),
      code: 'USAGE',
      message: 'plan: options.kind: expected a list of families (string[]), got a string',
    },
  ],
  drift: [
    {
      name: 'no connection and no environment',
      call: () => drift(untyped({ cwd })),
      code: 'CONNECTION',
      message:
        'drift: no firewall: give options.connection ({url, token} or {url, username, password}), or options.environment.',
    },
    {
      name: 'a token without a URL',
      call: () => drift(untyped({ cwd, connection: { token: TOKEN } })),
      code: 'CONNECTION',
      message: 'drift: no API URL: give options.connection.url, or options.environment.',
    },
    {
      name: 'the connection as a URL string',
      call: () => drift(untyped({ cwd, connection: url })),
      code: 'USAGE',
      message:
        'drift: options.connection: expected a connection ({url, token} or {url, username, password}), got a string',
    },
    {
      name: 'a sign-in without a password',
      call: () => drift(untyped({ cwd, connection: { url, username: 'gitops-bot' } })),
      code: 'USAGE',
      message:
        'drift: options.connection.username is given but no password: give options.connection.password (or a token).',
    },
    {
      name: 'a password without a username',
      call: () => drift(untyped({ cwd, connection: { url, password: PASSWORD } })),
      code: 'USAGE',
      message:
        'drift: options.connection.password is given but no username: give options.connection.username (or a token).',
    },
    {
      name: 'a password that is no string',
      call: () => drift(untyped({ cwd, connection: { url, username: 'bot', password: 424242 } })),
      code: 'USAGE',
      message: 'drift: options.connection.password: expected a string, got a number',
    },
    {
      name: 'an empty token, as `process.env.WAF_TOKEN ?? ""` gives when it is unset',
      call: () => drift(untyped({ cwd, connection: { url, token: '' } })),
      code: 'CONNECTION',
      message:
        'drift: no API token: give options.connection.token, or a sign-in (options.connection.username and password).',
    },
  ],
  apply: [
    {
      name: 'a class near a known one',
      call: () => apply(untyped({ cwd, connection: good(), failOn: ['broadens-access'] })),
      code: 'USAGE',
      message:
        'apply: options.failOn[0]: expected one of weakens_protection, broadens_access, reduces_audit, changes_trust, fails_tests, got "broadens-access" (did you mean "broadens_access"?)',
    },
    {
      name: 'failOn as one string',
      call: () => apply(untyped({ cwd, connection: good(), failOn: 'broadens_access' })),
      code: 'USAGE',
      message: 'apply: options.failOn: expected a list of classes (string[]), got a string',
    },
    {
      name: 'a parallelism of zero',
      call: () => apply(untyped({ cwd, connection: good(), parallelism: 0 })),
      code: 'USAGE',
      message: 'apply: options.parallelism: expected a positive integer, got 0',
    },
    {
      name: 'a batch size that is no integer',
      call: () => apply(untyped({ cwd, connection: good(), batchSize: 2.5 })),
      code: 'USAGE',
      message: 'apply: options.batchSize: expected a positive integer, got 2.5',
    },
    {
      name: 'a wait timeout that is no number',
      call: () => apply(untyped({ cwd, connection: good(), waitTimeoutSeconds: Number.NaN })),
      code: 'USAGE',
      message: 'apply: options.waitTimeoutSeconds: expected a positive number of seconds, got NaN',
    },
    {
      name: 'confirm as true',
      call: () => apply(untyped({ cwd, connection: good(), confirm: true })),
      code: 'USAGE',
      message: 'apply: options.confirm: expected a function (plan) => boolean, got a boolean',
    },
    {
      name: 'several problems, in one line',
      call: () => apply(untyped({ cwd, connection: good(), force: 'yes', wait: 1, autoApprove: true })),
      code: 'USAGE',
      message:
        'apply: options.autoApprove: unknown option; apply takes cwd, env, signal, clock, onNote, onDebug, paths, environment, connection, target, exclude, kind, confirm, failOn, force, allowPartial, parallelism, batchSize, wait, waitTimeoutSeconds, onText; options.force: expected true or false, got a string; options.wait: expected true or false, got a number',
    },
  ],
  exportState: [
    {
      name: 'a misspelt option',
      call: () => exportState(untyped({ cwd, connection: good(), redactSecret: true })),
      code: 'USAGE',
      message: 'exportState: options.redactSecret: unknown option (did you mean "redactSecrets"?)',
    },
    {
      name: 'a directory that is no string',
      call: () => exportState(untyped({ cwd, connection: good(), dir: 5 })),
      code: 'USAGE',
      message: 'exportState: options.dir: expected a directory (a string), got a number',
    },
    {
      name: 'an empty cwd',
      call: () => exportState(untyped({ cwd: '', connection: good() })),
      code: 'USAGE',
      message: 'exportState: options.cwd: expected a directory (a non-empty string), got an empty string',
    },
  ],
  test: [
    {
      name: 'live as a string',
      call: () => runRuleTests(untyped({ cwd, live: 'yes' })),
      code: 'USAGE',
      message: 'test: options.live: expected true or false, got a string',
    },
    {
      name: 'a connection without live',
      call: () => runRuleTests(untyped({ cwd, connection: good() })),
      code: 'USAGE',
      message:
        "test: options.connection is read only with live: true (offline, the configuration's own rules are tested)",
    },
    {
      name: 'live without a connection',
      call: () => runRuleTests(untyped({ cwd, live: true })),
      code: 'CONNECTION',
      message:
        'test: no firewall: give options.connection ({url, token} or {url, username, password}), or options.environment.',
    },
  ],
  validate: [
    {
      name: 'strict as a number',
      call: () => validate(untyped({ cwd, strict: 1 })),
      code: 'USAGE',
      message: 'validate: options.strict: expected true or false, got a number',
    },
    {
      name: 'an environment that is no string',
      call: () => validate(untyped({ cwd, environment: ['staging'] })),
      code: 'USAGE',
      message: 'validate: options.environment: expected the name of an environment (a string), got an array',
    },
    {
      name: 'a hook that is no function',
      call: () => validate(untyped({ cwd, onNote: 'stderr' })),
      code: 'USAGE',
      message: 'validate: options.onNote: expected a function, got a string',
    },
  ],
};

describe('the options of each function, checked before any work', () => {
  for (const [entry, list] of Object.entries(CASES)) {
    describe(entry, () => {
      for (const { name, call, code, message } of list) {
        it(name, async () => {
          url = await unreachableUrl();
          const error = await call().then(
            () => undefined,
            (reason: unknown) => reason,
          );
          expect(error).not.toBeInstanceOf(TypeError);
          if (!isWafctlError(error)) throw new Error(`expected a wafctl error, got ${String(error)}`);
          expect({ code: error.code, userFault: error.userFault, message: error.message }).toEqual({
            code,
            userFault: true,
            message,
          });
          for (const secret of SECRETS) expect(error.message).not.toContain(secret);
        });
      }
    });
  }
});

describe('good options still work', () => {
  let firewall: TestFirewall;
  beforeAll(async () => {
    firewall = await startTestFirewall();
  });
  afterAll(() => firewall.close());

  it("one options object serves plan and then apply: plan does not read apply's options", async () => {
    const options: ApplyOptions = {
      cwd: EXAMPLES,
      connection: { url: firewall.url, token: E2E_TOKEN, timeoutSeconds: 30 },
      failOn: ['weakens_protection'],
      parallelism: 2,
    };
    const planned = await plan(options);
    expect(planned.summary.create).toBeGreaterThan(0);
    const report = await apply({ ...options, failOn: [] });
    expect(report).toMatchObject({ succeeded: true, exit_code: 0 });
  });

  it('takes a clock of a class, a structural signal and an env with unset variables', async () => {
    class Clock {
      now(): number {
        return Date.now();
      }
    }
    const signal = {
      aborted: false,
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
    };
    const document = await drift({
      cwd: EXAMPLES,
      connection: { url: firewall.url, username: 'ignored', password: PASSWORD, token: E2E_TOKEN },
      clock: new Clock(),
      signal,
      env: { UNSET: undefined, HOME: '/home/ci' },
    });
    // A token wins over a sign-in, as in the CLI: the drift was read with it.
    expect(typeof document.drift).toBe('boolean');
  });
});
