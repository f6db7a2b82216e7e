/**
 * A create answered with ids that prove nothing (issue 41): the real CLI against the emulator behind
 * a loopback proxy that answers `POST /api/v1/application_rules` with an old rule's id, a made-up
 * id, or an id it already gave, while creating nothing. A replacement must then keep the old
 * blocking rule, exit 1 and name the rule; plain creates must not be reported done; and the next
 * honest apply converges. A proxy that does create the rule but answers with an old id is proven
 * wrong by the re-read: the apply succeeds, verified, and the replaced rule is deleted.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ApplyReportJson, applyReportDocumentSchema } from '../../src/ops/apply/report-document.js';
import { runCli } from '../helpers/cli.js';
import { E2E_TOKEN, startTestFirewall, type TestFirewall, writeConfig } from '../helpers/firewall.js';
import { type RuleSpec, rulesYaml } from '../helpers/fixtures.js';
import { startProxy, type TestProxy } from '../helpers/proxy.js';

const RULES = '/api/v1/application_rules';
const ADMIN = 'shop.example.com/Block admin';

/**
 * What the proxy answers a rule create with: the `rule_ids` to send back. `forward` sends the create
 * to the emulator and gives the ids it really created; not calling it creates nothing.
 */
type CreateLie = (forward: () => Promise<string[]>) => Promise<string[]>;

let firewall: TestFirewall;
const proxies: TestProxy[] = [];
beforeEach(async () => {
  firewall = await startTestFirewall();
});
afterEach(async () => {
  for (const proxy of proxies.splice(0)) await proxy.close();
  await firewall.close();
});

const ruleIds = (ids: string[]) =>
  JSON.stringify({ status: 'ok', message: 'Rules created', data: { rule_ids: ids } });

/** A loopback proxy in front of the emulator: every request passes, but rule creates are answered by `lie`. */
async function lyingProxy(lie: CreateLie): Promise<{ env: Record<string, string>; posts: () => number }> {
  let posts = 0;
  const proxy = await startProxy(firewall.url, async (request) => {
    if (request.method !== 'POST' || request.url !== RULES) return undefined;
    posts += 1;
    const forward = async () =>
      (JSON.parse((await request.forward()).body) as { data: { rule_ids: string[] } }).data.rule_ids;
    return { status: 200, type: 'application/json', body: ruleIds(await lie(forward)) };
  });
  proxies.push(proxy);
  return { env: { WAF_URL: proxy.url, WAF_TOKEN: E2E_TOKEN }, posts: () => posts };
}

/** A proxy that sends the first create on, then answers every later one with the first's ids. */
async function repeatingFirstAnswer() {
  const given: string[] = [];
  const proxy = await lyingProxy(async (forward) => {
    if (given.length === 0) given.push(...(await forward()));
    return given;
  });
  return { proxy, given };
}

const BLOCK_ADMIN: RuleSpec = { description: 'Block admin', expression: '^/admin' };
const KEPT: RuleSpec = { description: 'Kept', expression: '^/kept' };
const BEFORE = rulesYaml([BLOCK_ADMIN, KEPT]);
/** `Block admin`'s condition changes: a replacement (create the new rule, then delete the old one). */
const REPLACED = rulesYaml([{ ...BLOCK_ADMIN, expression: '^/admin/' }, KEPT]);
/** Two new rules beside the others: plain creates. */
const CREATES = rulesYaml([
  BLOCK_ADMIN,
  KEPT,
  { description: 'New one', expression: '^/one' },
  { description: 'New two', expression: '^/two' },
]);

/** A configuration applied honestly, then rewritten to `next`; the live rules' ids by description. */
async function setUp(next: string): Promise<{ dir: string; ids: Record<string, string> }> {
  const dir = await writeConfig({ 'rules.yaml': BEFORE });
  const first = await runCli(['apply', dir, '--auto-approve'], { env: firewall.env });
  expect(first.code, first.stdout + first.stderr).toBe(0);
  await writeFile(join(dir, 'rules.yaml'), next);
  const live = await firewall.api.applicationRules.list();
  return { dir, ids: Object.fromEntries(live.map((r) => [r.description ?? '', r.id])) };
}

interface Applied {
  code: number | null;
  report: ApplyReportJson;
  /** The text report (on stderr with `--format json`). */
  text: string;
}

async function applyThrough(
  env: Record<string, string>,
  dir: string,
  extra: string[] = [],
): Promise<Applied> {
  const result = await runCli(['apply', dir, '--auto-approve', '--format', 'json', ...extra], { env });
  return {
    code: result.code,
    report: applyReportDocumentSchema.parse(JSON.parse(result.stdout)),
    text: result.stderr,
  };
}

const outcomes = (report: ApplyReportJson) =>
  report.results.map((r) => `${r.operation} ${r.key.replace('shop.example.com/', '')}: ${r.outcome}`);

async function liveRules() {
  return (await firewall.api.applicationRules.list()).map((r) => ({
    id: r.id,
    key: `${r.rq_host}/${r.description}`,
    expressions: r.conditions.flatMap((c) => c.expressions.map((e) => e.expression)),
    actions: r.actions.map((a) => a.firewall_action),
  }));
}

/** Every create the report calls done is on the server, under the id it reports. */
async function expectOnlyHeldReportedDone(report: ApplyReportJson): Promise<void> {
  const live = await liveRules();
  for (const result of report.results) {
    if (result.operation !== 'create' || !result.outcome.startsWith('done')) continue;
    expect(live.find((rule) => rule.id === result.id)?.key, `${result.key} reported ${result.outcome}`).toBe(
      result.key,
    );
  }
}

/** An honest apply, straight to the emulator, converges: nothing left to do, no key doubled. */
async function expectHonestApplyConverges(dir: string): Promise<void> {
  const again = await runCli(['apply', dir, '--auto-approve'], { env: firewall.env });
  expect(again.code, again.stdout + again.stderr).toBe(0);
  const plan = await runCli(['plan', dir, '--detailed-exitcode'], { env: firewall.env });
  expect(plan.code, plan.stdout).toBe(0);
  const keys = (await liveRules()).map((r) => r.key);
  expect(new Set(keys).size, `doubled: ${keys.join(', ')}`).toBe(keys.length);
}

const KEPT_OLD =
  '! application_rule.shop.example.com/Block admin: delete skipped: kept: its replacement could not be created and proven live by a re-read, so deleting it would leave nothing in its place';
const failedLine = (description: string, why: string) =>
  `! application_rule.shop.example.com/${description}: create failed: ${why}; re-reading by key found no new application rule with the planned content (3 attempts)\n`;

/** The old `Block admin` is still on the server, unchanged: `^/admin` blocked. */
async function expectOldAdminKept(oldId: string): Promise<void> {
  const admin = (await liveRules()).filter((r) => r.key === ADMIN);
  expect(admin).toEqual([{ id: oldId, key: ADMIN, expressions: ['^/admin'], actions: ['block'] }]);
}

describe('a replacement whose create is answered with ids that prove nothing, creating nothing', () => {
  it("(a) an existing rule's id (the old rule's): the old blocking rule stays, exit 1, naming the rule", async () => {
    const { dir, ids } = await setUp(REPLACED);
    const oldId = ids['Block admin']!;
    const proxy = await lyingProxy(async () => [oldId]);

    const applied = await applyThrough(proxy.env, dir);

    expect(applied.code).toBe(1);
    expect(applied.text).toContain(
      failedLine(
        'Block admin',
        `the answer gave id ${oldId}, the id of an application rule that existed before this create`,
      ),
    );
    expect(applied.text).toContain(KEPT_OLD);
    expect(applied.text).not.toMatch(/: (created|destroyed)/);
    expect(outcomes(applied.report)).toEqual(['create Block admin: failed', 'delete Block admin: skipped']);
    expect(applied.report.results[1]?.reason).toContain('kept: its replacement could not be created');
    await expectOldAdminKept(oldId);
    // Sent, re-read, sent again: a bounded number of times.
    expect(proxy.posts()).toBe(3);
    await expectHonestApplyConverges(dir);
  });

  it('(a) the id of another existing rule: not the new rule either', async () => {
    const { dir, ids } = await setUp(REPLACED);
    const proxy = await lyingProxy(async () => [ids.Kept!]);

    const applied = await applyThrough(proxy.env, dir);

    expect(applied.code).toBe(1);
    expect(applied.text).toContain('! application_rule.shop.example.com/Block admin: create failed: ');
    expect(applied.text).toContain(KEPT_OLD);
    await expectOldAdminKept(ids['Block admin']!);
    await expectHonestApplyConverges(dir);
  });

  it('(b) a made-up id: the old blocking rule stays, exit 1, naming the rule', async () => {
    const { dir, ids } = await setUp(REPLACED);
    const proxy = await lyingProxy(async () => ['987654321']);

    const applied = await applyThrough(proxy.env, dir);

    expect(applied.code).toBe(1);
    // The first answer is re-read by its id; the same id given again is a repeat.
    expect(applied.text).toContain(
      failedLine(
        'Block admin',
        'the answer gave id 987654321, already given by an earlier answer of this apply',
      ),
    );
    expect(applied.text).toContain(KEPT_OLD);
    expect(outcomes(applied.report)).toEqual(['create Block admin: failed', 'delete Block admin: skipped']);
    await expectOldAdminKept(ids['Block admin']!);
    await expectHonestApplyConverges(dir);
  });

  it('(c) the new id of another rule of the run: the old blocking rule stays, exit 1, naming the rule', async () => {
    // `A first` sorts before `Block admin`: with one rule per call, it is created first, honestly;
    // every later create is answered with its id.
    const { dir, ids } = await setUp(
      rulesYaml([
        { description: 'A first', expression: '^/first' },
        { ...BLOCK_ADMIN, expression: '^/admin/' },
        KEPT,
      ]),
    );
    const { proxy, given } = await repeatingFirstAnswer();

    const applied = await applyThrough(proxy.env, dir, ['--batch-size', '1', '--parallelism', '1']);

    expect(applied.code).toBe(1);
    expect(applied.text).toContain('  + application_rule.shop.example.com/A first: created\n');
    expect(applied.text).toContain(
      failedLine(
        'Block admin',
        `the answer gave id ${given[0]}, already given by an earlier answer of this apply`,
      ),
    );
    expect(applied.text).toContain(KEPT_OLD);
    expect(outcomes(applied.report)).toEqual([
      'create A first: done',
      'create Block admin: failed',
      'delete Block admin: skipped',
    ]);
    await expectOnlyHeldReportedDone(applied.report);
    await expectOldAdminKept(ids['Block admin']!);
    await expectHonestApplyConverges(dir);
  });
});

describe('plain creates answered with ids that prove nothing, creating nothing', () => {
  it.each<[string, (ids: Record<string, string>) => CreateLie]>([
    ["(a) an existing rule's id", (ids) => async () => [ids.Kept!]],
    ['(b) a made-up id', () => async () => ['987654321']],
  ])('%s: nothing reported done, exit 1; an honest apply converges', async (_name, lie) => {
    const { dir, ids } = await setUp(CREATES);
    const proxy = await lyingProxy(lie(ids));

    const applied = await applyThrough(proxy.env, dir, ['--batch-size', '1']);

    expect(applied.code).toBe(1);
    expect(outcomes(applied.report)).toEqual(['create New one: failed', 'create New two: failed']);
    expect(applied.report.summary).toMatchObject({ done: 0, done_verified: 0, failed: 2, created: 0 });
    expect(applied.text).toMatch(
      /! application_rule\.shop\.example\.com\/New one: create failed: the answer gave id /,
    );
    expect((await liveRules()).map((r) => r.key).sort()).toEqual([ADMIN, 'shop.example.com/Kept']);
    await expectHonestApplyConverges(dir);
  });

  it('(c) one new id given for two rules: the rule it names is done, the other failed', async () => {
    const { dir } = await setUp(CREATES);
    const { proxy, given } = await repeatingFirstAnswer();

    const applied = await applyThrough(proxy.env, dir, ['--batch-size', '1', '--parallelism', '1']);

    expect(applied.code).toBe(1);
    expect(outcomes(applied.report)).toEqual(['create New one: done', 'create New two: failed']);
    expect(applied.report.results[0]?.id).toBe(given[0]);
    expect(applied.text).toContain(
      failedLine(
        'New two',
        `the answer gave id ${given[0]}, already given by an earlier answer of this apply`,
      ),
    );
    await expectOnlyHeldReportedDone(applied.report);
    await expectHonestApplyConverges(dir);
  });
});

describe('a create the server carried out, answered with an existing id', () => {
  it('is proven by key and content: verified, and the replaced rule is then deleted', async () => {
    const { dir, ids } = await setUp(REPLACED);
    const oldId = ids['Block admin']!;
    const proxy = await lyingProxy(async (forward) => {
      await forward();
      return [oldId];
    });

    const applied = await applyThrough(proxy.env, dir);

    expect(applied.code, applied.text).toBe(0);
    expect(outcomes(applied.report)).toEqual([
      'create Block admin: done_verified',
      'delete Block admin: done',
    ]);
    expect(applied.text).toContain(
      '  + application_rule.shop.example.com/Block admin: created (the answer was ambiguous; verified by re-reading)\n',
    );
    expect(applied.text).toContain('  - application_rule.shop.example.com/Block admin: destroyed\n');
    const admin = (await liveRules()).filter((r) => r.key === ADMIN);
    expect(admin).toEqual([
      { id: applied.report.results[0]?.id, key: ADMIN, expressions: ['^/admin/'], actions: ['block'] },
    ]);
    expect(admin[0]?.id).not.toBe(oldId);
    expect(proxy.posts()).toBe(1);
    const plan = await runCli(['plan', dir, '--detailed-exitcode'], { env: firewall.env });
    expect(plan.code, plan.stdout).toBe(0);
  });
});
