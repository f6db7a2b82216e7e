/* biome-ignore-all lint/suspicious/noTemplateCurlyInString: YAML text with ${var.NAME} references */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadEnvironment } from '../../src/config/load.js';
import { ConfigError } from '../../src/config/problems.js';
import { readProject } from '../../src/config/project.js';
import { writeFiles } from '../helpers/firewall.js';

let dir = '';

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wafctl-overlays-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const write = (files: Record<string, string>) => writeFiles(dir, files);

const PROJECT = `environments:
  staging:
    url: https://waf-staging.example.com
    token_env: WAF_TOKEN_STAGING
    paths: [base, envs/staging]
    vars: {region: eu, log_target: 10.1.1.1}
`;

const RULE = `application_rules:
  - rq_host: shop.example.com
    description: Deny SQL keywords
    priority: high
    conditions:
      - {operator: match, expressions: [select], targets: [request_body]}
    actions:
      - {firewall_action: block, firewall_name: waf-1}
`;

async function load(env: Record<string, string> = {}) {
  const project = await readProject('.', dir);
  if (project === undefined) throw new Error('no project');
  const [staging] = project.environments;
  if (staging === undefined) throw new Error('no environment');
  return loadEnvironment(project, staging, { cwd: dir, env });
}

async function problems(): Promise<string[]> {
  try {
    await load();
  } catch (error) {
    if (error instanceof ConfigError) return error.message.split('\n');
    throw error;
  }
  throw new Error('expected problems');
}

describe('overlays', () => {
  it('an overlay object overrides the top-level fields it sets, keeping the others', async () => {
    await write({
      'wafctl.yaml': PROJECT,
      'base/rules.yaml': RULE,
      'envs/staging/rules.yaml':
        'application_rules:\n  - rq_host: shop.example.com\n    description: Deny SQL keywords\n    priority: low\n    enabled: false\n',
    });
    const config = await load();
    expect(config.files).toEqual(['base/rules.yaml', 'envs/staging/rules.yaml']);
    expect(config.state.application_rules).toHaveLength(1);
    const [rule] = config.state.application_rules;
    expect(rule).toMatchObject({ priority: 'low', enabled: false });
    expect(rule?.actions).toEqual([{ firewall_action: 'block', firewall_name: 'waf-1' }]);
    // The merged object is declared where the overlay writes it.
    const declared = [...config.sources.application_rules];
    expect(declared.map((at) => `${at.file}:${at.line}:${at.col}`)).toEqual(['envs/staging/rules.yaml:2:5']);
  });

  it('remove: true removes the earlier object; a new key adds one', async () => {
    await write({
      'wafctl.yaml': PROJECT,
      'base/rules.yaml': RULE,
      'base/groups.yaml': 'groups:\n  - name: soc\n  - name: ops\n',
      'envs/staging/groups.yaml': 'groups:\n  - name: soc\n    remove: true\n  - name: staging-only\n',
    });
    const config = await load();
    expect(config.state.groups.map((group) => group.name)).toEqual(['ops', 'staging-only']);
    expect(config.state.application_rules).toHaveLength(1);
  });

  it('remove: true on a key no earlier path declares is an error at file:line:col', async () => {
    await write({
      'wafctl.yaml': PROJECT,
      'base/groups.yaml': 'groups:\n  - name: soc\n',
      'envs/staging/groups.yaml': 'groups:\n  - name: nope\n    remove: true\n',
    });
    expect(await problems()).toEqual([
      'envs/staging/groups.yaml:3:13 groups[0].remove: remove: true on group "nope", which no earlier path declares (envs/staging is read after base)',
      '1 problem in 1 file.',
    ]);
  });

  it('an overlay field problem is placed where the overlay writes it, an inherited one where the base does', async () => {
    await write({
      'wafctl.yaml': PROJECT,
      'base/notifications.yaml':
        'notifications:\n  - name: splunk\n    settings: {destination_address: 10.0.0.5, destination_port: 514, format: cef, protocol: udp}\n  - name: qradar\n    typo: 1\n    settings: {destination_address: 10.0.0.6, destination_port: 514, format: cef, protocol: udp}\n',
      'envs/staging/notifications.yaml':
        'notifications:\n  - name: splunk\n    enabled: maybe\n  - name: qradar\n    enabled: false\n',
    });
    const lines = await problems();
    expect(lines).toContain(
      'base/notifications.yaml:5:5 notifications[1]: unknown field "typo" (did you mean "type"?)',
    );
    expect(lines.filter((line) => line.includes('typo'))).toHaveLength(1);
    expect(
      lines.some((line) => line.startsWith('envs/staging/notifications.yaml:3:14 notifications[0].enabled:')),
    ).toBe(true);
    expect(lines.at(-1)).toBe('2 problems in 2 files.');
  });

  it('a key declared twice in one path is still a duplicate', async () => {
    await write({
      'wafctl.yaml': PROJECT,
      'base/groups.yaml': 'groups:\n  - name: soc\n',
      'envs/staging/groups.yaml':
        'groups:\n  - name: soc\n    description: a\n  - name: soc\n    description: b\n',
    });
    const lines = await problems();
    expect(lines[0]).toMatch(
      /^envs\/staging\/groups\.yaml:4:5 groups\[1\]: duplicate group "soc": also declared at envs\/staging\/groups\.yaml:2:5/,
    );
  });

  it('${var.NAME} reads the environment vars; an unknown var is an error at its ${', async () => {
    await write({
      'wafctl.yaml': PROJECT,
      'base/notifications.yaml':
        'notifications:\n  - name: siem-${var.region}\n    settings: {destination_address: "${var.log_target}", destination_port: 514, format: cef, protocol: udp}\n',
      'envs/staging/groups.yaml': 'groups:\n  - name: soc\n',
    });
    const config = await load();
    expect(config.state.notifications[0]).toMatchObject({
      name: 'siem-eu',
      settings: { destination_address: '10.1.1.1' },
    });
    await write({ 'envs/staging/groups.yaml': 'groups:\n  - name: ${var.nope}\n' });
    expect(await problems()).toEqual([
      'envs/staging/groups.yaml:2:11 groups[0].name: var.nope is not in the vars of environment staging (wafctl.yaml) (use ${var.nope:-default} for a default)',
      '1 problem in 1 file.',
    ]);
  });

  it('settings and manage merge across paths as across files: a field set twice is a conflict', async () => {
    await write({
      'wafctl.yaml': PROJECT,
      'base/settings.yaml': 'settings: {username: base-bot}\n',
      'envs/staging/settings.yaml': 'settings: {username: staging-bot}\nmanage: {groups: {prune: true}}\n',
    });
    const lines = await problems();
    expect(lines[0]).toMatch(
      /^envs\/staging\/settings\.yaml:1:22 settings\.username: already set at base\/settings\.yaml:1:22/,
    );
  });
});

describe('overlays of a singleton section (issue 40)', () => {
  const BASE = `network_rule_settings:
  automation: {enable: true, default_duration_minutes: 60, whitelist: [10.0.0.1]}
  expire_strategy: delete
`;

  it('a later path overrides the top-level fields it sets; the earlier ones are kept, declared once', async () => {
    await write({
      'wafctl.yaml': PROJECT,
      'base/settings.yaml': BASE,
      'envs/staging/settings.yaml': 'network_rule_settings:\n  expire_strategy: disable\n',
    });
    const config = await load();
    expect(config.state.network_rule_settings).toEqual([
      {
        automation: { enable: true, default_duration_minutes: 60, whitelist: ['10.0.0.1'] },
        expire_strategy: 'disable',
      },
    ]);
  });

  it("a problem is said where it is written: the overlay's own field there, an inherited one once", async () => {
    await write({
      'wafctl.yaml': PROJECT,
      'base/settings.yaml': BASE.replace('expire_strategy: delete', 'expire_strategy: shred'),
      'envs/staging/settings.yaml': 'network_rule_settings:\n  automation: {enable: maybe}\n',
    });
    const found = await problems();
    expect(found.filter((line) => line.includes('expire_strategy'))).toHaveLength(1);
    expect(found.find((line) => line.includes('expire_strategy'))).toMatch(/^base\/settings\.yaml:3:20 /);
    expect(found.find((line) => line.includes('automation.enable'))).toMatch(
      /^envs\/staging\/settings\.yaml:2:/,
    );
  });

  it('declared twice in one path, it is still a duplicate', async () => {
    await write({
      'wafctl.yaml': PROJECT,
      'base/a.yaml': BASE,
      'base/b.yaml': BASE,
    });
    expect((await problems()).join('\n')).toContain('duplicate');
  });
});
