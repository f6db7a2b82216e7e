/**
 * `--fail-on fails_tests` judges a plan's Behaviour section, which drift reports and comparisons do
 * not have: `drift` and `compare` refuse the class as a usage error before any request, rather than
 * pass a gate that could never fail. The real CLI against a real emulator.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startTestFirewall, type TestFirewall, writeConfig } from '../helpers/firewall.js';
import { rulesYaml } from '../helpers/fixtures.js';

let staging: TestFirewall;
let production: TestFirewall;
let dir = '';
beforeEach(async () => {
  [staging, production] = await Promise.all([startTestFirewall(), startTestFirewall()]);
  // Two environments, each its own emulator (one server has one owner), and a test: drift and
  // compare both have something to read.
  const environment = (name: string) =>
    `    url_env: WAF_URL_${name}\n    token_env: WAF_TOKEN\n    paths: [base]\n`;
  dir = await writeConfig({
    'wafctl.yaml': `environments:\n  staging:\n${environment('STAGING')}  production:\n${environment('PROD')}`,
    'base/rules.yaml': rulesYaml([{}]),
    'base/tests.yaml':
      'tests:\n  - name: admin blocked\n    request: {host: shop.example.com, path: /admin}\n    expect: {action: block}\n',
  });
});
afterEach(async () => {
  await Promise.all([staging.close(), production.close()]);
});

const cli = (args: string[]) =>
  runCli(args, {
    env: { ...staging.env, WAF_URL_STAGING: staging.url, WAF_URL_PROD: production.url },
  });

/** Requests both emulators have answered. */
const requests = async () => (await staging.stats()).total + (await production.stats()).total;

/** Each run, and whether it reads the firewall when the class is not asked for (`--desired` is offline). */
const CASES: { command: 'drift' | 'compare'; label: string; args: string[]; reads: boolean }[] = [
  { command: 'drift', label: 'one environment', args: ['drift', '.', '--env', 'staging'], reads: true },
  { command: 'drift', label: 'several environments', args: ['drift', '.', '--env', 'all'], reads: true },
  { command: 'compare', label: 'live', args: ['compare', 'staging', 'production', '.'], reads: true },
  {
    command: 'compare',
    label: '--desired',
    args: ['compare', 'staging', 'production', '.', '--desired'],
    reads: false,
  },
];

describe('--fail-on fails_tests where there is no Behaviour section', () => {
  it.each(CASES)('$command ($label) refuses it before any request', async ({ command, args, reads }) => {
    const inDir = args.map((arg) => (arg === '.' ? dir : arg));
    const refused = await cli([...inDir, '--fail-on', 'weakens_protection,fails_tests']);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toBe(
      `Error: --fail-on fails_tests: ${command} has no Behaviour section (rule tests run in plan and apply); use wafctl test for the tests themselves\n`,
    );
    expect(await requests()).toBe(0);
    // Without the class, the same run goes on (and reads the firewall): the refusal kept the count at 0.
    expect((await cli([...inDir, '--fail-on', 'weakens_protection'])).code).not.toBe(1);
    expect((await requests()) > 0).toBe(reads);
  });
});
