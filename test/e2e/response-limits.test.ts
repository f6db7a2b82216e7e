/** The client's limits, set through the environment of the built CLI: WAFCTL_MAX_RESPONSE_BYTES, WAFCTL_MAX_ROWS. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startTestFirewall, type TestFirewall } from '../helpers/firewall.js';

let firewall: TestFirewall;
beforeAll(async () => {
  firewall = await startTestFirewall();
});
afterAll(() => firewall.close());

describe('limits from the environment', () => {
  it('WAFCTL_MAX_RESPONSE_BYTES caps every answer: one line, exit 1', async () => {
    const run = await runCli(['get', 'groups'], {
      env: { ...firewall.env, WAFCTL_MAX_RESPONSE_BYTES: '16' },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('[GET] /api/v1/groups: response too large (more than 16 bytes)');
  });

  it('WAFCTL_MAX_ROWS bounds a listing (the demo directory has more than one rule)', async () => {
    const run = await runCli(['get', 'rules'], { env: { ...firewall.env, WAFCTL_MAX_ROWS: '1' } });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/\[GET\] \/api\/v1\/rules: listing too large: .*WAFCTL_MAX_ROWS raises it/);
  });

  it('a value that is no positive whole number is refused, naming the variable', async () => {
    const run = await runCli(['get', 'groups'], { env: { ...firewall.env, WAFCTL_MAX_ROWS: '1e6' } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('WAFCTL_MAX_ROWS must be a positive whole number (digits only), got "1e6"');
  });
});
