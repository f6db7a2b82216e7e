/* biome-ignore-all lint/suspicious/noTemplateCurlyInString: YAML text with ${var.NAME} references */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadDesiredState } from '../../src/config/load.js';
import { ConfigError } from '../../src/config/problems.js';
import { readProject } from '../../src/config/project.js';
import { runCli } from '../helpers/cli.js';
import { startTestFirewall, writeFiles } from '../helpers/firewall.js';

let dir = '';

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wafctl-environments-'));
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
  production:
    url_env: WAF_URL_PROD
    token_env: WAF_TOKEN_PROD
    paths: [base, envs/production]
`;

const CONFIG = {
  'wafctl.yaml': PROJECT,
  'base/manage.yaml': 'manage:\n  groups: {prune: true}\n',
  'base/groups.yaml': 'groups:\n  - name: soc-${var.region:-global}\n  - name: ops\n',
  'envs/staging/groups.yaml': 'groups:\n  - name: ops\n    description: staging ops\n',
  'envs/production/groups.yaml': 'groups:\n  - name: ops\n    remove: true\n',
};

async function projectProblems(): Promise<string[]> {
  try {
    await readProject('.', dir);
  } catch (error) {
    if (error instanceof ConfigError) return error.message.split('\n');
    throw error;
  }
  throw new Error('expected problems');
}

describe('the project file', () => {
  it('reads the contract shape, in declared order, with vars as strings', async () => {
    await write({ 'wafctl.yaml': PROJECT });
    const project = await readProject('.', dir);
    expect(project?.file).toBe('wafctl.yaml');
    expect(project?.environments).toEqual([
      {
        name: 'staging',
        url: 'https://waf-staging.example.com',
        token_env: 'WAF_TOKEN_STAGING',
        paths: ['base', 'envs/staging'],
        vars: { region: 'eu', log_target: '10.1.1.1' },
      },
      {
        name: 'production',
        url_env: 'WAF_URL_PROD',
        token_env: 'WAF_TOKEN_PROD',
        paths: ['base', 'envs/production'],
        vars: {},
      },
    ]);
  });

  it("no project file, or one without environments: today's behaviour", async () => {
    expect(await readProject('.', dir)).toBeUndefined();
    await write({
      'wafctl.yaml': 'manage:\n  groups: {prune: true}\n',
      'groups.yaml': 'groups:\n  - name: soc\n',
    });
    expect(await readProject('.', dir)).toBeUndefined();
    const result = await runCli(['validate'], { cwd: dir });
    expect(result.stdout).toBe(
      'Configuration is valid: 2 files, 1 group, 0 application rules, 0 notifications, 0 schedules.\n',
    );
  });

  it('places each problem of environments: at file:line:col, naming variables only', async () => {
    await write({
      'wafctl.yaml': `environments:
  staging:
    url: https://a.example.com
    url_env: WAF_URL
    paths: []
  production:
    url_env: WAF_URL_PROD
    token_env: WAF_TOKEN_PROD
    signin_username_env: U
    paths: [/abs, ../out]
    vars: {region: [eu]}
  all:
    url_env: X
    token_env: Y
    paths: [a]
`,
    });
    expect(await projectProblems()).toEqual([
      'wafctl.yaml:3:5 environments.staging: expected token_env, or signin_username_env and signin_password_env',
      'wafctl.yaml:4:14 environments.staging.url_env: url and url_env are both set: give exactly one',
      'wafctl.yaml:5:12 environments.staging.paths: must not be empty',
      'wafctl.yaml:10:13 environments.production.paths[0]: expected a path relative to the configuration root, got an absolute path',
      'wafctl.yaml:10:19 environments.production.paths[1]: expected a path inside the configuration root, got one that leaves it (..)',
      'wafctl.yaml:11:20 environments.production.vars.region: expected a string, number or boolean, got a list',
      'wafctl.yaml:13:5 environments.all: "all" cannot name an environment: --env all selects every environment',
      '7 problems in 1 file.',
    ]);
  });

  it('the root project file still loads as configuration: its environments key is ignored', async () => {
    // Given as a PATH, the file is configuration (no environment is involved).
    await write({ ...CONFIG, 'wafctl.yaml': `${PROJECT}manage:\n  groups: {prune: true}\n` });
    const config = await loadDesiredState(['wafctl.yaml'], { cwd: dir, env: {} });
    expect(config.state.manage.groups).toEqual({ prune: true, match: {} });
    // In any other file, environments is an unknown key.
    // A directory PATH is the root; a file PATH's root is the current directory.
    await write({ 'other/wafctl.yaml': PROJECT });
    await expect(loadDesiredState(['other/wafctl.yaml'], { cwd: dir, env: {} })).rejects.toThrow(
      'other/wafctl.yaml:1:1: unknown field "environments"',
    );
  });
});

describe('wafctl validate with environments', () => {
  it('validates every environment without --env, one line each', async () => {
    await write({ ...CONFIG });
    const result = await runCli(['validate'], { cwd: dir });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [
        'Environment  Result  Impact  Error',
        'staging      valid',
        'production   valid',
        '',
        'staging: Configuration is valid: 3 files, 2 groups, 0 application rules, 0 notifications, 0 schedules.',
        'production: Configuration is valid: 3 files, 1 group, 0 application rules, 0 notifications, 0 schedules.',
        '',
      ].join('\n'),
    );
  });

  it('--env selects (repeatable, all), the root may be the PATH, JSON holds one result per environment', async () => {
    await write({ ...CONFIG, 'envs/production/groups.yaml': 'groups:\n  - name: nope\n    remove: true\n' });
    const one = await runCli(['validate', dir, '--env', 'staging'], { cwd: tmpdir() });
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(/^staging: Configuration is valid: 3 files, 2 groups/);
    const all = await runCli(['validate', '--env', 'all', '--format', 'json'], { cwd: dir });
    expect(all.code).toBe(1);
    const json = JSON.parse(all.stdout);
    expect(Object.keys(json.environments)).toEqual(['staging', 'production']);
    expect(json.environments.staging).toMatchObject({ valid: true, files: 3, groups: 2 });
    expect(json.environments.production.valid).toBe(false);
    expect(json.environments.production.problems[0]).toMatchObject({
      file: 'envs/production/groups.yaml',
      line: 3,
      col: 13,
      path: 'groups[0].remove',
    });
    const text = await runCli(['validate', '--env', 'production', '--env', 'staging'], { cwd: dir });
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(
      /^Environment +Result +Impact +Error\nstaging +valid\nproduction +invalid: 1 problem\n\nstaging: Configuration is valid/,
    );
    expect(text.stderr).toBe(
      [
        'production: envs/production/groups.yaml:3:13 groups[0].remove: remove: true on group "nope", which no earlier path declares (envs/production is read after base)',
        'production: 1 problem in 1 file.',
        '',
      ].join('\n'),
    );
  });

  it('an unknown environment is a usage error listing the names', async () => {
    await write({ ...CONFIG });
    const result = await runCli(['validate', '--env', 'stagin'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'unknown environment "stagin": wafctl.yaml declares staging, production (or --env all)',
    );
  });

  it('--env without environments is a usage error; an invalid project file exits 1', async () => {
    await write({ 'groups.yaml': 'groups:\n  - name: soc\n' });
    const none = await runCli(['validate', '--env', 'staging'], { cwd: dir });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('--env selects environments of wafctl.yaml');
    await write({ 'wafctl.yaml': 'environments:\n  staging:\n    url_env: U\n    token_env: T\n' });
    const invalid = await runCli(['validate'], { cwd: dir });
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain(
      'wafctl.yaml:3:5 environments.staging: required field "paths" is missing',
    );
  });
});

describe('commands that talk to an API, without --env', () => {
  it.each([
    ['plan', 'plan'],
    ['drift', 'check for drift'],
    ['apply', 'apply'],
  ])(
    '%s refuses a root that declares environments, asking for --env NAME, before any request',
    async (command, verb) => {
      await write({ 'wafctl.yaml': PROJECT, 'base/groups.yaml': 'groups:\n  - name: soc\n' });
      const firewall = await startTestFirewall();
      try {
        const args = command === 'apply' ? [command, dir, '--auto-approve'] : [command, dir];
        const result = await runCli(args, { env: firewall.env });
        expect(result.stderr).toBe(
          `Error: ${join(dir, 'wafctl.yaml')} declares environments (staging, production): pass --env NAME to choose the one to ${verb}; nothing was read from the firewall. \`wafctl validate\` checks every environment.\n`,
        );
        expect(result.code).toBe(1);
        expect((await firewall.stats()).total).toBe(0);
      } finally {
        await firewall.close();
      }
    },
  );

  it('pull refuses a root that declares environments, asking for --env NAME, before any request', async () => {
    await write({ 'wafctl.yaml': PROJECT, 'base/groups.yaml': 'groups:\n  - name: soc\n' });
    const firewall = await startTestFirewall();
    try {
      const result = await runCli(['pull', dir], { env: firewall.env });
      expect(result.stderr).toBe(
        `Error: ${join(dir, 'wafctl.yaml')} declares environments (staging, production): pass --env NAME to choose the one to pull; nothing was read from the firewall. \`wafctl validate\` checks every environment.\n`,
      );
      expect(result.code).toBe(1);
      expect((await firewall.stats()).total).toBe(0);
    } finally {
      await firewall.close();
    }
  });
});

describe('configuration in wafctl.yaml that no environment reads (issue 41)', () => {
  it('is refused at each key, naming the environments and their paths', async () => {
    await write({
      ...CONFIG,
      'wafctl.yaml': `${PROJECT}manage:\n  groups: {prune: true, match: {name: [e1-*]}}\n`,
    });
    expect(await projectProblems()).toEqual([
      'wafctl.yaml:12:3 manage: manage here is read by no environment: each reads only its paths (staging (base, envs/staging); production (base, envs/production)); move it into a file of those paths, or list "." in their paths',
      '1 problem in 1 file.',
    ]);
    const plan = await runCli(['validate', dir], { cwd: tmpdir() });
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain('manage here is read by no environment');
  });

  it('is read, and allowed, when an environment lists the root or the file', async () => {
    for (const path of ['.', 'wafctl.yaml']) {
      const project = `${PROJECT.replace('paths: [base, envs/staging]', `paths: [${path}, base, envs/staging]`)}manage:\n  groups: {prune: true}\n`;
      await write({ ...CONFIG, 'wafctl.yaml': project });
      expect((await readProject('.', dir))?.environments).toHaveLength(2);
    }
  });
});
