/** `wafctl apply` at a terminal: the prompt, and how saying no, pressing Ctrl-C or a signal ends it. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runWafctl } from '../../src/cli/program.js';
import { runCliOnTerminal } from '../helpers/cli.js';
import { startTestFirewall, type TestFirewall } from '../helpers/firewall.js';
import { EXAMPLES } from '../helpers/fixtures.js';
import { testIo } from '../helpers/io.js';

let firewall: TestFirewall;
beforeEach(async () => {
  firewall = await startTestFirewall();
});
afterEach(async () => {
  await firewall.close();
});

const PROMPT = 'Enter a value: ';

describe('apply at a terminal', () => {
  it.each([
    { answer: 'no', keys: 'no\r', code: 1 },
    { answer: 'Ctrl-C', keys: '\u0003', code: 130 },
  ])('answering $answer: "Apply cancelled.", exit $code, nothing written', async ({ keys, code }) => {
    await firewall.resetStats();
    const result = await runCliOnTerminal(['apply', EXAMPLES], {
      env: firewall.env,
      prompt: PROMPT,
      keys,
    });
    expect(result.code, result.output).toBe(code);
    expect(result.output).toContain("Only 'yes' will be accepted to approve.");
    expect(result.output).toMatch(/\r\nApply cancelled\.\r\n$/);
    expect(result.output).not.toContain('Error');
    const { by_route } = await firewall.stats();
    expect(Object.keys(by_route).length).toBeGreaterThan(0);
    expect(Object.keys(by_route).filter((route) => !route.startsWith('GET '))).toEqual([]);
  });

  it("'yes' applies", async () => {
    const result = await runCliOnTerminal(['apply', EXAMPLES], {
      env: firewall.env,
      prompt: PROMPT,
      keys: 'yes\r',
    });
    expect(result.code, result.output).toBe(0);
    expect(result.output).toMatch(/Apply complete! Resources: \d+ added, 0 changed, 0 destroyed\./);
  });
});

describe('a signal sent to the process at the prompt (kill, not a key)', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)('%s: "Apply cancelled.", exit %i, nothing written', async (signal, code) => {
    await firewall.resetStats();
    const run = testIo({ env: firewall.env, tty: true });
    const exit = runWafctl(['apply', EXAMPLES], run.io);
    await run.stdoutMatches(new RegExp(PROMPT));
    run.signal(signal);
    expect(await exit).toBe(code);
    expect(run.stderr()).toBe('\nApply cancelled.\n');
    const { by_route } = await firewall.stats();
    expect(Object.keys(by_route).filter((route) => !route.startsWith('GET '))).toEqual([]);
  });
});
