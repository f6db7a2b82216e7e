/**
 * No line wafctl prints may start a GitHub Actions workflow command (core/text.ts
 * `neutralizeWorkflowCommands`): file names and values come from a pull request. Machine-readable
 * output (JSON, YAML) still reads back as the same values.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { ApplicationRuleInput } from '../../src/api/index.js';
import { neutralizeWorkflowCommands } from '../../src/core/text.js';
import { renderExportFile } from '../../src/ops/export/document.js';
import { renderRecord } from '../../src/ops/get/render.js';
import { type CliResult, runCli } from '../helpers/cli.js';
import { startTestFirewall, type TestFirewall, writeConfig } from '../helpers/firewall.js';
import { rulesYaml } from '../helpers/fixtures.js';

/** What an attacker puts in a value: a line of its own that opens a command, and the legacy form. */
const FORGED = 'x\n::warning::y ##[error]z';
/** Long enough (40 characters and more) that yaml would break a double-quoted string at its `\n`. */
const FORGED_LONG = 'a description long enough to be folded\n  ::add-mask::hidden\r\n::stop-commands::tok';

/** Lines as the runner reads them (`\n`, `\r\n`, a lone `\r`) that it would take as a command. */
function commandLines(text: string): string[] {
  return text.split(/\r\n|\r|\n/).filter((line) => /^\s*::/.test(line) || line.includes('##['));
}

function expectNoCommands(result: CliResult): void {
  expect(commandLines(result.stdout)).toEqual([]);
  expect(commandLines(result.stderr)).toEqual([]);
}

const rule = (description: string): ApplicationRuleInput => ({
  rq_host: 'shop.example.com',
  description,
  priority: 'high',
  username: 'someone',
  conditions: [{ operator: 'match', expressions: [{ expression: '^/x' }], targets: [{ target: 'path' }] }],
  actions: [{ firewall_action: 'block', firewall_name: 'waf-eu-1' }],
});

describe('output for CI logs', () => {
  let firewall: TestFirewall;
  beforeEach(async () => {
    firewall = await startTestFirewall();
  });
  afterEach(async () => {
    await firewall.close();
  });

  it('validate: a broken file named like a command is named, escaped', async () => {
    const dir = await writeConfig({
      '::warning title=x::forged.yaml': 'application_rules:\n  - rq_host: [\n',
      'abc ##[warning]y.yaml': 'groups: [\n',
    });
    // Relative to the directory, so the file name opens the line of its problem.
    const result = await runCli(['validate', '.'], { cwd: dir });
    expect(result.code).toBe(1);
    expectNoCommands(result);
    expect(result.stderr).toMatch(/^\\::warning title=x::forged\.yaml:\d+:\d+: invalid YAML/m);
    expect(result.stderr).toContain('abc ##\\u005bwarning]y.yaml:');

    const absolute = await runCli(['validate', dir]);
    expect(absolute.code).toBe(1);
    expectNoCommands(absolute);
    expect(absolute.stderr).toContain('::warning title=x::forged.yaml');
  });

  it("commander's own messages (usage errors) go through the guard too", async () => {
    const unknown = await runCli(['::warning::x\n::error::y']);
    expect(unknown.code).toBe(1);
    expectNoCommands(unknown);
    const choice = await runCli(['plan', '.', '--format', '##[error]x']);
    expect(choice.code).toBe(1);
    expectNoCommands(choice);
    expect(choice.stderr).toContain("argument '##\\u005berror]x' is invalid");
  });

  it('plan: text, markdown and json of a forged description', async () => {
    const dir = await writeConfig({
      'rules.yaml': rulesYaml([{ description: FORGED }, { description: FORGED_LONG }]),
    });
    for (const format of ['text', 'markdown', 'json']) {
      const result = await runCli(['plan', dir, '--format', format], { env: firewall.env });
      expect(result.code, result.stderr).toBe(0);
      expectNoCommands(result);
    }
    const json = await runCli(['plan', dir, '--format', 'json'], { env: firewall.env });
    const plan = JSON.parse(json.stdout) as { changes: { after: { description: string } }[] };
    expect(plan.changes.map((c) => c.after.description).sort()).toEqual([FORGED, FORGED_LONG].sort());
  });

  it('export to stdout: forged strings are double-quoted on one line and read back the same', async () => {
    await firewall.api.applicationRules.create([rule(FORGED), rule(FORGED_LONG), rule('::notice::one line')]);
    await firewall.api.groups.create({
      name: 'soc',
      description: '##[group]analysts',
      permissions: [],
      user_ids: [],
    });
    const result = await runCli(['export'], { env: firewall.env });
    expect(result.code, result.stderr).toBe(0);
    expectNoCommands(result);
    expect(result.stdout).toContain(`description: ${JSON.stringify(FORGED).replace('##[', '##\\u005b')}\n`);

    const exported = parse(result.stdout) as {
      application_rules: { description: string }[];
      groups: { description: string }[];
    };
    expect(exported.application_rules.map((r) => r.description).sort()).toEqual(
      [FORGED, FORGED_LONG, '::notice::one line'].sort(),
    );
    expect(exported.groups[0]?.description).toBe('##[group]analysts');

    // What it wrote is a configuration of the same firewall.
    const dir = await writeConfig({});
    await writeFile(join(dir, 'waf.yaml'), result.stdout);
    const plan = await runCli(['plan', dir, '--detailed-exitcode'], { env: firewall.env });
    expect(plan.stdout).toBe('No changes. The firewall matches the configuration.\n');
  });

  it('export of ordinary values is written as before: block scalars, plain strings', async () => {
    await firewall.api.applicationRules.create([rule('line one\nline two'), rule('Block a::b')]);
    await firewall.api.notifications.create({
      name: 'archive',
      type: 'generic',
      enabled: true,
      settings: { destination_address: '::1', destination_port: 6514, format: 'json', protocol: 'tcp' },
    });
    const result = await runCli(['export'], { env: firewall.env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('    description: |-\n      line one\n      line two\n');
    expect(result.stdout).toContain('    description: Block a::b\n');
    // After `key: `, a one-line `::1` opens no line: it stays plain.
    expect(result.stdout).toContain('      destination_address: ::1\n');
    expect(result.stdout).not.toContain('"');
  });

  it('a key that would open a command is double-quoted, in export and get', () => {
    const record = { '::warning::k': 'v', nested: { '  ::add-mask::m': ['::1', 'a\n::b'] } };
    const exported = renderExportFile([{ section: 'groups', objects: [record], leftOut: 0 }], 'x.json');
    const got = renderRecord('groups', record, 'yaml', { color: false });
    for (const text of [exported, got]) {
      expect(commandLines(neutralizeWorkflowCommands(text))).toEqual([]);
      expect(text).toContain('"::warning::k": v');
      expect(text).not.toContain('"::1"');
    }
    expect(parse(neutralizeWorkflowCommands(exported)).groups).toEqual([record]);
    expect(parse(neutralizeWorkflowCommands(got))).toEqual(record);
  });

  it('get --output yaml and json: no command line, the same values', async () => {
    await firewall.api.applicationRules.create([rule(FORGED), rule(FORGED_LONG)]);
    const yamlResult = await runCli(['get', 'application-rules', '--output', 'yaml'], { env: firewall.env });
    expect(yamlResult.code, yamlResult.stderr).toBe(0);
    expectNoCommands(yamlResult);
    const fromYaml = parse(yamlResult.stdout) as { description: string }[];
    expect(fromYaml.map((r) => r.description).sort()).toEqual([FORGED, FORGED_LONG].sort());

    const jsonResult = await runCli(['get', 'application-rules', '--output', 'json'], { env: firewall.env });
    expect(jsonResult.code, jsonResult.stderr).toBe(0);
    expectNoCommands(jsonResult);
    const fromJson = JSON.parse(jsonResult.stdout) as { description: string }[];
    expect(fromJson.map((r) => r.description).sort()).toEqual([FORGED, FORGED_LONG].sort());
    expect(fromJson).toEqual(fromYaml);
  });
});
