/**
 * The library's `test` (docs/library.md): the document `wafctl test --format json` prints, offline
 * and `live`, for the PATHs and for one environment; a failing case is an answer, a configuration
 * without a case and what `environment` refuses are `USAGE` errors; offline, an environment's URL and
 * credentials are never read.
 */
import { rm } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isWafctlError, test as runRuleTests } from '../../src/library/index.js';
import { runCli } from '../helpers/cli.js';
import { E2E_TOKEN, startTestFirewall, type TestFirewall, writeConfig } from '../helpers/firewall.js';
import { EXAMPLES, rulesYaml } from '../helpers/fixtures.js';

let firewall: TestFirewall;
const cleanups: string[] = [];

beforeEach(async () => {
  firewall = await startTestFirewall();
});

afterEach(async () => {
  await firewall.close();
  for (const dir of cleanups.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function config(files: Record<string, string>): Promise<string> {
  const dir = await writeConfig(files);
  cleanups.push(dir);
  return dir;
}

/** The CLI's `--format json` output in `cwd`, parsed. */
async function cliJson(
  args: string[],
  cwd: string,
  env: Record<string, string> = firewall.env,
): Promise<unknown> {
  const result = await runCli(['test', ...args, '--format', 'json'], { env, cwd });
  expect(result.stdout, result.stderr).not.toBe('');
  return JSON.parse(result.stdout);
}

/** The error `promise` rejects with, which must be one of wafctl's. */
async function wafctlError(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!isWafctlError(error)) throw new Error(`expected a wafctl error, got ${String(error)}`);
  return error;
}

const TESTS = `tests:
  - name: admin blocked
    request: {host: shop.example.com, path: /admin}
    expect: {action: block}
`;

describe('test', () => {
  it("gives test --format json's document, offline and live", async () => {
    const offline = await runRuleTests({ cwd: EXAMPLES });
    expect(offline).toEqual(await cliJson(['.'], EXAMPLES));
    expect(offline).toMatchObject({ source: 'configuration', passed: true, summary: { failed: 0 } });

    // The firewall has none of the example's rules: live, the cases expecting a rule fail.
    const connection = { url: firewall.url, token: E2E_TOKEN };
    const live = await runRuleTests({ cwd: EXAMPLES, live: true, connection });
    expect(live).toEqual(await cliJson(['.', '--live'], EXAMPLES));
    expect(live).toMatchObject({ source: 'live', rules: 0, passed: false });
  });

  it('refuses a configuration without a case, with a USAGE error naming the paths', async () => {
    const dir = await config({ 'rules.yaml': rulesYaml([{}]) });
    const error = await wafctlError(runRuleTests({ cwd: dir, paths: ['rules.yaml'] }));
    expect(error.code).toBe('USAGE');
    expect(error.message).toMatch(/^no test cases in rules\.yaml: /);
  });

  it('one environment per call: offline without its URL or credentials, live with them', async () => {
    const dir = await config({
      'wafctl.yaml': `environments:
  staging: {url_env: STAGING_URL, token_env: STAGING_TOKEN, paths: [base, staging]}
  production: {url: ${firewall.url}, token_env: PRODUCTION_TOKEN, paths: [base]}
`,
      'base/tests.yaml': TESTS,
      'staging/rules.yaml': rulesYaml([{}]),
    });
    // STAGING_URL is not set: offline never reads it.
    const staging = await runRuleTests({ cwd: dir, environment: 'staging' });
    expect(staging).toMatchObject({ environment: 'staging', rules: 1, passed: true });
    expect(staging).toEqual(await cliJson(['--env', 'staging'], dir, {}));

    const unset = await wafctlError(runRuleTests({ cwd: dir, environment: 'staging', live: true, env: {} }));
    expect([unset.code, unset.message]).toEqual([
      'USAGE',
      expect.stringMatching(/^environment staging: STAGING_URL is not set/),
    ]);

    const env = { PRODUCTION_TOKEN: E2E_TOKEN };
    const production = await runRuleTests({ cwd: dir, environment: 'production', live: true, env });
    expect(production).toEqual(await cliJson(['--env', 'production', '--live'], dir, env));
    expect(production).toMatchObject({ source: 'live', environment: 'production', rules: 0, passed: false });

    for (const [environment, refusal] of [
      [undefined, /declares environments \(staging, production\): give `environment`/],
      ['all', /^a call works on one environment, not staging, production/],
    ] as const) {
      const error = await wafctlError(runRuleTests({ cwd: dir, environment }));
      expect([error.code, error.message]).toEqual(['USAGE', expect.stringMatching(refusal)]);
    }
  });

  it('a failing case is an answer: the report says which and why', async () => {
    const dir = await config({ 'tests.yaml': TESTS });
    const report = await runRuleTests({ cwd: dir });
    expect(report).toMatchObject({ passed: false, rules: 0, summary: { total: 1, failed: 1 } });
    expect(report.cases[0]).toMatchObject({ status: 'fail', actual: { action: 'none' } });
  });
});
