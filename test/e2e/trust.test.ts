/**
 * The pull request is untrusted (issue 39): what it writes cannot move a credential, read a secret
 * or weaken the gate. Each finding of the probe, against real emulators: secrets through
 * `variables:`, another environment's token, a moved connection, redefined policy, an edited saved
 * plan; and `--trusted-ref`, which reads connections, the allow-list and the policy from git.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { E2E_TOKEN, startTestFirewall, type TestFirewall, writeConfig } from '../helpers/firewall.js';
import { rulesYaml } from '../helpers/fixtures.js';
import { GIT_ENV, git, pullRequestRepo } from '../helpers/git.js';

/** Production's token: never printed, written, or sent anywhere but production. */
const PROD_TOKEN = 'prod-token-9d27c41be0';

let staging: TestFirewall;
let production: TestFirewall;

beforeEach(async () => {
  staging = await startTestFirewall();
  production = await startTestFirewall({ adminToken: PROD_TOKEN });
});

afterEach(async () => {
  await staging.close();
  await production.close();
});

/** The variables wafctl.yaml names, as a CI job holding both environments' secrets has them. */
const env = () => ({ ...GIT_ENV, STAGING_WAF_AUTH: E2E_TOKEN, PROD_WAF_AUTH: PROD_TOKEN });

function project(productionUrl = production.url, stagingToken = 'STAGING_WAF_AUTH'): string {
  return `environments:
  staging:
    url: ${staging.url}
    token_env: ${stagingToken}
    paths: [base]
  production:
    url: ${productionUrl}
    token_env: PROD_WAF_AUTH
    paths: [base]
`;
}

const group = (description: string) =>
  `groups:\n  - name: soc\n    description: ${JSON.stringify(description)}\n`;

/** Everything a run printed. */
const printed = (result: { stdout: string; stderr: string }) => `${result.stdout}\n${result.stderr}`;

/** A listener that records every request (the host a pull request moves a connection to). */
async function listener(): Promise<{
  url: string;
  requests: { url: string; headers: IncomingHttpHeaders }[];
}> {
  const requests: { url: string; headers: IncomingHttpHeaders }[] = [];
  const server = createServer((request, response) => {
    requests.push({ url: request.url ?? '', headers: request.headers });
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

describe('secrets: variables: never reaches a credential, and every environment token is a secret', () => {
  it("refuses declaring another environment's token variable, and never reads it", async () => {
    const dir = await writeConfig({
      'wafctl.yaml': project(),
      'base/groups.yaml': `variables: [PROD_WAF_AUTH]\n${group(`\${PROD_WAF_AUTH}`)}`,
    });
    const result = await runCli(['plan', dir, '--env', 'staging', '--format', 'markdown'], { env: env() });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'base/groups.yaml:1:13 variables[0]: PROD_WAF_AUTH cannot be declared: it is a credential variable (token_env of environment production in',
    );
    expect(result.stderr).toContain(
      'groups[0].description: variable PROD_WAF_AUTH is not allowed: it is a credential variable',
    );
    expect(printed(result)).not.toContain(PROD_TOKEN);
    expect((await staging.stats()).total).toBe(0);
  });

  it('without a trusted ref, refuses every name variables: declares, and reads none (issue 50)', async () => {
    // Names no list of credential words catches: each is refused, none is read, nothing is sent.
    const names = ['PGPASSWORD', 'MYSQL_PWD', 'DEPLOY_SECRETS', 'GITHUB_ACCESSTOKEN', 'SENTRY_DSN'];
    const values = names.map((name, index) => `ci-value-${index}-${name.length}31f`);
    const description = names.map((name) => `\${${name}}`).join(' ');
    const dir = await writeConfig({
      'groups.yaml': `variables: [${names.join(', ')}]\n${group(description)}`,
    });
    const result = await runCli(['plan', dir, '--format', 'markdown'], {
      env: { ...staging.env, ...Object.fromEntries(names.map((name, index) => [name, values[index]])) },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'groups.yaml:1:13 variables[0]: PGPASSWORD cannot be declared here: without a trusted ref, variables: would let a pull request read any variable of the job; export the value as WAFCTL_VAR_PGPASSWORD',
    );
    for (const value of values) expect(printed(result)).not.toContain(value);
    expect((await staging.stats()).total).toBe(0);
  });

  it("redacts production's token in a staging plan, and refuses to save or send it", async () => {
    const dir = await writeConfig({
      'wafctl.yaml': project(),
      'base/groups.yaml': group(`pasted ${PROD_TOKEN}`),
    });
    const plan = await runCli(['plan', dir, '--env', 'staging', '--format', 'markdown'], { env: env() });
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('pasted [REDACTED]');
    const out = join(dir, 'plan.json');
    const saved = await runCli(['plan', dir, '--env', 'staging', '--out', out], { env: env() });
    expect(saved.code).toBe(1);
    expect(saved.stderr).toContain(`refusing to write ${out}`);
    const applied = await runCli(['apply', dir, '--env', 'staging', '--auto-approve'], { env: env() });
    expect(applied.code).toBe(1);
    expect(applied.stderr).toContain('refusing to send the API token (or another secret wafctl holds)');
    for (const result of [plan, saved, applied]) expect(printed(result)).not.toContain(PROD_TOKEN);
    expect(await staging.api.groups.list()).toEqual([expect.objectContaining({ name: 'admins' })]);
  });
});

describe('--trusted-ref: connections come from the base branch, not the pull request', () => {
  it('a moved URL is not used: no request reaches it, the plan says so, changes_trust fails', async () => {
    const moved = await listener();
    const dir = await pullRequestRepo(
      { 'wafctl.yaml': project(), 'base/groups.yaml': group('Analysts') },
      { 'wafctl.yaml': project(moved.url) },
    );
    const plan = await runCli(['plan', dir, '--env', 'production', '--trusted-ref', 'main'], { env: env() });
    expect(plan.stderr).toBe('');
    expect(plan.code).toBe(0);
    expect(moved.requests).toEqual([]);
    expect((await production.stats()).total).toBeGreaterThan(0);
    const commit = (await git(dir, 'rev-parse', 'main')).trim();
    expect(plan.stdout).toContain(
      `Trust: connections, variables and policy read from the trusted ref main (${commit.slice(0, 12)}); the work tree changes one of them, not used for this plan:\n  ! changes_trust  environment production: url: "${production.url}" -> "${moved.url}"\n`,
    );
    expect(plan.stdout).toContain('# group.soc will be created');

    const gated = await runCli(
      ['plan', dir, '--env', 'production', '--trusted-ref', 'main', '--fail-on', 'changes_trust'],
      { env: env() },
    );
    expect(gated.code).toBe(3);
    expect(gated.stderr).toContain(
      'Error: --fail-on changes_trust: the work tree changes what the trusted ref pins (environment production), which this plan did not use; see the Trust section above.',
    );
    const json = await runCli(['plan', dir, '--env', 'production', '--format', 'json'], {
      env: { ...env(), WAFCTL_TRUSTED_REF: 'main' },
    });
    expect(JSON.parse(json.stdout).trust).toEqual({
      ref: 'main',
      commit,
      changes: [{ subject: 'environment production', change: `url: "${production.url}" -> "${moved.url}"` }],
    });
    // Every command that connects through an environment: drift (which says so too), get, export.
    const drift = await runCli(['drift', dir, '--env', 'production', '--trusted-ref', 'main'], {
      env: env(),
    });
    expect(drift.code).toBe(2);
    expect(drift.stdout).toContain('Trust: connections, variables and policy read from the trusted ref main');
    for (const args of [['get', 'groups'], ['export']]) {
      const read = await runCli([...args, '--env', 'production', '--trusted-ref', 'main'], {
        env: env(),
        cwd: dir,
      });
      expect(read.stderr).toBe('');
      expect(read.code).toBe(0);
    }
    expect(moved.requests).toEqual([]);
  });

  it("a token_env pointed at production's variable is not used: staging connects with its own", async () => {
    const dir = await pullRequestRepo(
      { 'wafctl.yaml': project(), 'base/groups.yaml': group('Analysts') },
      { 'wafctl.yaml': project(production.url, 'PROD_WAF_AUTH') },
    );
    // The staging emulator accepts only the staging token: with production's, it would answer 401.
    const plan = await runCli(['plan', dir, '--env', 'staging', '--trusted-ref', 'main'], { env: env() });
    expect(plan.stderr).toBe('');
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain(
      '! changes_trust  environment staging: token_env: "STAGING_WAF_AUTH" -> "PROD_WAF_AUTH"',
    );
    expect((await production.stats()).total).toBe(0);
  });

  it('an environment the base branch does not declare has no connection: refused before any request', async () => {
    const moved = await listener();
    const added = `${project()}  canary:\n    url: ${moved.url}\n    token_env: PROD_WAF_AUTH\n    paths: [base]\n`;
    const dir = await pullRequestRepo(
      { 'wafctl.yaml': project(), 'base/groups.yaml': group('Analysts') },
      { 'wafctl.yaml': added },
    );
    const plan = await runCli(['plan', dir, '--env', 'canary', '--trusted-ref', 'main'], { env: env() });
    expect(plan.code).toBe(1);
    expect(plan.stderr).toBe(
      'Error: environment canary is not declared in wafctl.yaml at the trusted ref main: a pull request cannot add a connection; merge the environment first (its URL and credentials come from the trusted ref)\n',
    );
    expect(moved.requests).toEqual([]);
  });

  it('a ref that names no commit, and changes_trust without a trusted ref, are refused before any request', async () => {
    const dir = await pullRequestRepo({ 'groups.yaml': group('Analysts') }, {});
    const unknown = await runCli(['plan', dir, '--trusted-ref', 'origin/nope'], {
      env: { ...GIT_ENV, ...staging.env },
    });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe(
      'Error: --trusted-ref origin/nope names no commit in this repository: fetch it first (e.g. git fetch origin nope)\n',
    );
    const gate = await runCli(['plan', dir, '--fail-on', 'changes_trust'], { env: staging.env });
    expect(gate.code).toBe(1);
    expect(gate.stderr).toContain(
      'Error: --fail-on changes_trust needs a trusted ref (--trusted-ref REF, or WAFCTL_TRUSTED_REF)',
    );
    const notGit = await writeConfig({ 'groups.yaml': group('Analysts') });
    const outside = await runCli(['validate', notGit, '--trusted-ref', 'main'], { env: GIT_ENV });
    expect(outside.code).toBe(1);
    expect(outside.stderr).toContain('--trusted-ref reads the configuration from git, and');
    expect((await staging.stats()).total).toBe(0);
  });
});

describe('--trusted-ref: the policy and the allow-list come from the base branch', () => {
  const blocking = rulesYaml([{}]);
  const allowing = rulesYaml([{ action: 'allow' }]);
  /** A pull request that lets the rule allow traffic, and calls `allow` a blocking action so it looks harmless. */
  const disguised = `${allowing}settings:\n  firewall_actions:\n    blocking: [block, allow]\n    allowing: []\n`;

  it('a redefined firewall action does not hide a rule that now allows traffic', async () => {
    const dir = await pullRequestRepo({ 'rules.yaml': blocking }, { 'rules.yaml': disguised });
    const cli = (args: string[]) => runCli(args, { env: { ...GIT_ENV, ...staging.env } });
    await git(dir, 'stash', '--quiet');
    expect((await cli(['apply', dir, '--auto-approve'])).code).toBe(0);
    await git(dir, 'stash', 'pop', '--quiet');

    // The work tree's own policy is fooled: the very hole a pull request could use.
    expect((await cli(['plan', dir, '--fail-on', 'weakens_protection'])).code).toBe(0);
    const pinned = await cli(['plan', dir, '--trusted-ref', 'main', '--fail-on', 'weakens_protection']);
    expect(pinned.code).toBe(3);
    expect(pinned.stdout).toContain(
      '! changes_trust  settings.firewall_actions: allowing: ["allow","bypass","whitelist"] -> []',
    );
    expect(pinned.stdout).toContain(
      '! changes_trust  settings.firewall_actions: blocking: ["block","captcha","deny","drop","reject"] -> ["allow","block"]',
    );
    expect(pinned.stdout).toMatch(
      /! weakens_protection +application_rule\.shop\.example\.com\/Block admin: /,
    );
    expect(pinned.stderr).toMatch(/^Error: --fail-on weakens_protection: 1 change weakens protection/);
  });

  it('a widened manage scope and a loosened safety threshold are not used', async () => {
    const names = ['a', 'b', 'c'];
    const groups = (list: string[]) => `groups:\n${list.map((name) => `  - name: ${name}\n`).join('')}`;
    const base = { 'groups.yaml': groups(names), 'settings.yaml': 'manage:\n  groups: {prune: false}\n' };
    const dir = await pullRequestRepo(base, {
      'groups.yaml': groups(['a']),
      'settings.yaml':
        'manage:\n  groups: {prune: true}\nsettings:\n  safety: {max_delete_percent: 100, min_existing: 1}\n',
    });
    const cli = (args: string[]) => runCli(args, { env: { ...GIT_ENV, ...staging.env } });
    await git(dir, 'stash', '--quiet');
    expect((await cli(['apply', dir, '--auto-approve'])).code).toBe(0);
    await git(dir, 'stash', 'pop', '--quiet');

    const plan = await cli(['plan', dir, '--trusted-ref', 'main', '--format', 'json']);
    expect(plan.code).toBe(0);
    const doc = JSON.parse(plan.stdout);
    expect(doc.changes).toEqual([]);
    expect(doc.summary.unmanaged).toBe(2);
    expect(doc.trust.changes).toEqual([
      { subject: 'settings.safety', change: 'max_delete_percent: 30 -> 100' },
      { subject: 'settings.safety', change: 'min_existing: 10 -> 1' },
      { subject: 'manage.groups', change: 'prune: false -> true' },
    ]);
  });

  it('a variable the base branch does not declare is not read, in validate and plan', async () => {
    const notification = `notifications:
  - name: splunk
    settings: {destination_address: "\${SIEM}", destination_port: 514, format: cef, protocol: udp}
`;
    const dir = await pullRequestRepo(
      { 'groups.yaml': group('Analysts') },
      { 'notifications.yaml': `variables: [SIEM]\n${notification}` },
    );
    const cliEnv = { ...GIT_ENV, ...staging.env, SIEM: '10.1.2.3' };
    for (const command of ['validate', 'plan']) {
      const result = await runCli([command, dir, '--trusted-ref', 'main'], { env: cliEnv });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('variable SIEM is not allowed');
      expect(printed(result)).not.toContain('10.1.2.3');
    }
    // Merged, the declaration is trusted.
    await git(dir, 'add', '--all');
    await git(dir, 'commit', '--quiet', '--message', 'declare SIEM');
    const merged = await runCli(['validate', dir, '--trusted-ref', 'pr'], { env: cliEnv });
    expect(merged.stderr).toBe('');
    expect(merged.code).toBe(0);
  });
});

describe("--trusted-ref: the work tree's policy is data, never evaluated (issue 50)", () => {
  it('a manage glob of the pull request is reported as changed, not matched against the objects', async () => {
    // Against a backtracking matcher this scope took a minute; under a trusted ref it is not matched
    // at all (the trusted scope is the one in force), only listed in the Trust section.
    const hostile = `manage:\n  application_rules:\n    match:\n      description: ['${'*a'.repeat(22)}b']\n`;
    const rule = `application_rules:
  - rq_host: shop.example.com
    description: ${'a'.repeat(40)}c
    priority: high
    conditions: [{operator: match, expressions: ["^/admin"], targets: [path]}]
    actions: [{firewall_action: block, firewall_name: waf-eu-1}]
`;
    const dir = await pullRequestRepo(
      { 'groups.yaml': group('Analysts') },
      { 'manage.yaml': hostile, 'rules.yaml': rule },
    );
    const result = await runCli(['plan', dir, '--trusted-ref', 'main', '--format', 'json'], {
      env: { ...GIT_ENV, ...staging.env },
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).trust.changes).toEqual([
      expect.objectContaining({ subject: 'manage.application_rules' }),
    ]);
  });

  it("warns once when the trusted ref's variables: names something like a credential", async () => {
    const notification = `notifications:
  - name: splunk
    settings: {destination_address: "\${SIEM_TOKEN}", destination_port: 514, format: cef, protocol: udp}
`;
    const dir = await pullRequestRepo({ 'n.yaml': `variables: [SIEM_TOKEN]\n${notification}` }, {});
    const result = await runCli(['validate', dir, '--trusted-ref', 'main'], {
      env: { ...GIT_ENV, ...staging.env, SIEM_TOKEN: '10.1.2.3' },
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: wafctl's words, not a template
      "Warning: the trusted ref's variables: declares SIEM_TOKEN (TOKEN), named like credentials: ${NAME} prints their values in plans and may send them to the firewall; export only what the configuration needs as WAFCTL_VAR_*.\n",
    );
  });
});

describe('a saved plan is judged by the policy in force, never the one it records', () => {
  it('an edited firewall_actions in the file does not let an allowing rule through --fail-on', async () => {
    const dir = await writeConfig({ 'rules.yaml': rulesYaml([{}]) });
    const cli = (args: string[]) => runCli(args, { env: staging.env });
    expect((await cli(['apply', dir, '--auto-approve'])).code).toBe(0);
    await writeFile(join(dir, 'rules.yaml'), rulesYaml([{ action: 'allow' }]));
    const out = join(dir, 'plan.json');
    expect((await cli(['plan', dir, '--out', out])).code).toBe(0);
    const saved = JSON.parse(await readFile(out, 'utf8'));
    saved.settings.firewall_actions = { blocking: ['block', 'allow'], observing: [], allowing: [] };
    await writeFile(out, JSON.stringify(saved));

    const applied = await cli(['apply', '--plan', out, dir, '--fail-on', 'weakens_protection']);
    expect(applied.code).toBe(3);
    expect(applied.stderr).toContain(
      `Note: ${out} records other settings.firewall_actions than those in force: it is judged by those of the configuration, not by what the file says.`,
    );
    expect(applied.stderr).toMatch(/Error: --fail-on weakens_protection: 1 change weakens protection/);
    expect(
      (await staging.api.applicationRules.list()).map((rule) => rule.actions[0]?.firewall_action),
    ).toEqual(['block']);
  });

  it('without a configuration to read the policy from, nothing is applied and the note says what to give', async () => {
    const dir = await writeConfig({ 'groups.yaml': group('Analysts') });
    const out = join(dir, 'plan.json');
    expect((await runCli(['plan', dir, '--out', out], { env: staging.env })).code).toBe(0);
    const elsewhere = await writeConfig({});
    const applied = await runCli(['apply', '--plan', out], { env: staging.env, cwd: elsewhere });
    expect(applied.code).toBe(1);
    expect(applied.stderr).toBe(
      `Note: apply --plan judges the saved plan by the policy of the configuration (settings.firewall_actions, settings.safety, manage, tests), read from .: give the configuration's PATH (apply --plan ${out} config/), or --trusted-ref.\nError: .: no *.yaml or *.yml files in this directory\n1 problem in 1 file.\n`,
    );
    expect((await runCli(['apply', '--plan', out, dir], { env: staging.env, cwd: elsewhere })).code).toBe(0);
  });

  it("with a trusted ref, the pull request's own policy does not judge the plan it saved", async () => {
    const dir = await pullRequestRepo(
      { 'rules.yaml': rulesYaml([{}]) },
      {
        'rules.yaml': rulesYaml([{ action: 'allow' }]),
        'settings.yaml': 'settings:\n  firewall_actions: {blocking: [block, allow], allowing: []}\n',
      },
    );
    const cli = (args: string[]) => runCli(args, { env: { ...GIT_ENV, ...staging.env } });
    await git(dir, 'stash', '--quiet', '--include-untracked');
    expect((await cli(['apply', dir, '--auto-approve'])).code).toBe(0);
    await git(dir, 'stash', 'pop', '--quiet');
    const out = join(dir, 'plan.json');
    expect((await cli(['plan', dir, '--out', out])).code).toBe(0);
    const applied = await cli([
      'apply',
      '--plan',
      out,
      dir,
      '--trusted-ref',
      'main',
      '--fail-on',
      'weakens_protection,changes_trust',
    ]);
    expect(applied.code).toBe(3);
    expect(applied.stdout).toContain('! changes_trust  settings.firewall_actions: ');
    expect(applied.stderr).toMatch(
      /Error: --fail-on weakens_protection,changes_trust: 1 change weakens protection/,
    );
  });
});
