/**
 * Export of application rules that use names outside wafctl's catalog of targets and operators: the
 * names go into `settings.extra_targets` / `settings.extra_operators`, so that export -> validate ->
 * plan still says "No changes."; a `match` expression RE2 cannot compile is left out, with the reason.
 */
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { ApplicationRuleInput } from '../../src/api/index.js';
import { catalogProblem, catalogSettingsOf } from '../../src/ops/export/catalog-extensions.js';
import { runCli } from '../helpers/cli.js';
import { startTestFirewall, type TestFirewall } from '../helpers/firewall.js';

interface Condition {
  operator: string;
  targets: string[];
  expressions?: string[];
}

/** A rule of api.example.com, created through the API as the firmware holds it. */
const rule = (description: string, conditions: Condition[]): ApplicationRuleInput => ({
  rq_host: 'api.example.com',
  description,
  priority: 'high',
  username: 'someone',
  conditions: conditions.map((c) => ({
    operator: c.operator,
    expressions: (c.expressions ?? ['x']).map((expression) => ({ expression })),
    targets: c.targets.map((target) => ({ target })),
  })),
  actions: [{ firewall_action: 'block', firewall_name: 'waf-eu-1' }],
});

/** The same rule as the configuration (and export) writes it. */
const attributes = (conditions: Condition[]) => ({
  rq_host: 'api.example.com',
  description: 'r',
  conditions: conditions.map((c) => ({ expressions: ['x'], ...c })),
});

describe('catalogSettingsOf', () => {
  it.each([
    {
      name: 'catalog names only',
      conditions: [{ operator: 'match', targets: ['path', 'request:x-a'] }],
      want: {},
    },
    {
      name: 'composed catalog targets',
      conditions: [{ operator: 'contains', targets: ['request_body:x-www-form-urlencoded:password'] }],
      want: {},
    },
    {
      name: 'unknown names, sorted and deduplicated',
      conditions: [
        { operator: 'starts_with', targets: ['request_cookie:session', 'path'] },
        { operator: 'starts_with', targets: ['response_header:x', 'request_cookie:session'] },
        { operator: 'ends_with', targets: ['Path'] },
      ],
      want: {
        extra_targets: ['Path', 'request_cookie:session', 'response_header:x'],
        extra_operators: ['ends_with', 'starts_with'],
      },
    },
    {
      name: 'an unknown operator alone',
      conditions: [{ operator: 'regex', targets: ['query'] }],
      want: { extra_operators: ['regex'] },
    },
  ])('$name', ({ conditions, want }) => {
    expect(catalogSettingsOf([attributes(conditions)])).toEqual(want);
  });
});

describe('catalogProblem', () => {
  it.each([
    {
      name: 'a lookahead in match',
      operator: 'match',
      target: 'path',
      expression: '^/(?!public)',
      refused: 'its match expression "^/(?!public)" is refused by validate whatever the settings say (',
    },
    {
      name: 'a backreference in match',
      operator: 'match',
      target: 'path',
      expression: '(a)\\1',
      refused: 'RE2 has no backreferences',
    },
    {
      name: 'an unknown target with a space',
      operator: 'match',
      target: 'request_cookie:my session',
      expression: 'x',
      refused:
        'its target "request_cookie:my session": it is outside wafctl\'s catalog and cannot be declared in settings.extra_targets: expected a target name',
    },
    {
      name: 'an unknown operator with a space',
      operator: 'starts with',
      target: 'path',
      expression: 'x',
      refused:
        'its operator "starts with": it is outside wafctl\'s catalog and cannot be declared in settings.extra_operators: expected an operator name',
    },
    {
      name: 'RE2 syntax',
      operator: 'match',
      target: 'path',
      expression: '(?i)union\\s+select',
      refused: undefined,
    },
    {
      name: 'a lookahead under contains: plain text',
      operator: 'contains',
      target: 'path',
      expression: '(?!x)',
      refused: undefined,
    },
    {
      name: 'declarable unknown names',
      operator: 'starts_with',
      target: 'request_cookie:session',
      expression: 'x',
      refused: undefined,
    },
    {
      name: 'a catalog header with a space',
      operator: 'equals',
      target: 'request:x y',
      expression: 'x',
      refused: undefined,
    },
  ])('$name', ({ operator, target, expression, refused }) => {
    const reason = catalogProblem(attributes([{ operator, targets: [target], expressions: [expression] }]));
    if (refused === undefined) expect(reason).toBeUndefined();
    else expect(reason).toContain(refused);
  });
});

let firewall: TestFirewall;
beforeEach(async () => {
  firewall = await startTestFirewall();
});
afterEach(async () => {
  await firewall.close();
});

/** Exports into a new directory and returns it with the files' parsed contents. */
async function exportDir(): Promise<{ dir: string; files: Record<string, Record<string, unknown>> }> {
  const dir = join(await mkdtemp(join(tmpdir(), 'wafctl-export-extra-')), 'waf');
  const result = await runCli(['export', '--dir', dir], { env: firewall.env });
  expect(result.code, result.stderr).toBe(0);
  const names = await readdir(dir);
  const files = Object.fromEntries(
    await Promise.all(names.map(async (name) => [name, parse(await readFile(join(dir, name), 'utf8'))])),
  );
  return { dir, files };
}

/** validate and plan of `dir`: valid, and no changes against the firewall. */
async function expectRoundTrip(dir: string): Promise<void> {
  const validate = await runCli(['validate', dir]);
  expect(validate.stdout + validate.stderr).toContain('Configuration is valid');
  expect(validate.code).toBe(0);
  // --detailed-exitcode: 0 only when there is nothing to change.
  const plan = await runCli(['plan', dir, '--detailed-exitcode'], { env: firewall.env });
  expect(plan.stdout).toContain('No changes. The firewall matches the configuration.');
  expect(plan.code).toBe(0);
}

describe('export of rules beyond the catalog', () => {
  it('declares the unknown targets and operators in settings, with the rules; the export validates and plans to no changes', async () => {
    await firewall.api.applicationRules.create([
      rule('Block stale sessions', [
        { operator: 'starts_with', targets: ['request_cookie:session', 'path'] },
      ]),
      rule('Block odd headers', [
        { operator: 'match', targets: ['response_header:x-debug', 'request_cookie:session'] },
        { operator: 'starts_with', targets: ['query'] },
      ]),
      rule('Block the admin panel', [{ operator: 'match', targets: ['path'] }]),
    ]);
    const { dir, files } = await exportDir();
    expect(files['application-rules.yaml']?.settings).toEqual({
      extra_targets: ['request_cookie:session', 'response_header:x-debug'],
      extra_operators: ['starts_with'],
    });
    for (const [name, content] of Object.entries(files)) {
      if (name !== 'application-rules.yaml') expect(content, name).not.toHaveProperty('settings');
    }
    await expectRoundTrip(dir);
  });

  it('writes the settings into the one document on stdout, with a comment saying why', async () => {
    await firewall.api.applicationRules.create([
      rule('Cookie', [{ operator: 'equals', targets: ['request_cookie:a'] }]),
    ]);
    const result = await runCli(['export', '--kind', 'application-rules'], { env: firewall.env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      "\n# Targets and operators the firewall's rules use that wafctl's catalog lacks: declared so that validate accepts them.\nsettings:\n  extra_targets: [request_cookie:a]\n\napplication_rules:\n",
    );
    const dir = await mkdtemp(join(tmpdir(), 'wafctl-export-extra-'));
    await writeFile(join(dir, 'waf.yaml'), result.stdout);
    await expectRoundTrip(dir);
  });

  it('writes no settings for a firewall that uses only catalog names', async () => {
    await firewall.api.applicationRules.create([
      rule('Block scanners', [{ operator: 'contains', targets: ['request:user-agent'] }]),
      rule('Block the admin panel', [{ operator: 'match', targets: ['path'] }]),
    ]);
    const { dir, files } = await exportDir();
    for (const [name, content] of Object.entries(files)) expect(content, name).not.toHaveProperty('settings');
    await expectRoundTrip(dir);
  });

  it('leaves out a rule whose match expression RE2 cannot compile, saying why; the rest validates and plans to no changes', async () => {
    const [lookahead] = await firewall.api.applicationRules.create([
      rule('Block private paths', [{ operator: 'match', targets: ['path'], expressions: ['^/(?!public/)'] }]),
      rule('Block stale sessions', [{ operator: 'starts_with', targets: ['request_cookie:session'] }]),
    ]);
    const dir = join(await mkdtemp(join(tmpdir(), 'wafctl-export-extra-')), 'waf');
    const result = await runCli(['export', '--dir', dir], { env: firewall.env });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      `Warning: application_rule ${lookahead} (api.example.com/Block private paths) left out: its match expression "^/(?!public/)" is refused by validate whatever the settings say (`,
    );
    expect(result.stderr).toContain('RE2 has no lookahead or lookbehind');
    const rules = parse(await readFile(join(dir, 'application-rules.yaml'), 'utf8'));
    expect(rules.manage).toEqual({ application_rules: { prune: false } });
    expect(rules.settings).toEqual({
      extra_targets: ['request_cookie:session'],
      extra_operators: ['starts_with'],
    });
    expect(rules.application_rules.map((r: { description: string }) => r.description)).toEqual([
      'Block stale sessions',
    ]);
    await expectRoundTrip(dir);
  });
});
