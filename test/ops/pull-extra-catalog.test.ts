/**
 * `wafctl pull` writing live application rules that use targets or operators outside wafctl's
 * catalog: the names are declared in `settings.extra_targets` / `settings.extra_operators` (appended
 * to the list a file already sets, else next to the rule), so the edited files load and plan to no
 * changes. A rule settings cannot make valid (a lookahead) is not adopted, and says why.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApplicationRuleInput } from '../../src/api/index.js';
import { runCli } from '../helpers/cli.js';
import { startTestFirewall, type TestFirewall, writeConfig } from '../helpers/firewall.js';

let firewall: TestFirewall;
beforeEach(async () => {
  firewall = await startTestFirewall();
});
afterEach(async () => {
  await firewall.close();
});

const cli = (args: string[]) => runCli(args, { env: firewall.env });
const read = (dir: string, file: string) => readFile(join(dir, file), 'utf8');

const RULES = `application_rules:
  - rq_host: shop.example.com
    description: Block admin
    priority: high
    conditions:
      - {operator: match, expressions: ["^/admin"], targets: [path]}
    actions:
      - {firewall_action: block, firewall_name: waf-eu-1}
`;

/** A live rule of shop.example.com with one condition. */
const liveRule = (
  description: string,
  condition: { operator: string; target: string; expression?: string },
): ApplicationRuleInput => ({
  rq_host: 'shop.example.com',
  description,
  priority: 'high',
  username: 'someone',
  conditions: [
    {
      operator: condition.operator,
      expressions: [{ expression: condition.expression ?? 'x' }],
      targets: [{ target: condition.target }],
    },
  ],
  actions: [{ firewall_action: 'block', firewall_name: 'waf-eu-1' }],
});

async function appliedConfig(files: Record<string, string>): Promise<string> {
  const dir = await writeConfig(files);
  const applied = await cli(['apply', dir, '--auto-approve']);
  expect(applied.code, applied.stderr).toBe(0);
  return dir;
}

/** The pulled files validate and plan to no changes. */
async function expectClean(dir: string): Promise<void> {
  const validate = await cli(['validate', dir]);
  expect(validate.code, validate.stdout + validate.stderr).toBe(0);
  const plan = await cli(['plan', dir, '--detailed-exitcode']);
  expect(plan.code, plan.stdout).toBe(0);
}

describe('pull of rules beyond the catalog', () => {
  it('--adopt declares the unknown names next to the adopted rule, with a note', async () => {
    const dir = await appliedConfig({ 'rules.yaml': RULES });
    await firewall.api.applicationRules.create([
      liveRule('Stale sessions', { operator: 'starts_with', target: 'request_cookie:session' }),
    ]);
    const pulled = await cli(['pull', dir, '--adopt']);
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(pulled.stderr).toContain(
      `Note: declared request_cookie:session in settings.extra_targets (${join(dir, 'rules.yaml')}): the live rules pull writes use it, and wafctl's catalog lacks it.`,
    );
    expect(pulled.stderr).toContain('Note: declared starts_with in settings.extra_operators (');
    const text = await read(dir, 'rules.yaml');
    expect(text.startsWith(RULES)).toBe(true);
    expect(text).toContain('  - rq_host: shop.example.com\n    description: Stale sessions\n');
    expect(text).toContain(
      'settings:\n  extra_targets: [request_cookie:session]\n  extra_operators: [starts_with]\n',
    );
    await expectClean(dir);
  });

  it('appends to the list a file already declares, and sets the other in the settings the rule document has', async () => {
    const settings = '# what the firmware knows\nsettings:\n  extra_targets: [response_header:x]\n';
    const withSettings = `${RULES}\nsettings:\n  username: gitops-bot\n`;
    const dir = await appliedConfig({ 'rules.yaml': withSettings, 'settings.yaml': settings });
    await firewall.api.applicationRules.create([
      liveRule('Stale sessions', { operator: 'starts_with', target: 'request_cookie:session' }),
    ]);
    const pulled = await cli(['pull', dir, '--adopt']);
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(await read(dir, 'settings.yaml')).toBe(
      '# what the firmware knows\nsettings:\n  extra_targets: [response_header:x, request_cookie:session]\n',
    );
    expect(await read(dir, 'rules.yaml')).toContain(
      'settings:\n  username: gitops-bot\n  extra_operators: [starts_with]\n',
    );
    await expectClean(dir);
  });

  it("declares the names a declared rule's conditions use once they changed live", async () => {
    const dir = await appliedConfig({ 'rules.yaml': RULES });
    // Conditions cannot be updated: a console change replaces the rule under the same key.
    const [declared] = await firewall.api.applicationRules.list();
    await firewall.api.applicationRules.delete([declared?.id ?? '']);
    await firewall.api.applicationRules.create([
      liveRule('Block admin', { operator: 'match', target: 'request_cookie:admin', expression: '^1$' }),
    ]);
    const pulled = await cli(['pull', dir]);
    expect(pulled.code, pulled.stderr).toBe(0);
    const text = await read(dir, 'rules.yaml');
    expect(text).toContain('request_cookie:admin');
    expect(text).toContain('settings:\n  extra_targets: [request_cookie:admin]\n');
    expect(text).not.toContain('extra_operators');
    await expectClean(dir);
  });

  it('writes no settings when the rules use catalog names, or names the settings already accept', async () => {
    const families = 'settings:\n  extra_targets: ["request_cookie:*"]\n';
    const dir = await appliedConfig({ 'rules.yaml': RULES, 'settings.yaml': families });
    await firewall.api.applicationRules.create([
      liveRule('Scanners', { operator: 'contains', target: 'request:user-agent' }),
      liveRule('Stale sessions', { operator: 'equals', target: 'request_cookie:session' }),
    ]);
    const pulled = await cli(['pull', dir, '--adopt']);
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(pulled.stderr).toBe('');
    expect(await read(dir, 'settings.yaml')).toBe(families);
    expect(await read(dir, 'rules.yaml')).not.toContain('settings:');
    await expectClean(dir);
  });

  it('does not adopt a rule whose match expression RE2 cannot compile, saying why', async () => {
    const dir = await appliedConfig({ 'rules.yaml': RULES });
    const [id] = await firewall.api.applicationRules.create([
      liveRule('Private paths', { operator: 'match', target: 'path', expression: '^/(?!public/)' }),
    ]);
    const pulled = await cli(['pull', dir, '--adopt']);
    expect(pulled.code).toBe(0);
    expect(pulled.stderr).toContain(
      `Warning: application_rule ${id} (shop.example.com/Private paths) not adopted: its match expression "^/(?!public/)" is refused by validate whatever the settings say (`,
    );
    expect(await read(dir, 'rules.yaml')).toBe(RULES);
  });
});
