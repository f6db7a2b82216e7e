/* biome-ignore-all lint/suspicious/noTemplateCurlyInString: YAML text with ${VAR} references */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { EXAMPLES } from '../helpers/fixtures.js';

describe('wafctl validate', () => {
  it('accepts examples/ with exit 0 and a summary of what it loaded', async () => {
    const result = await runCli(['validate', EXAMPLES]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      'Configuration is valid: 7 files, 4 groups, 6 application rules, 1 notification, 2 schedules.\n',
    );
  });

  it('--format json prints the counts', async () => {
    const result = await runCli(['validate', EXAMPLES, '--format', 'json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      valid: true,
      files: 7,
      groups: 4,
      application_rules: 6,
      notifications: 1,
      schedules: 2,
      network_rule_settings: 0,
      warnings: [],
    });
  });

  describe('with files of its own', () => {
    let dir = '';

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'wafctl-validate-'));
      await writeFile(join(dir, 'ok.yaml'), 'groups:\n  - name: soc\n');
      await writeFile(join(dir, 'big.yaml'), `# ${'x'.repeat(5 * 1024 * 1024)}\n`);
    });

    afterAll(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it('defaults PATH to the current directory', async () => {
      const result = await runCli(['validate', 'ok.yaml'], { cwd: dir });
      expect(result.code).toBe(0);
      const defaulted = await runCli(['validate'], { cwd: dir });
      expect(defaulted.code).toBe(1);
      expect(defaulted.stderr).toContain('big.yaml:1:1: file is too large');
    });

    it('reports a missing PATH and an oversized file, exit 1', async () => {
      const result = await runCli(['validate', 'nope.yaml', 'big.yaml', 'ok.yaml'], { cwd: dir });
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(
        [
          'big.yaml:1:1: file is too large: 5242883 bytes, the limit is 5242880 bytes (5 MiB)',
          'nope.yaml: no such file or directory',
          '2 problems in 2 files.',
          '',
        ].join('\n'),
      );
    });

    it('substitutes variables from its environment', async () => {
      await writeFile(join(dir, 'env.yaml'), 'groups:\n  - name: ${WAFCTL_VAR_GROUP_NAME}\n');
      const unset = await runCli(['validate', 'env.yaml'], { cwd: dir });
      expect(unset.code).toBe(1);
      expect(unset.stderr).toContain(
        'env.yaml:2:11 groups[0].name: environment variable WAFCTL_VAR_GROUP_NAME is not set',
      );
      const set = await runCli(['validate', 'env.yaml'], { cwd: dir, env: { WAFCTL_VAR_GROUP_NAME: 'soc' } });
      expect(set.code).toBe(0);
    });

    it('substitutes nested defaults, and an unset variable inside a used default is an error', async () => {
      await writeFile(
        join(dir, 'nested.yaml'),
        'groups:\n  - name: ${WAFCTL_VAR_GROUP:-team-${WAFCTL_VAR_TEAM}}\n',
      );
      const unset = await runCli(['validate', 'nested.yaml'], { cwd: dir });
      expect(unset.code).toBe(1);
      expect(unset.stderr).toBe(
        [
          'nested.yaml:2:36 groups[0].name: environment variable WAFCTL_VAR_TEAM is not set (use ${WAFCTL_VAR_TEAM:-default} for a default); it is needed because WAFCTL_VAR_GROUP is unset or empty',
          '1 problem in 1 file.',
          '',
        ].join('\n'),
      );
      for (const env of [{ WAFCTL_VAR_TEAM: 'shop' }, { WAFCTL_VAR_GROUP: 'soc' }]) {
        const result = await runCli(['validate', 'nested.yaml'], { cwd: dir, env });
        expect([result.code, result.stderr]).toEqual([0, '']);
      }
    });

    it('refuses a variables: list without a trusted ref, naming how to export each value (issue 50)', async () => {
      await mkdir(join(dir, 'declared'));
      await writeFile(
        join(dir, 'declared/a.yaml'),
        'variables: [PGPASSWORD]\ngroups:\n  - name: soc\n    description: ${PGPASSWORD}\n',
      );
      const result = await runCli(['validate', 'declared'], {
        cwd: dir,
        env: { PGPASSWORD: 'hunter2-secret' },
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(
        'declared/a.yaml:1:13 variables[0]: PGPASSWORD cannot be declared here: without a trusted ref, variables: would let a pull request read any variable of the job; export the value as WAFCTL_VAR_PGPASSWORD and write ${WAFCTL_VAR_PGPASSWORD}, or pin the list with --trusted-ref REF',
      );
      expect(result.stderr + result.stdout).not.toContain('hunter2-secret');
    });

    it('refuses a declaration outside its manage scope declared in another file, exit 1', async () => {
      await mkdir(join(dir, 'scoped'));
      await writeFile(
        join(dir, 'scoped/manage.yaml'),
        'manage:\n  schedules:\n    match: {send_via: [email]}\n',
      );
      await writeFile(
        join(dir, 'scoped/schedules.yaml'),
        'schedules:\n  - name: weekly\n    hosts: [shop.example.com]\n    type: summary\n    schedule: weekly\n    send_to: [a@example.com]\n    send_via: slack\n    timezone: UTC\n',
      );
      const result = await runCli(['validate', 'scoped'], { cwd: dir });
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(
        [
          'scoped/schedules.yaml:7:15 schedules[0].send_via: send_via "slack" is outside the manage scope: it matches none of manage.schedules.match.send_via ["email"] (set at scoped/manage.yaml:3:23), so wafctl would never create or update this schedule',
          '1 problem in 1 file.',
          '',
        ].join('\n'),
      );
    });

    it('rejects an unknown --format', async () => {
      const result = await runCli(['validate', 'ok.yaml', '--format', 'xml'], { cwd: dir });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain("argument 'xml' is invalid");
    });
  });
});
