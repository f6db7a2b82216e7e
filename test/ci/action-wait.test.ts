/**
 * The action's `wait` and `wait-timeout` inputs (issue 44): passed to apply as `--wait` and
 * `--wait-timeout`, with `--report` so that the job summary says what the wait found.
 */
import { describe, expect, it } from 'vitest';
import { applyArgs } from '../../src/action/args.js';
import { type ActionInputs, readInputs } from '../../src/action/inputs.js';
import { resolveInvocation } from '../../src/action/invocation.js';
import { commandSummary, enforcementSummary } from '../../src/action/summary.js';
import { runAction } from './action-helpers.js';

const none: ActionInputs = readInputs({});

function resolve(inputs: Partial<ActionInputs>) {
  return resolveInvocation({ ...none, ...inputs });
}

describe('the action: wait and wait-timeout', () => {
  it('reads INPUT_WAIT and INPUT_WAIT-TIMEOUT', () => {
    expect(readInputs({ INPUT_WAIT: ' true ', 'INPUT_WAIT-TIMEOUT': '90s' })).toMatchObject({
      wait: 'true',
      waitTimeout: '90s',
    });
  });

  it('apply with wait: true gets --wait [--wait-timeout D] and --report; other commands nothing', () => {
    const run = resolve({ command: 'apply', wait: 'true', waitTimeout: '90s' });
    if (!run.ok) throw new Error(run.refusal);
    expect(applyArgs(run.invocation, '/t/plan.json', '/t/report.json')).toEqual([
      'apply',
      '--plan',
      '/t/plan.json',
      '.',
      '--wait',
      '--wait-timeout',
      '90s',
      '--report',
      '/t/report.json',
    ]);
    const plain = resolve({ command: 'apply', wait: 'True' });
    if (!plain.ok) throw new Error(plain.refusal);
    expect(plain.invocation.waitFlags).toEqual(['--wait']);
    const without = resolve({ command: 'apply' });
    if (!without.ok) throw new Error(without.refusal);
    expect(applyArgs(without.invocation, '/t/plan.json', '/t/report.json')).toEqual([
      'apply',
      '--plan',
      '/t/plan.json',
      '.',
    ]);
    const plan = resolve({ command: 'plan', wait: 'true' });
    expect(plan.ok && plan.invocation.waitFlags).toEqual([]);
  });

  it.each([
    [{ wait: 'yes' }, "wait must be true or false, got 'yes'"],
    [{ waitTimeout: '5m' }, 'wait-timeout is how long apply waits with wait: true'],
    [{ wait: 'false', waitTimeout: '5m' }, 'wait-timeout is how long apply waits with wait: true'],
  ])('refuses %j before anything runs', (inputs, refusal) => {
    const run = resolve({ command: 'apply', ...inputs });
    expect(run.ok ? '' : run.refusal).toContain(refusal);
  });

  it('the job summary says what the wait found, from the apply report', () => {
    const report = (enforcement: unknown) => JSON.stringify({ format_version: 1, enforcement });
    expect(
      enforcementSummary(report({ result: 'enforced', summary: { rules: 2, actions: 3, synced: 3 } })),
    ).toBe('every action synced (3 of 3 actions synced, 2 application rules)');
    expect(
      enforcementSummary(report({ result: 'timed_out', summary: { rules: 1, actions: 2, synced: 1 } })),
    ).toBe(
      'NOT enforced: some actions were not synced by the timeout (1 of 2 actions synced, 1 application rule)',
    );
    expect(enforcementSummary(report({ result: 'not_enforced' }))).toBe(
      'NOT enforced: some actions are in sync error or not read back as written',
    );
    expect(enforcementSummary(JSON.stringify({ format_version: 1 }))).toBeUndefined();
    expect(enforcementSummary('not json')).toBeUndefined();
    expect(enforcementSummary(undefined)).toBeUndefined();
    const run = resolve({ command: 'apply', wait: 'true' });
    if (!run.ok) throw new Error(run.refusal);
    expect(commandSummary(run.invocation, 1, true, 'log', 'NOT enforced: x')).toContain(
      '### wafctl apply: failed (exit 1)\n\nChanges: yes\n\nEnforcement: NOT enforced: x\n',
    );
  });
});

describe('the action, with the bundled CLI against the embedded emulator', () => {
  it('apply with wait: true waits, and the job summary says every action is synced', async () => {
    const result = await runAction({
      command: 'apply',
      url: 'embedded',
      paths: 'examples/config',
      wait: 'true',
      'wait-timeout': '30s',
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      /Waiting for \d+ application rules to be enforced on their firewalls \(up to 30s\)/,
    );
    expect(result.stdout).toMatch(/Enforced: \d+ application rules synced on /);
    expect(result.summary).toMatch(
      /Enforcement: every action synced \(\d+ of \d+ actions synced, \d+ application rules\)/,
    );
  });
});
