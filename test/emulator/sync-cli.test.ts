/**
 * `wafctl emulator --sync-delay MS --sync-fail NAME[,NAME]`: the flags as startEmulator's options,
 * the usage errors, the flags at work in process, and the built CLI accepting them.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { syncOptions } from '../../src/cli/emulator.js';
import { runWafctl } from '../../src/cli/program.js';
import { runCli } from '../helpers/cli.js';
import { testIo } from '../helpers/io.js';
import { Client, createRules, makeTempDir, ruleInput, type WireApplicationRule } from './helpers.js';
import { serve } from './serve-cli.js';

const TOKEN = 'sync-cli-admin-token';

let dir: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir());
});
afterEach(() => cleanup());

describe('syncOptions: the flags as startEmulator options', () => {
  it.each([
    [{ syncFail: [] }, {}],
    [{ syncDelay: '0', syncFail: [] }, { syncDelayMs: 0 }],
    [
      { syncDelay: '1000', syncFail: ['waf-us-1'] },
      { syncDelayMs: 1000, syncFail: ['waf-us-1'] },
    ],
    [
      { syncFail: ['waf-us-1, waf-eu-2', 'waf-ap-3', 'waf-us-1'] },
      { syncFail: ['waf-us-1', 'waf-eu-2', 'waf-ap-3'] },
    ],
  ])('%j -> %j', (flags, options) => {
    expect(syncOptions(flags)).toEqual(options);
  });

  it.each([
    [{ syncDelay: '-1', syncFail: [] }, "--sync-delay must be an integer >= 0 (milliseconds), got '-1'."],
    [{ syncDelay: '1.5', syncFail: [] }, "--sync-delay must be an integer >= 0 (milliseconds), got '1.5'."],
    [{ syncDelay: 'soon', syncFail: [] }, "--sync-delay must be an integer >= 0 (milliseconds), got 'soon'."],
    [{ syncDelay: '', syncFail: [] }, "--sync-delay must be an integer >= 0 (milliseconds), got ''."],
    [{ syncFail: ['waf-us-1,'] }, "--sync-fail must be firewall names separated by commas, got 'waf-us-1,'."],
    [{ syncFail: ['a', ' '] }, "--sync-fail must be firewall names separated by commas, got 'a', ' '."],
  ])('%j is a usage error', (flags, message) => {
    expect(() => syncOptions(flags)).toThrow(message);
  });
});

describe('wafctl emulator --sync-delay --sync-fail', () => {
  it.each([
    [['--sync-delay', '-5'], "Error: --sync-delay must be an integer >= 0 (milliseconds), got '-5'.\n"],
    [['--sync-fail', ','], "Error: --sync-fail must be firewall names separated by commas, got ','.\n"],
  ])('%j: one error line, exit 1, nothing served', async (args, stderr) => {
    const result = await runCli(['emulator', '--port', '0', ...args], {
      env: { WAF_EMULATOR_ADMIN_TOKEN: TOKEN },
    });
    expect(result).toEqual({ code: 1, stdout: '', stderr });
  });

  it('serves actions pending for the delay, and errors on the named firewalls (repeated and comma lists)', async () => {
    const serveWith = async (args: string[]) => {
      const run = testIo({ env: { WAF_EMULATOR_ADMIN_TOKEN: TOKEN } });
      const exit = runWafctl(['emulator', '--port', '0', ...args], run.io);
      const api = new Client((await run.stdoutMatches(/\n/)).trim(), TOKEN);
      const [id = ''] = await createRules(api, [
        ruleInput({
          actions: ['waf-eu-1', 'waf-us-1', 'waf-ap-1'].map((name) => ({
            firewall_action: 'block',
            firewall_name: name,
          })),
        }),
      ]);
      const reply = await api.get<{ rule: WireApplicationRule }>(`/api/v1/application_rules/${id}`);
      run.signal('SIGTERM');
      expect(await exit).toBe(0);
      return reply.body.data?.rule.actions?.map((a) => a.sync_status);
    };
    // Ten days: no test run can see the delay pass.
    expect(await serveWith(['--sync-delay', '864000000'])).toEqual(['pending', 'pending', 'pending']);
    expect(await serveWith(['--sync-fail', 'waf-us-1', '--sync-fail', 'waf-ap-1,waf-x'])).toEqual([
      'synced',
      'error',
      'error',
    ]);
  });

  it('the built CLI accepts the flags and starts', async () => {
    const tokenFile = join(dir, 'token');
    await writeFile(tokenFile, `${TOKEN}\n`);
    const served = await serve([
      '--port',
      '0',
      '--admin-token-file',
      tokenFile,
      '--sync-delay',
      '1000',
      '--sync-fail',
      'waf-us-1',
    ]);
    expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    served.child.kill('SIGTERM');
    expect(await served.exit).toBe(0);
    expect(served.stderr()).toBe('');
  });
});
