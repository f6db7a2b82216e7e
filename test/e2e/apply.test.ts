/** `wafctl apply`: the real CLI against a real emulator on a free port. */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import type { ApplicationRuleInput } from '../../src/api/index.js';
import { runCli } from '../helpers/cli.js';
import { E2E_TOKEN, startTestFirewall, type TestFirewall, writeConfig } from '../helpers/firewall.js';
import { EXAMPLES, type RuleSpec, rulesYaml } from '../helpers/fixtures.js';
import { startProxy } from '../helpers/proxy.js';

let firewall: TestFirewall;
beforeEach(async () => {
  firewall = await startTestFirewall();
});
afterEach(async () => {
  await firewall.close();
});

const apply = (args: string[]) => runCli(['apply', '--auto-approve', ...args], { env: firewall.env });
const planExit = async (dir: string) =>
  (await runCli(['plan', dir, '--detailed-exitcode'], { env: firewall.env })).code;

/** A rule whose expression, unless given, is its description as a path: `Block admin` -> `^/block-admin`. */
const rule = (description: string, opts: RuleSpec = {}): RuleSpec => ({
  description,
  expression: `^/${description.toLowerCase().replace(/ /g, '-')}`,
  ...opts,
});

const rules = (...specs: RuleSpec[]) => rulesYaml(specs);

/**
 * A proxy in front of `target` that keeps the rules of each create (`POST /api/v1/application_rules`):
 * what wafctl sent, which the emulator does not echo (it records the acting user as a rule's
 * `username`). Closed when the test ends.
 */
async function recordingProxy(
  target: TestFirewall,
): Promise<{ env: Record<string, string>; creates: ApplicationRuleInput[][] }> {
  const creates: ApplicationRuleInput[][] = [];
  const proxy = await startProxy(target.url, (request) => {
    if (request.method === 'POST' && request.url === '/api/v1/application_rules') {
      creates.push((JSON.parse(request.body) as { rules: ApplicationRuleInput[] }).rules);
    }
    return undefined;
  });
  onTestFinished(proxy.close);
  return { env: { WAF_URL: proxy.url, WAF_TOKEN: E2E_TOKEN }, creates };
}

describe('wafctl apply', () => {
  it('applies examples/ to an empty emulator, after which the plan is empty', async () => {
    const result = await apply([EXAMPLES]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Apply complete! Resources: \d+ added, 0 changed, 0 destroyed\.\n$/);
    expect(await planExit(EXAMPLES)).toBe(0);
  });

  it('converges after each of a scripted sequence of configuration changes', async () => {
    const dir = await writeConfig({});
    const manage =
      'manage:\n  application_rules: {prune: true, match: {rq_host: ["*.example.com"]}}\n  groups: {prune: true}\n';
    const steps: Record<string, string>[] = [
      // 1. initial state
      {
        'rules.yaml': rules(rule('Block admin'), rule('Block export')),
        'wafctl.yaml': manage,
        'groups.yaml': 'groups:\n  - name: ops\n    users: [u-1001]\n',
      },
      // 2. edit a field in place
      { 'rules.yaml': rules(rule('Block admin', { priority: 'low' }), rule('Block export')) },
      // 3. change a condition (replacement)
      {
        'rules.yaml': rules(
          rule('Block admin', { priority: 'low', expression: '^/admin/' }),
          rule('Block export'),
        ),
      },
      // 4. rename a rule (delete + create under another key)
      {
        'rules.yaml': rules(
          rule('Block admin panel', { priority: 'low', expression: '^/admin/' }),
          rule('Block export'),
        ),
      },
      // 5. toggle enabled
      {
        'rules.yaml': rules(
          rule('Block admin panel', { priority: 'low', expression: '^/admin/', enabled: false }),
          rule('Block export'),
        ),
      },
      // 6. move a rule to another file
      {
        'rules.yaml': rules(
          rule('Block admin panel', { priority: 'low', expression: '^/admin/', enabled: false }),
        ),
        'more/export.yaml': rules(rule('Block export')),
      },
      // 7. prune a rule
      { 'more/export.yaml': rules() },
      // 8. add members and a permission to a group
      {
        'groups.yaml':
          'groups:\n  - name: ops\n    users: [u-1001, u-1002]\n    permissions: [{permission: Handle rules}]\n',
      },
      // 9. rename a group
      {
        'groups.yaml':
          'groups:\n  - name: operators\n    users: [u-1001, u-1002]\n    permissions: [{permission: Handle rules}]\n',
      },
      // 10. add a notification and a schedule
      {
        'other.yaml':
          'notifications:\n  - name: siem\n    settings: {destination_address: 10.0.0.5, destination_port: 514, format: cef, protocol: udp}\n' +
          'schedules:\n  - name: weekly\n    hosts: [shop.example.com]\n    type: summary\n    schedule: weekly\n    send_to: [a@example.com]\n    send_via: email\n    timezone: UTC\n',
      },
      // 11. change the notification's port and the schedule's recipients
      {
        'other.yaml':
          'notifications:\n  - name: siem\n    settings: {destination_address: 10.0.0.5, destination_port: 6514, format: cef, protocol: tcp}\n' +
          'schedules:\n  - name: weekly\n    hosts: [shop.example.com]\n    type: summary\n    schedule: weekly\n    send_to: [b@example.com, a@example.com]\n    send_via: email\n    timezone: UTC\n',
      },
      // 12. two rules on another host, one with several conditions and actions
      {
        'more/export.yaml': `application_rules:
  - rq_host: api.example.com
    description: Scanners
    priority: medium
    conditions:
      - {operator: contains, expressions: [sqlmap, nikto], targets: ["request:user-agent"]}
      - {operator: match, not_op: true, expressions: ["^/health"], targets: [path]}
    actions:
      - {firewall_action: block, firewall_name: waf-eu-1}
      - {firewall_action: log, firewall_name: waf-eu-2}
`,
      },
    ];
    for (const [i, files] of steps.entries()) {
      for (const [path, text] of Object.entries(files)) {
        await mkdir(dirname(join(dir, path)), { recursive: true });
        await writeFile(join(dir, path), text);
      }
      const result = await apply([dir]);
      expect(result.code, `step ${i + 1}: ${result.stdout}${result.stderr}`).toBe(0);
      expect(await planExit(dir), `step ${i + 1} left changes`).toBe(0);
    }
    const live = await firewall.api.applicationRules.list();
    expect(live.map((r) => `${r.rq_host}/${r.description}`).sort()).toEqual([
      'api.example.com/Scanners',
      'shop.example.com/Block admin panel',
    ]);
    expect((await firewall.api.groups.list()).map((g) => g.name)).toEqual(['admins', 'operators']); // admins: built in
  });

  it('creates, updates and deletes 500 rules in a handful of requests', async () => {
    const many = (priority: string) =>
      rules(
        ...Array.from({ length: 500 }, (_, i) => rule(`Rule ${i}`, { priority, host: 'bulk.example.com' })),
      );
    const dir = await writeConfig({
      'rules.yaml': many('high'),
      'wafctl.yaml': 'manage:\n  application_rules: {prune: true}\n',
    });
    await firewall.resetStats();
    expect((await apply([dir])).code).toBe(0);
    const created = await firewall.stats();
    expect(created.by_route['POST /api/v1/application_rules']).toBeLessThanOrEqual(5);

    await writeFile(join(dir, 'rules.yaml'), many('low'));
    await firewall.resetStats();
    expect((await apply([dir])).code).toBe(0);
    const updated = await firewall.stats();
    expect(updated.by_route['PUT /api/v1/application_rules/']).toBe(1);
    expect(updated.by_route['PUT /api/v1/application_rules/{application_rule_id}']).toBeUndefined();

    await writeFile(join(dir, 'rules.yaml'), rules());
    await firewall.resetStats();
    const refused = await apply([dir]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('refusing to delete 500 of 500 application_rule objects (limit 30%)');
    expect(await firewall.api.applicationRules.list()).toHaveLength(500);

    const forced = await apply([dir, '--force']);
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain('Apply complete! Resources: 0 added, 0 changed, 500 destroyed.');
    expect((await firewall.stats()).by_route['DELETE /api/v1/application_rules']).toBeLessThanOrEqual(5);
    expect(await firewall.api.applicationRules.list()).toHaveLength(0);
  });

  it('refuses a stale saved plan and applies a fresh one exactly, without a prompt', async () => {
    const dir = await writeConfig({ 'rules.yaml': rules(rule('Block admin')) });
    expect((await apply([dir])).code).toBe(0);
    await writeFile(
      join(dir, 'rules.yaml'),
      rules(rule('Block admin', { priority: 'low' }), rule('Block export')),
    );
    const out = join(dir, 'plan.json');
    expect((await runCli(['plan', dir, '--out', out], { env: firewall.env })).code).toBe(0);

    // Someone changes the rule by hand after the plan was reviewed.
    const [live] = await firewall.api.applicationRules.list();
    await firewall.api.applicationRules.update(live!.id, { priority: 'medium' });
    const stale = await runCli(['apply', '--plan', out, dir], { env: firewall.env });
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('Saved plan is stale; nothing was applied.');
    expect(stale.stderr).toContain(
      `application_rule.shop.example.com/Block admin (id ${live!.id}) changed since the plan was made`,
    );
    expect(await firewall.api.applicationRules.list()).toHaveLength(1);

    // Planned again, applied from the file: exactly that plan, no prompt (stdin is not a TTY).
    expect((await runCli(['plan', dir, '--out', out], { env: firewall.env })).code).toBe(0);
    const fresh = await runCli(['apply', '--plan', out, dir], { env: firewall.env });
    expect(fresh.code).toBe(0);
    expect(fresh.stdout).toContain('Apply complete! Resources: 1 added, 1 changed, 0 destroyed.');
    expect(await planExit(dir)).toBe(0);

    // A planned create whose key appeared meanwhile is stale too.
    await writeFile(
      join(dir, 'rules.yaml'),
      rules(rule('Block admin', { priority: 'low' }), rule('Block export'), rule('Third')),
    );
    await runCli(['plan', dir, '--out', out], { env: firewall.env });
    await apply([dir]);
    const raced = await runCli(['apply', '--plan', out, dir], { env: firewall.env });
    expect(raced.code).toBe(1);
    expect(raced.stderr).toContain(
      'application_rule.shop.example.com/Third was planned as a create but now exists',
    );
  });

  it('does not prune a renamed rule whose new version could not be created', async () => {
    const prune = 'manage:\n  application_rules: {prune: true}\n';
    const dir = await writeConfig({ 'rules.yaml': rules(rule('Block admin')), 'wafctl.yaml': prune });
    expect((await apply([dir])).code).toBe(0);
    const [old] = await firewall.api.applicationRules.list();
    // Renamed: a create under the new key and a prune of the old one.
    await writeFile(join(dir, 'rules.yaml'), rules(rule('Block admin panel', { expression: '^/admin' })));
    const out = join(dir, 'plan.json');
    await runCli(['plan', dir, '--out', out], { env: firewall.env });
    const saved = JSON.parse(await readFile(out, 'utf8')) as {
      changes: { action: string; after: { conditions: { targets: string[] }[] } | null }[];
    };
    expect(saved.changes.map((c) => c.action).sort()).toEqual(['create', 'delete']);
    const create = saved.changes.find((c) => c.action === 'create');
    create!.after!.conditions[0]!.targets = []; // the server refuses it
    await writeFile(out, JSON.stringify(saved));

    const result = await runCli(['apply', '--plan', out, dir], { env: firewall.env });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      '! application_rule.shop.example.com/Block admin: delete skipped: kept: 1 new application_rule could not be created',
    );
    expect((await firewall.api.applicationRules.list()).map((r) => r.id)).toEqual([old!.id]);
  });

  it('keeps the old rule when its replacement cannot be created, and says why', async () => {
    const dir = await writeConfig({ 'rules.yaml': rules(rule('Block admin')) });
    expect((await apply([dir])).code).toBe(0);
    const [old] = await firewall.api.applicationRules.list();
    await writeFile(join(dir, 'rules.yaml'), rules(rule('Block admin', { expression: '^/admin/' })));
    const out = join(dir, 'plan.json');
    await runCli(['plan', dir, '--out', out], { env: firewall.env });
    // Make the new rule one the server refuses (no targets): only the create can fail.
    const saved = JSON.parse(await readFile(out, 'utf8')) as {
      changes: { after: { conditions: { targets: string[] }[] } }[];
    };
    saved.changes[0]!.after.conditions[0]!.targets = [];
    await writeFile(out, JSON.stringify(saved));

    const result = await runCli(['apply', '--plan', out, dir], { env: firewall.env });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      '! application_rule.shop.example.com/Block admin: create failed: [POST] /api/v1/application_rules: 400 Error creating rules',
    );
    expect(result.stdout).toContain(
      '! application_rule.shop.example.com/Block admin: delete skipped: kept: its replacement could not be created',
    );
    expect(result.stdout).toMatch(
      /Apply failed: Resources: 0 added, 0 changed, 0 destroyed \(1 failed, 1 skipped\)\.\n$/,
    );
    expect((await firewall.api.applicationRules.list()).map((r) => r.id)).toEqual([old!.id]);
    await rm(out);
  });

  it('applies nothing when some objects could not be planned, unless --allow-partial', async () => {
    const dir = await writeConfig({ 'rules.yaml': rules(rule('Block admin')) });
    expect((await apply([dir])).code).toBe(0);
    const [old] = await firewall.api.applicationRules.list();
    // A protected rule whose condition changed cannot be planned; a new rule can.
    const protectedChange = rule('Block admin', { expression: '^/admin/', protect: true });
    await writeFile(join(dir, 'rules.yaml'), rules(protectedChange, rule('Block export')));

    const refused = await apply([dir]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('Error: application_rule.shop.example.com/Block admin: protected');
    expect(refused.stderr).toBe(
      'Error: 1 object could not be planned (see the errors above): nothing was applied. Fix it, or pass --allow-partial to apply the changes of the others.\n',
    );
    expect((await firewall.api.applicationRules.list()).map((r) => r.id)).toEqual([old!.id]);

    const partial = await apply([dir, '--allow-partial']);
    expect(partial.code).toBe(1);
    expect(partial.stdout).toContain('+ application_rule.shop.example.com/Block export: created');
    expect(partial.stdout).toContain('! application_rule.shop.example.com/Block admin: refused: protected');
    const live = await firewall.api.applicationRules.list();
    expect(live.map((r) => r.description).sort()).toEqual(['Block admin', 'Block export']);
    expect(live.map((r) => r.id)).toContain(old!.id);
  });

  it('creates rules as settings.username, else WAF_USERNAME, else "wafctl"', async () => {
    const proxy = await recordingProxy(firewall);
    const applyWith = async (files: Record<string, string>, env: Record<string, string> = {}) => {
      const dir = await writeConfig(files);
      const result = await runCli(['apply', dir, '--auto-approve'], { env: { ...proxy.env, ...env } });
      expect(result.code, result.stderr).toBe(0);
    };
    await applyWith({ 'a.yaml': rules(rule('One')), 'b.yaml': 'settings: {username: gitops-bot}\n' });
    await applyWith({ 'a.yaml': rules(rule('One'), rule('Two')) }, { WAF_USERNAME: 'ci-user' });
    await applyWith({ 'a.yaml': rules(rule('One'), rule('Two'), rule('Three')) });
    // What wafctl sent: one create per apply, each new rule under the username of that run.
    expect(proxy.creates.map((sent) => sent.map((r) => `${r.description}=${r.username}`))).toEqual([
      ['One=gitops-bot'],
      ['Two=ci-user'],
      ['Three=wafctl'],
    ]);
    // What the emulator keeps: the creator each create named (the E2E token's user is `admin`).
    const stored = await firewall.api.applicationRules.list();
    expect(stored.map((r) => `${r.description}=${r.username}`)).toEqual([
      'One=gitops-bot',
      'Two=ci-user',
      'Three=wafctl',
    ]);
  });

  it('refuses to run without a terminal unless --auto-approve is given, before reading anything', async () => {
    const result = await runCli(['apply', EXAMPLES], { env: firewall.env });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'Error: refusing to apply without confirmation: no terminal to ask on. Pass --auto-approve to apply.\n',
    );
    expect((await firewall.stats()).total).toBe(0);
  });
});
