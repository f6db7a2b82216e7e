/**
 * `apply --wait` against a server that lies when the rules are read back (issue 50): the real CLI
 * against the emulator behind a loopback proxy that rewrites the actions of the wait's reads (the
 * listing filtered by `id_list`, and GET-one), or never answers them. Enforced means read back as
 * written: a rule read back with no action, without a planned firewall, on another firewall, or
 * with another `firewall_action` is not enforced, however synced it says it is; and a read that
 * hangs past `--wait-timeout` is cancelled there. The emulator and the command share one manual
 * clock: no test sleeps for real.
 */
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { applyReportDocumentSchema } from '../../src/ops/apply/report-document.js';
import { runCli } from '../helpers/cli.js';
import {
  E2E_TOKEN,
  type ManualClock,
  manualClock,
  startTestFirewall,
  type TestFirewall,
  writeConfig,
} from '../helpers/firewall.js';
import { rulesYaml } from '../helpers/fixtures.js';
import { type Intercept, type ProxiedRequest, startProxy, type TestProxy } from '../helpers/proxy.js';

interface Action {
  firewall_action: string;
  firewall_name: string;
  sync_status?: unknown;
}

const opened: { firewall?: TestFirewall; proxy?: TestProxy; dir?: string } = {};

afterEach(async () => {
  await opened.proxy?.close();
  await opened.firewall?.close();
  if (opened.dir !== undefined) await rm(opened.dir, { recursive: true, force: true });
});

const RULE = 'application_rule.shop.example.com/Block the admin panel';

/** `shop.example.com/Block the admin panel`, blocking on waf-eu-1 and waf-us-1, at `priority`. */
const rules = (priority: string) =>
  rulesYaml([{ description: 'Block the admin panel', priority }]).replace(
    'firewall_name: waf-eu-1}]',
    'firewall_name: waf-eu-1}, {firewall_action: block, firewall_name: waf-us-1}]',
  );

/** Whether a request is one of the wait's reads: the listing by id, or GET-one. */
const isWaitRead = (request: ProxiedRequest) =>
  request.method === 'GET' &&
  (request.url.includes('id_list') || /^\/api\/v1\/application_rules\/[^/]+$/.test(request.path));

/** The answer of a wait's read with each rule's actions as `lie` makes them. */
async function lying(request: ProxiedRequest, lie: (actions: Action[]) => Action[]) {
  const answer = await request.forward();
  const body = JSON.parse(answer.body) as {
    data: { application_rules?: Record<string, unknown>[]; rule?: Record<string, unknown> };
  };
  const rows = [...(body.data.application_rules ?? []), ...(body.data.rule ? [body.data.rule] : [])];
  for (const row of rows) {
    row.actions = lie((row.actions ?? []) as Action[]);
    if ('action' in row) row.action = (row.actions as Action[])[0] ?? null;
  }
  return { ...answer, body: JSON.stringify(body) };
}

/**
 * The rule applied honestly, then its priority changed (an update: no create to prove, so the only
 * reads by id are the wait's) and applied again with `--wait`, through a proxy that passes the wait's
 * reads to `intercept`.
 */
async function applyThrough(
  intercept: (request: ProxiedRequest, clock: ManualClock) => ReturnType<Intercept>,
) {
  const clock = manualClock();
  const firewall = await startTestFirewall({ seed: { rules: [] }, clock });
  const dir = await writeConfig({ 'rules.yaml': rules('high') });
  Object.assign(opened, { firewall, dir });
  const first = await runCli(['apply', dir, '--auto-approve'], { env: firewall.env, clock });
  expect(first.code, first.stdout + first.stderr).toBe(0);
  await writeFile(join(dir, 'rules.yaml'), rules('low'));
  const proxy = await startProxy(firewall.url, (request) =>
    isWaitRead(request) ? intercept(request, clock) : undefined,
  );
  opened.proxy = proxy;
  const run = await runCli(['apply', dir, '--auto-approve', '--wait-timeout', '20s', '--format', 'json'], {
    env: { WAF_URL: proxy.url, WAF_TOKEN: E2E_TOKEN },
    clock,
  });
  return { ...run, report: applyReportDocumentSchema.parse(JSON.parse(run.stdout)), clock };
}

const NOT_READ_BACK = 'not read back (the rule read back has no action on this firewall)';

describe('apply --wait compares what it reads back with what it wrote', () => {
  it('read back as written: enforced (the proxy alone changes nothing)', async () => {
    const run = await applyThrough((request) => lying(request, (actions) => actions));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('Enforced: 1 application rule synced on waf-eu-1, waf-us-1.');
    expect(run.report.enforcement?.result).toBe('enforced');
  });

  it.each([
    {
      lie: 'no action at all',
      actions: (_: Action[]): Action[] => [],
      lines: [`${RULE} on waf-eu-1: ${NOT_READ_BACK}`, `${RULE} on waf-us-1: ${NOT_READ_BACK}`],
      on: 'waf-eu-1, waf-us-1',
    },
    {
      lie: 'a planned firewall missing',
      actions: (actions: Action[]) => actions.filter((a) => a.firewall_name !== 'waf-us-1'),
      lines: [`${RULE} on waf-us-1: ${NOT_READ_BACK}`],
      on: 'waf-us-1',
    },
    {
      lie: 'another firewall named',
      actions: (actions: Action[]) =>
        actions.map((a) => (a.firewall_name === 'waf-us-1' ? { ...a, firewall_name: 'waf-xx-9' } : a)),
      lines: [
        `${RULE} on waf-us-1: ${NOT_READ_BACK}`,
        `${RULE} on waf-xx-9: read back as block, on a firewall not planned`,
      ],
      on: 'waf-us-1, waf-xx-9',
    },
    {
      lie: 'a changed firewall_action',
      actions: (actions: Action[]) =>
        actions.map((a) => (a.firewall_name === 'waf-us-1' ? { ...a, firewall_action: 'log' } : a)),
      lines: [`${RULE} on waf-us-1: read back as log, planned block`],
      on: 'waf-us-1',
    },
  ])('a read-back with $lie, all synced: exit 1, naming the firewall', async ({ actions, lines, on }) => {
    const run = await applyThrough((request) => lying(request, actions));
    expect(run.code).toBe(1);
    for (const line of lines) expect(run.stderr).toContain(`  ! ${line}\n`);
    expect(run.stderr).toContain(`Not enforced: 1 of 1 application rule not synced on ${on}.`);
    expect(run.stderr).not.toContain('Enforced:');
    // Settled at the first read: waiting would not make it what was written.
    expect(run.clock.sleeps).toEqual([]);
    const { enforcement, exit_code, succeeded } = run.report;
    expect({ exit_code, succeeded }).toEqual({ exit_code: 1, succeeded: true });
    expect(enforcement?.result).toBe('not_enforced');
    const reasons = enforcement?.actions.flatMap((a) =>
      a.reason ? [`${a.address} on ${a.firewall}: ${a.reason}`] : [],
    );
    expect(reasons).toEqual(lines);
  });
});

describe('--wait-timeout bounds the whole wait, reads in flight included', () => {
  it('a read that hangs past the timeout is cancelled there: timed_out, exit 1, each firewall named', async () => {
    const hung: Promise<void>[] = [];
    const run = await applyThrough(async (request, clock) => {
      // The server sits on the read while a minute passes; the client must give up at 20 s.
      hung.push(request.closed);
      clock.advance(60_000);
      await request.closed;
      return undefined;
    });
    // The one read hung, and the client closed its connection: it was cancelled, not left running.
    expect(hung).toHaveLength(1);
    await hung[0];
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`  ! ${RULE} on waf-eu-1: not synced within 20s (not read)`);
    expect(run.stderr).toContain(`  ! ${RULE} on waf-us-1: not synced within 20s (not read)`);
    expect(run.stderr).toContain(
      'Not enforced within 20s: 1 of 1 application rule not synced on waf-eu-1, waf-us-1.',
    );
    expect(run.clock.sleeps).toEqual([]);
    expect(run.report.enforcement).toMatchObject({ result: 'timed_out', polls: 1 });
  });
});
