/**
 * `wafctl pull --env NAME` (issues 31, 40): live changes of one environment written back into the
 * path that declared each value, or into the environment's own path when other environments read
 * that one too (unless --write-shared), and said on stdout in every format. Two emulators, a shared
 * base and one overlay per environment: production's overlay logs what the base blocks; staging's
 * adds a group.
 */
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApplicationRuleInput } from '../../src/api/index.js';
import { runCli } from '../helpers/cli.js';
import {
  E2E_TOKEN,
  type ManualClock,
  manualClock,
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
/**
 * The clock both emulators and every command share: the apply is at 2026-11-27 08:00 UTC and the
 * hand changes two minutes later (`beforeEach`), so the times the pull credits are known.
 */
let clock: ManualClock;
const MINUTE = 60_000;
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

const cli = (args: string[]) => runCli(args, { env, clock });
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

/** `plan --env NAME --format json`, as it stands: to say that a pull left an environment's plan as it was. */
async function planOf(name: string): Promise<unknown> {
  const plan = await cli(['plan', dir, '--env', name, '--format', 'json']);
  expect(plan.stderr).toBe('');
  return JSON.parse(plan.stdout);
}

/** The committed schema of `pull --format json`: real output must validate against it. */
async function validatePullReport(document: unknown): Promise<void> {
  const schema = JSON.parse(
    await readFile(new URL('../../schemas/pull-report.schema.json', import.meta.url), 'utf8'),
  );
  const validate = new Ajv2020({ allErrors: true, strict: true }).compile(schema);
  expect(validate(document), JSON.stringify(validate.errors)).toBe(true);
}

/** The hand change most tests pull: production's firewall disables the rule the base and its overlay declare. */
async function disableAdminOnProduction(): Promise<void> {
  await production.api.applicationRules.update(await ruleId(production, 'Block admin'), { enabled: false });
}

/** The overlay of production once `Block admin`'s `enabled: false` is kept in it. */
const PRODUCTION_DISABLED = PRODUCTION.replace(
  '    actions: [{firewall_action: log, firewall_name: waf-eu-1}]\n',
  '    actions: [{firewall_action: log, firewall_name: waf-eu-1}]\n    enabled: false\n',
);

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
  clock = manualClock();
  staging = await startTestFirewall({ clock });
  production = await startTestFirewall({ clock });
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
  clock.advance(2 * MINUTE);
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
    expect(pulled.stdout).toBe(
      'Pulled 1 object (1 updated) into 1 file.\nHand changes by console (2026-11-27 08:02 UTC).\n',
    );
    expect(await snapshot()).toEqual({
      ...before,
      'envs/production/rules.yaml': PRODUCTION.replace('firewall_action: log', 'firewall_action: deny'),
    });
    expect(await planExit('production')).toBe(0);
    expect(await planExit('staging')).toBe(0);
  });

  it("keeps a hand change to a field only the shared base sets in production's overlay entry; staging's plan is unchanged", async () => {
    const before = await snapshot();
    const stagingPlan = await planOf('staging');
    await disableAdminOnProduction();

    const pulled = await cli(['pull', dir, '--env', 'production']);
    expect(pulled.stderr).toBe('');
    expect(pulled.code).toBe(0);
    expect(pulled.stdout).toBe(
      `Pulled 1 object (1 updated) into 1 file.
Hand changes by admin (2026-11-27 08:02 UTC).
Kept in ${join(dir, 'envs/production/rules.yaml')} (environment production's own path): application_rule.shop.example.com/Block admin enabled; ${join(dir, 'base/rules.yaml')} is shared with staging (--write-shared writes there).
`,
    );
    // The base is untouched: the field goes after the overlay entry's last one.
    expect(await snapshot()).toEqual({ ...before, 'envs/production/rules.yaml': PRODUCTION_DISABLED });
    expect(await planExit('production')).toBe(0);
    expect(await planOf('staging')).toEqual(stagingPlan);
    expect(await planExit('staging')).toBe(0);
  });

  it('appends a new overlay entry (key and changed fields) for an object only the shared base declares', async () => {
    const before = await snapshot();
    const stagingPlan = await planOf('staging');
    await production.api.applicationRules.update(await ruleId(production, 'Block login'), {
      priority: 'low',
    });

    const pulled = await cli(['pull', dir, '--env', 'production']);
    expect(pulled.stderr).toBe('');
    expect(pulled.code).toBe(0);
    expect(pulled.stdout).toContain(
      `Kept in ${join(dir, 'envs/production/rules.yaml')} (environment production's own path): application_rule.shop.example.com/Block login priority;`,
    );
    expect(await snapshot()).toEqual({
      ...before,
      'envs/production/rules.yaml': `${PRODUCTION}  - rq_host: shop.example.com
    description: Block login
    priority: low
`,
    });
    expect(await planExit('production')).toBe(0);
    expect(await planOf('staging')).toEqual(stagingPlan);
  });

  it('--write-shared writes a field only the base sets into the base, and the summary warns on stdout', async () => {
    const before = await snapshot();
    await disableAdminOnProduction();

    const pulled = await cli(['pull', dir, '--env', 'production', '--write-shared']);
    expect(pulled.stderr).toBe('');
    expect(pulled.code).toBe(0);
    expect(pulled.stdout).toBe(
      `Pulled 1 object (1 updated) into 1 file.
Hand changes by admin (2026-11-27 08:02 UTC).
Warning: ${join(dir, 'base/rules.yaml')} is read by environment staging too: this change applies to it.
`,
    );
    expect(await snapshot()).toEqual({
      ...before,
      // The first rule's only: comments and the other rule kept.
      'base/rules.yaml': BASE.replace('enabled: true', 'enabled: false'),
    });
    expect(await planExit('production')).toBe(0);
    // Staging reads the base too: its firewall still has the rule enabled.
    expect(await planExit('staging')).toBe(2);
  });

  it('a kept change and an adopted object share one new file of the own path (one list, in that order)', async () => {
    const before = await snapshot();
    await staging.api.applicationRules.update(await ruleId(staging, 'Block login'), { priority: 'low' });
    await staging.api.applicationRules.create([rule('Hotfix at 3am')]);

    const pulled = await cli(['pull', dir, '--env', 'staging', '--adopt']);
    expect(pulled.stderr).toBe('');
    expect(pulled.code).toBe(0);
    expect(pulled.stdout).toMatch(
      // The update by the admin token, the create by the creator it named.
      /^Pulled 2 objects \(1 updated, 1 adopted\) into 1 file\.\nHand changes by admin \(2026-11-27 08:02 UTC\), console \(2026-11-27 08:02 UTC\)\.\nKept in /,
    );
    const file = 'envs/staging/application-rules.yaml';
    const after = await snapshot();
    expect(after[file]).toMatch(
      /\napplication_rules:\n {2}- rq_host: shop\.example\.com\n {4}description: Block login\n {4}priority: low\n {2}- rq_host: shop\.example\.com\n {4}description: Hotfix at 3am\n/,
    );
    expect({ ...after, [file]: undefined }).toEqual({ ...before, [file]: undefined });
    expect(await planExit('staging')).toBe(0);
    expect(await planExit('production')).toBe(0);
  });

  it('a singleton section only the shared base sets is kept in a new file of the own path', async () => {
    const settings = 'network_rule_settings:\n  expire_strategy: delete\n';
    await writeFiles(dir, { 'base/settings.yaml': settings });
    for (const name of ['staging', 'production']) {
      const applied = await cli(['apply', dir, '--env', name, '--auto-approve']);
      expect(applied.code, applied.stderr).toBe(0);
    }
    const before = await snapshot();
    await production.api.networkRuleSettings.update({ expire_strategy: 'disable' });

    const pulled = await cli(['pull', dir, '--env', 'production']);
    expect(pulled.stderr).toBe('');
    expect(pulled.code).toBe(0);
    const file = 'envs/production/network-rule-settings.yaml';
    const after = await snapshot();
    expect(after[file]).toMatch(
      /^# yaml-language-server: \$schema=\S+\nnetwork_rule_settings:\n {2}expire_strategy: disable\n$/,
    );
    expect({ ...after, [file]: undefined }).toEqual({ ...before, [file]: undefined });
    expect(pulled.stdout).toContain(
      `Kept in ${join(dir, file)} (environment production's own path): network_rule_settings.network_rule_settings expire_strategy;`,
    );
    expect(await planExit('production')).toBe(0);
    expect(await planExit('staging')).toBe(0);
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
    expect(pulled.stdout).toBe(
      'Pulled 1 object (1 adopted) into 1 file.\nHand changes by console (2026-11-27 08:02 UTC).\n',
    );
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

  it('--write-shared: a value the base reads from a var is a conflict named where the base writes it', async () => {
    // The first rule's priority only.
    const base = BASE.replace('priority: high', `priority: \${var.priority}`);
    await writeFiles(dir, { 'base/rules.yaml': base });
    expect(await planExit('production')).toBe(0);
    await production.api.applicationRules.update(await ruleId(production, 'Block admin'), {
      priority: 'low',
    });
    const before = await snapshot();

    const pulled = await cli(['pull', dir, '--env', 'production', '--write-shared']);
    expect(pulled.stderr).toBe(
      `Error: ${join(dir, 'base/rules.yaml')}:5:15: application_rule.shop.example.com/Block admin: priority comes from a \${VAR} substitution; nothing was pulled for it.\nError: 1 object could not be pulled (see above).\n`,
    );
    expect(pulled.code).toBe(1);
    expect(await snapshot()).toEqual(before);
  });

  it('without --write-shared, a value the base reads from a var is no conflict: the overlay sets it', async () => {
    const base = BASE.replace('priority: high', `priority: \${var.priority}`);
    await writeFiles(dir, { 'base/rules.yaml': base });
    await production.api.applicationRules.update(await ruleId(production, 'Block admin'), {
      priority: 'low',
    });
    const before = await snapshot();

    const pulled = await cli(['pull', dir, '--env', 'production']);
    expect(pulled.stderr).toBe('');
    expect(pulled.code).toBe(0);
    expect(await snapshot()).toEqual({
      ...before,
      'envs/production/rules.yaml': PRODUCTION.replace('waf-eu-1}]\n', 'waf-eu-1}]\n    priority: low\n'),
    });
    expect(await planExit('production')).toBe(0);
  });

  it('--dry-run prints the diff and the summary, and writes nothing', async () => {
    const before = await snapshot();
    await production.api.applicationRules.update(await ruleId(production, 'Block admin'), {
      priority: 'low',
    });

    const pulled = await cli(['pull', dir, '--env', 'production', '--dry-run']);
    expect(pulled.stderr).toBe('');
    expect(pulled.code).toBe(0);
    expect(pulled.stdout).toContain(`--- a/${join(dir, 'envs/production/rules.yaml')}`);
    expect(pulled.stdout).toContain(
      '     actions: [{firewall_action: log, firewall_name: waf-eu-1}]\n+    priority: low\n',
    );
    expect(pulled.stdout).toContain(
      `Would pull 1 object (1 updated) into 1 file.
Hand changes by admin (2026-11-27 08:02 UTC).
Would keep in ${join(dir, 'envs/production/rules.yaml')} (environment production's own path): application_rule.shop.example.com/Block admin priority; ${join(dir, 'base/rules.yaml')} is shared with staging (--write-shared writes there).
`,
    );
    expect(await snapshot()).toEqual(before);
    expect(await planExit('production')).toBe(2);
  });
});

describe('pull --env NAME --format', () => {
  it('json: one document, valid against schemas/pull-report.schema.json, with the counts', async () => {
    // A minute apart (08:02, 08:03, 08:04): the credits are newest first.
    await disableAdminOnProduction();
    clock.advance(MINUTE);
    await production.api.applicationRules.update(await ruleId(production, 'Block login'), {
      priority: 'low',
    });
    clock.advance(MINUTE);
    await production.api.applicationRules.create([rule('Hotfix at 3am')]);

    const pulled = await cli(['pull', dir, '--env', 'production', '--adopt', '--format', 'json']);
    expect(pulled.stderr).toBe('');
    expect(pulled.code).toBe(0);
    const document = JSON.parse(pulled.stdout) as unknown;
    await validatePullReport(document);
    const own = join(dir, 'envs/production/rules.yaml');
    const shared = join(dir, 'base/rules.yaml');
    expect(document).toEqual({
      format_version: 1,
      environment: 'production',
      dry_run: false,
      objects: { updated: 2, removed: 0, adopted: 1 },
      files: [{ file: own, created: false, shared_with: [] }],
      kept_in_own_path: [
        {
          address: 'application_rule.shop.example.com/Block admin',
          fields: ['enabled'],
          file: own,
          instead_of: shared,
        },
        {
          address: 'application_rule.shop.example.com/Block login',
          fields: ['priority'],
          file: own,
          instead_of: shared,
        },
      ],
      conflicts: [],
      not_adopted: [],
      // The created rule's creator as its body named it (`console`); an update's, the token's user.
      credits: [
        {
          address: 'application_rule.shop.example.com/Hotfix at 3am',
          changed_by: 'console',
          changed_at: '2026-11-27T08:04:00.000Z',
        },
        {
          address: 'application_rule.shop.example.com/Block login',
          changed_by: 'admin',
          changed_at: '2026-11-27T08:03:00.000Z',
        },
        {
          address: 'application_rule.shop.example.com/Block admin',
          changed_by: 'admin',
          changed_at: '2026-11-27T08:02:00.000Z',
        },
      ],
    });
    expect(await planExit('production')).toBe(0);
    expect(await planExit('staging')).toBe(0);
  });

  it('json with --write-shared --dry-run: the shared file, who else reads it, and no diff', async () => {
    const before = await snapshot();
    await disableAdminOnProduction();

    const pulled = await cli([
      'pull',
      dir,
      '--env',
      'production',
      '--write-shared',
      '--dry-run',
      '--format',
      'json',
    ]);
    expect(pulled.stderr).toBe('');
    expect(pulled.code).toBe(0);
    const document = JSON.parse(pulled.stdout) as Record<string, unknown>;
    await validatePullReport(document);
    expect(document).toMatchObject({
      dry_run: true,
      objects: { updated: 1, removed: 0, adopted: 0 },
      files: [{ file: join(dir, 'base/rules.yaml'), created: false, shared_with: ['staging'] }],
      kept_in_own_path: [],
    });
    expect(await snapshot()).toEqual(before);
  });

  it('markdown: a pull-request body with the shared-file warning (--write-shared), or the change kept in the own path', async () => {
    await disableAdminOnProduction();
    const shared = join(dir, 'base/rules.yaml');
    const own = join(dir, 'envs/production/rules.yaml');

    const preview = await cli([
      'pull',
      dir,
      '--env',
      'production',
      '--write-shared',
      '--dry-run',
      '--format',
      'markdown',
    ]);
    expect(preview.stderr).toBe('');
    expect(preview.code).toBe(0);
    expect(preview.stdout).toBe(`### wafctl pull --dry-run (production): 1 object into 1 file

Would pull 1 object (1 updated) into 1 file.

Hand changes by admin (2026-11-27 08:02 UTC).

> **Warning:** \`${shared}\` is read by environment staging too: this change applies to it.

**Hand changes** (who last changed each object, as the firewall records it):

- \`application_rule.shop.example.com/Block admin\`: admin, 2026-11-27 08:02 UTC

**Files:**

- \`${shared}\` (read by staging too)
`);

    const pulled = await cli(['pull', dir, '--env', 'production', '--format', 'markdown']);
    expect(pulled.stderr).toBe('');
    expect(pulled.code).toBe(0);
    expect(pulled.stdout).toBe(`### wafctl pull (production): 1 object into 1 file

Pulled 1 object (1 updated) into 1 file.

Hand changes by admin (2026-11-27 08:02 UTC).

- Kept in \`${own}\` (environment production's own path): \`application_rule.shop.example.com/Block admin\` enabled; \`${shared}\` is shared with staging (\`--write-shared\` writes there).

**Hand changes** (who last changed each object, as the firewall records it):

- \`application_rule.shop.example.com/Block admin\`: admin, 2026-11-27 08:02 UTC

**Files:**

- \`${own}\`
`);
    expect(await read('envs/production/rules.yaml')).toBe(PRODUCTION_DISABLED);
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
