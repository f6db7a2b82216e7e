/**
 * `wafctl validate` with rule lint warnings: a line each on stderr and the count in the verdict,
 * exit 0; with `--strict`, exit 1. The same in JSON, per environment, and through the library.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { validate } from '../../src/library/index.js';
import { runCli } from '../helpers/cli.js';
import { writeFiles } from '../helpers/firewall.js';

let dir = '';

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wafctl-validate-strict-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A rule at line 2 + 7 * its index of the file, its mapping at column 5. */
const rule = (description: string, priority: string, action: string, expression = '^/admin') =>
  `  - rq_host: shop.example.com
    description: ${description}
    priority: ${priority}
    conditions:
      - {operator: match, expressions: ["${expression}"], targets: [path]}
    actions:
      - {firewall_action: ${action}, firewall_name: waf-eu-1}
`;

/** Line 9: `low` is shadowed by `high` (line 2). */
const SHADOWED = `application_rules:\n${rule('high', 'high', 'block')}${rule('low', 'low', 'log')}`;
const SHADOWED_MESSAGE =
  'shadowed by shop.example.com/high (same host and conditions, higher priority): it can never decide; shop.example.com/high is at rules.yaml:2:5';
const WARNING = {
  file: 'rules.yaml',
  line: 9,
  col: 5,
  path: 'application_rules[1]',
  code: 'shadowed',
  message: SHADOWED_MESSAGE,
};
const COUNTS = '1 file, 0 groups, 2 application rules, 0 notifications, 0 schedules';

describe('wafctl validate with warnings', () => {
  it('prints each warning on stderr and says "valid, N warnings": exit 0; --strict: exit 1', async () => {
    await writeFiles(dir, { 'rules.yaml': SHADOWED });
    const lenient = await runCli(['validate'], { cwd: dir });
    expect(lenient).toEqual({
      code: 0,
      stdout: `Configuration is valid, 1 warning: ${COUNTS}.\n`,
      stderr: `rules.yaml:9:5: warning: ${SHADOWED_MESSAGE}\n`,
    });
    const strict = await runCli(['validate', '--strict'], { cwd: dir });
    expect(strict).toEqual({
      code: 1,
      stdout: '',
      stderr: `rules.yaml:9:5: warning: ${SHADOWED_MESSAGE}\nConfiguration is invalid: 1 warning, which --strict makes errors.\n`,
    });
  });

  it('--strict changes nothing for a configuration without warnings', async () => {
    await writeFiles(dir, { 'rules.yaml': `application_rules:\n${rule('all', 'high', 'log', '.*')}` });
    const strict = await runCli(['validate', '--strict'], { cwd: dir });
    expect(strict).toEqual({
      code: 0,
      stdout: 'Configuration is valid: 1 file, 0 groups, 1 application rule, 0 notifications, 0 schedules.\n',
      stderr: '',
    });
  });

  it('--format json: the warnings in the document; --strict makes it invalid, the warnings its problems', async () => {
    await writeFiles(dir, { 'rules.yaml': SHADOWED });
    const lenient = await runCli(['validate', '--format', 'json'], { cwd: dir });
    expect(lenient.code).toBe(0);
    expect(lenient.stderr).toBe('');
    expect(JSON.parse(lenient.stdout)).toEqual({
      valid: true,
      files: 1,
      groups: 0,
      application_rules: 2,
      notifications: 0,
      schedules: 0,
      network_rule_settings: 0,
      warnings: [WARNING],
    });
    const strict = await runCli(['validate', '--format', 'json', '--strict'], { cwd: dir });
    expect(strict.code).toBe(1);
    const { code: _, ...problem } = WARNING;
    expect(JSON.parse(strict.stdout)).toEqual({ valid: false, problems: [problem], warnings: [WARNING] });
  });

  it("the library's validate gives the same documents, strict or not", async () => {
    await writeFiles(dir, { 'rules.yaml': SHADOWED });
    for (const strict of [false, true]) {
      const cli = await runCli(['validate', '--format', 'json', ...(strict ? ['--strict'] : [])], {
        cwd: dir,
      });
      expect(await validate({ cwd: dir, strict })).toEqual(JSON.parse(cli.stdout));
    }
    expect(await validate({ cwd: dir, strict: true })).toMatchObject({ valid: false, warnings: [WARNING] });
  });

  describe('with environments', () => {
    const PROJECT = `environments:
  staging: {url: https://waf-staging.example.com, token_env: WAF_TOKEN_STAGING, paths: [base]}
  production: {url: https://waf.example.com, token_env: WAF_TOKEN_PROD, paths: [base, prod]}
`;
    // production adds a rule that `high` of base shadows: its warning is production's alone.
    const FILES = {
      'wafctl.yaml': PROJECT,
      'base/rules.yaml': `application_rules:\n${rule('high', 'high', 'block')}`,
      'prod/rules.yaml': `application_rules:\n${rule('low', 'low', 'log')}`,
    };
    const MESSAGE = SHADOWED_MESSAGE.replace('rules.yaml:2:5', 'base/rules.yaml:2:5');
    const staging =
      'staging: Configuration is valid: 1 file, 0 groups, 1 application rule, 0 notifications, 0 schedules.';

    it('text: each environment its warnings and verdict, under its name; --strict fails the one with warnings', async () => {
      await writeFiles(dir, FILES);
      const lenient = await runCli(['validate'], { cwd: dir });
      // The fleet summary opens the output, one row per environment.
      const table = (rows: string) => `Environment  Result${rows}\n\n`;
      expect(lenient).toEqual({
        code: 0,
        stdout: `${table('  Impact  Error\nstaging      valid\nproduction   valid')}${staging}\nproduction: Configuration is valid, 1 warning: 2 files, 0 groups, 2 application rules, 0 notifications, 0 schedules.\n`,
        stderr: `production: prod/rules.yaml:2:5: warning: ${MESSAGE}\n`,
      });
      const strict = await runCli(['validate', '--strict'], { cwd: dir });
      expect(strict).toEqual({
        code: 1,
        stdout: `${table('              Impact  Error\nstaging      valid\nproduction   invalid: 1 problem')}${staging}\n`,
        stderr: `production: prod/rules.yaml:2:5: warning: ${MESSAGE}\nproduction: Configuration is invalid: 1 warning, which --strict makes errors.\n`,
      });
    });

    it("JSON: the warnings in each environment's document; --strict: that one invalid, and the whole", async () => {
      await writeFiles(dir, FILES);
      const warning = {
        ...WARNING,
        file: 'prod/rules.yaml',
        line: 2,
        path: 'application_rules[0]',
        message: MESSAGE,
      };
      const lenient = await runCli(['validate', '--format', 'json'], { cwd: dir });
      expect(lenient.code).toBe(0);
      expect(JSON.parse(lenient.stdout)).toMatchObject({
        valid: true,
        environments: {
          staging: { valid: true, warnings: [] },
          production: { valid: true, warnings: [warning] },
        },
      });
      const strict = await runCli(['validate', '--format', 'json', '--strict', '--env', 'all'], { cwd: dir });
      expect(strict.code).toBe(1);
      expect(JSON.parse(strict.stdout)).toMatchObject({
        valid: false,
        environments: { staging: { valid: true }, production: { valid: false, warnings: [warning] } },
      });
      expect(await validate({ cwd: dir, strict: true })).toEqual(JSON.parse(strict.stdout));
    });
  });
});
