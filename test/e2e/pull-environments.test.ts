/**
 * `wafctl pull --env NAME` (issue 31): live changes of one environment written back into the path
 * that declared each value. Two emulators, a shared base and one overlay per environment:
 * production's overlay logs what the base blocks; staging's adds a group.
 */
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApplicationRuleInput } from '../../src/api/index.js';
import { runCli } from '../helpers/cli.js';
import {
  E2E_TOKEN,
  startTestFirewall,
  type TestFirewall,
  writeConfig,
  writeFiles,
} from '../helpers/firewall.js';
import { actionOverlayYaml, rulesYaml } from '../helpers/fixtures.js';

const BASE = `# Rules every environment runs.
${rulesYaml([{ enabled: true }, { description: 'Block login', expression: '^/login' }])}`;

const PRODUCTION = `# Production logs what staging blocks.
application_rules:
${actionOverlayYaml({ action: 'log' }).replace('Block admin', 'Block admin   # base/rules.yaml declares it')}`;

const STAGING = `groups:
  - name: soc   # the analysts
    description: Analysts
`;

let staging: TestFirewall;
let production: TestFirewall;
let dir = '';
/** The whole environment each command sees: the token variables wafctl.yaml names, and no WAF_*. */
let env: Record<string, string> = {};

const PROJECT = () => `environments:
  staging:
    url: ${staging.url}
    token_env: TOKEN_STAGING
    paths: [base, envs/staging]
    vars: {priority: high}
  production:
    url: ${production.url}
    token_env: TOKEN_PROD
    paths: [base, envs/production]
    vars: {priority: high}
`;

const cli = (args: string[]) => runCli(args, { env });
const read = (file: string) => readFile(join(dir, file), 'utf8');

/** Every file of the configuration, by path: to say what a pull left untouched. */
async function snapshot(): Promise<Record<string, string>> {
  const files = (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
    .sort();
  return Object.fromEntries(await Promise.all(files.map(async (file) => [file, await read(file)])));
}

/** `plan --env NAME --detailed-exitcode`: 0 when the environment's firewall matches its files. */
async function planExit(name: string): Promise<number | null> {
  const plan = await cli(['plan', dir, '--env', name, '--detailed-exitcode']);
  return plan.code;
}

const rule = (description: string, action = 'block'): ApplicationRuleInput => ({
  rq_host: 'shop.example.com',
  description,
  priority: 'high',
  enabled: true,
  username: 'console',
  conditions: [
    { operator: 'match', expressions: [{ expression: '^/admin' }], targets: [{ target: 'path' }] },
  ],
  actions: [{ firewall_action: action, firewall_name: 'waf-eu-1' }],
});

async function ruleId(firewall: TestFirewall, description: string): Promise<string> {
  const rules = await firewall.api.applicationRules.list();
  return rules.find((r) => r.description === description)?.id ?? '';
}

beforeEach(async () => {
  staging = await startTestFirewall();
  production = await startTestFirewall();
  dir = await writeConfig({
    'wafctl.yaml': PROJECT(),
    'base/rules.yaml': BASE,
    'envs/staging/groups.yaml': STAGING,
    'envs/production/rules.yaml': PRODUCTION,
  });
  env = { TOKEN_STAGING: E2E_TOKEN, TOKEN_PROD: E2E_TOKEN };
  for (const name of ['staging', 'production']) {
    const applied = await cli(['apply', dir, '--env', name, '--auto-approve']);
    expect(applied.code, applied.stderr).toBe(0);
  }
});

afterEach(async () => {
  await staging.close();
  await production.close();
  await rm(dir, { recursive: true, force: true });
});

describe('pull --env NAME', () => {
  it('writes a field the overlay sets into the overlay only; base and staging stay byte-equal', async () => {
    const before = await snapshot();
    // The console "edits" the action (create + delete: actions are replaced, not updated).
    await production.api.applicationRules.delete([await ruleId(production, 'Block admin')]);
    await production.api.applicationRules.create([rule('Block admin', 'deny')]);

    const pulled = await cli(['pull', dir, '--env', 'production']);
    expect(pulled.stderr).toBe('');
    expect(pulled.code).toBe(0);
    expect(pulled.stdout).toBe('Pulled 1 object (1 updated) into 1 file.\n');
    expect(await snapshot()).toEqual({
      ...before,
      'envs/production/rules.yaml': PRODUCTION.replace('firewall_action: log', 'firewall_action: deny'),
    });
    expect(await planExit('production')).toBe(0);
    expect(await planExit('staging')).toBe(0);
  });

  it('writes a field only the base sets into the base, saying which environments share it', async () => {
    const before = await snapshot();
    await production.api.applicationRules.update(await ruleId(production, 'Block admin'), {
      enabled: false,
    });

    const pulled = await cli(['pull', dir, '--env', 'production']);
    expect(pulled.stderr).toBe(
      `Note: ${join(dir, 'base/rules.yaml')} is shared with environment staging: this change applies to it too.\n`,
    );
    expect(pulled.code).toBe(0);
    expect(await snapshot()).toEqual({
      ...before,
      // The first rule's only: comments and the other rule kept.
      'base/rules.yaml': BASE.replace('enabled: true', 'enabled: false'),
    });
    expect(await planExit('production')).toBe(0);
    // Staging reads the base too: its firewall still has the rule enabled.
    expect(await planExit('staging')).toBe(2);
  });

  it('removes an object the base declares with remove: true in the overlay, not from the base', async () => {
    const before = await snapshot();
    await production.api.applicationRules.delete([await ruleId(production, 'Block login')]);

    const pulled = await cli(['pull', dir, '--env', 'production']);
    expect(pulled.stderr).toBe('');
    expect(pulled.code).toBe(0);
    expect(pulled.stdout).toBe('Pulled 1 object (1 removed) into 1 file.\n');
    expect(await snapshot()).toEqual({
      ...before,
      'envs/production/rules.yaml': `${PRODUCTION}  - rq_host: shop.example.com
    description: Block login
    remove: true
`,
    });
    expect(await planExit('production')).toBe(0);
    expect(await planExit('staging')).toBe(0);
  });

  it("turns the overlay's override of a deleted object into its removal", async () => {
    const before = await snapshot();
    await production.api.applicationRules.delete([await ruleId(production, 'Block admin')]);

    const pulled = await cli(['pull', dir, '--env', 'production']);
    expect(pulled.stderr).toBe('');
    expect(pulled.code).toBe(0);
    expect(await snapshot()).toEqual({
      ...before,
      'envs/production/rules.yaml': `# Production logs what staging blocks.
application_rules:
  - rq_host: shop.example.com
    description: Block admin   # base/rules.yaml declares it
    remove: true
`,
    });
    expect(await planExit('production')).toBe(0);
    expect(await planExit('staging')).toBe(0);
  });

  it("creates a file in the environment's own path when it holds none of the kind", async () => {
    const before = await snapshot();
    await staging.api.applicationRules.delete([await ruleId(staging, 'Block login')]);

    const pulled = await cli(['pull', dir, '--env', 'staging']);
    expect(pulled.stderr).toBe('');
    expect(pulled.code).toBe(0);
    const after = await snapshot();
    const created = after['envs/staging/application-rules.yaml'] ?? '';
    expect(created).toMatch(/^# yaml-language-server: \$schema=/);
    expect(created).toContain(
      '\napplication_rules:\n  - rq_host: shop.example.com\n    description: Block login\n    remove: true\n',
    );
    expect({ ...after, 'envs/staging/application-rules.yaml': undefined }).toEqual({
      ...before,
      'envs/staging/application-rules.yaml': undefined,
    });
    expect(await planExit('staging')).toBe(0);
    expect(await planExit('production')).toBe(0);
  });

  it("--adopt writes new live objects into the environment's own path", async () => {
    const before = await snapshot();
    await production.api.applicationRules.create([rule('Hotfix at 3am')]);

    const pulled = await cli(['pull', dir, '--env', 'production', '--adopt']);
    expect(pulled.stderr).toBe('');
    expect(pulled.code).toBe(0);
    expect(pulled.stdout).toBe('Pulled 1 object (1 adopted) into 1 file.\n');
    const after = await snapshot();
    expect(after['envs/production/rules.yaml']).toMatch(
      new RegExp(
        `^${PRODUCTION.replace(/[[\]{}.^$]/g, '\\$&')}  - rq_host: shop.example.com\n    description: Hotfix at 3am\n`,
      ),
    );
    expect({ ...after, 'envs/production/rules.yaml': '' }).toEqual({
      ...before,
      'envs/production/rules.yaml': '',
    });
    expect(await planExit('production')).toBe(0);
    expect(await planExit('staging')).toBe(0);
  });

  it('a value the base reads from a var is a conflict named where the base writes it', async () => {
    // The first rule's priority only.
    const base = BASE.replace('priority: high', `priority: \${var.priority}`);
    await writeFiles(dir, { 'base/rules.yaml': base });
    expect(await planExit('production')).toBe(0);
    await production.api.applicationRules.update(await ruleId(production, 'Block admin'), {
      priority: 'low',
    });
    const before = await snapshot();

    const pulled = await cli(['pull', dir, '--env', 'production']);
    expect(pulled.stderr).toBe(
      `Error: ${join(dir, 'base/rules.yaml')}:5:15: application_rule.shop.example.com/Block admin: priority comes from a \${VAR} substitution; nothing was pulled for it.\nError: 1 object could not be pulled (see above).\n`,
    );
    expect(pulled.code).toBe(1);
    expect(await snapshot()).toEqual(before);
  });

  it('--dry-run prints the diff and the note, and writes nothing', async () => {
    const before = await snapshot();
    await production.api.applicationRules.update(await ruleId(production, 'Block admin'), {
      priority: 'low',
    });

    const pulled = await cli(['pull', dir, '--env', 'production', '--dry-run']);
    expect(pulled.code).toBe(0);
    expect(pulled.stdout).toContain(`--- a/${join(dir, 'base/rules.yaml')}`);
    expect(pulled.stdout).toContain('-    priority: high\n+    priority: low\n');
    expect(pulled.stdout).toContain('Would pull 1 object (1 updated) into 1 file.');
    expect(pulled.stderr).toContain('is shared with environment staging');
    expect(await snapshot()).toEqual(before);
    expect(await planExit('production')).toBe(2);
  });
});

describe('pull refuses', () => {
  it.each([[['--env', 'all']], [['--env', 'staging', '--env', 'production']]])(
    'several environments (%j), saying why, before any request',
    async (flags) => {
      await staging.resetStats();
      await production.resetStats();
      const pulled = await cli(['pull', dir, ...flags]);
      expect(pulled.stderr).toBe(
        'Error: pull takes one environment per run, not staging, production: environments that share a path could each write a different value into the same file; pull them one at a time (--env NAME), reviewing each. Nothing was read from the firewall.\n',
      );
      expect(pulled.code).toBe(1);
      expect((await staging.stats()).total).toBe(0);
      expect((await production.stats()).total).toBe(0);
    },
  );

  it('a root that declares environments without --env, asking for --env NAME', async () => {
    await staging.resetStats();
    const pulled = await cli(['pull', dir]);
    expect(pulled.stderr).toBe(
      `Error: ${join(dir, 'wafctl.yaml')} declares environments (staging, production): pass --env NAME to choose the one to pull; nothing was read from the firewall. \`wafctl validate\` checks every environment.\n`,
    );
    expect(pulled.code).toBe(1);
    expect((await staging.stats()).total).toBe(0);
  });
});
