import { describe, expect, it } from 'vitest';
import { ConfigError, formatProblem } from '../../src/config/problems.js';
import { readProject } from '../../src/config/project.js';
import { scopesOverlap } from '../../src/core/scope.js';
import { loadTarget } from '../../src/ops/project.js';
import { runCli } from '../helpers/cli.js';
import { writeConfig } from '../helpers/firewall.js';

const rule = (host: string) => `application_rules:
  - rq_host: ${host}
    description: Block admin
    priority: high
    conditions: [{operator: match, expressions: ["^/admin"], targets: [path]}]
    actions: [{firewall_action: block, firewall_name: waf-eu-1}]
`;
const scoped = (glob: string) =>
  `manage:\n  application_rules:\n    prune: true\n    match: {rq_host: ['${glob}']}\n`;

/** Two environments, each with its own path; `urls` says where each connects. */
function project(urls: [string, string]): string {
  return `environments:
  staging: {url: ${urls[0]}, token_env: STAGING_TOKEN, paths: [staging]}
  production: {url: ${urls[1]}, token_env: PROD_TOKEN, paths: [production]}
`;
}

async function problemsOf(dir: string, name: string, env: Record<string, string> = {}): Promise<string[]> {
  const loaded = await readProject(dir, dir);
  const environment = loaded?.environments.find((spec) => spec.name === name);
  try {
    await loadTarget(loaded, { paths: [dir], environment }, { cwd: dir, env });
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.map(formatProblem);
    throw error;
  }
}

describe('one server, one owner per object', () => {
  it('refuses two environments on one server whose scopes overlap, naming both', async () => {
    // The replay of issue 50: one URL (written two ways), the same rules, no scope.
    const dir = await writeConfig({
      'wafctl.yaml': project(['https://waf.example.com', 'https://WAF.example.com:443/']),
      'staging/rules.yaml': rule('shop.example.com'),
      'production/rules.yaml': rule('shop.example.com'),
    });
    expect((await problemsOf(dir, 'staging')).map((line) => line.replace(dir, 'DIR'))).toEqual([
      "DIR/wafctl.yaml environments.production: environments staging and production both reach https://waf.example.com and both manage its application_rules with overlapping scopes: each would plan the other's objects (creating them twice, pruning them); give them disjoint scopes (manage.application_rules.match) or servers of their own",
    ]);
    expect((await problemsOf(dir, 'production'))[0]).toContain(
      'environments production and staging both reach',
    );
  });

  it('takes disjoint scopes on one server, and overlapping ones on two servers', async () => {
    const disjoint = await writeConfig({
      'wafctl.yaml': project(['https://waf.example.com', 'https://waf.example.com']),
      'staging/rules.yaml': scoped('*.staging.example.com') + rule('shop.staging.example.com'),
      'production/rules.yaml': scoped('*.example.org') + rule('shop.example.org'),
    });
    expect(await problemsOf(disjoint, 'staging')).toEqual([]);
    const apart = await writeConfig({
      'wafctl.yaml': project(['https://waf-a.example.com', 'https://waf-b.example.com']),
      'staging/rules.yaml': rule('shop.example.com'),
      'production/rules.yaml': rule('shop.example.com'),
    });
    expect(await problemsOf(apart, 'staging')).toEqual([]);
  });

  it('compares url_env by value, or by the variable when it is unset', async () => {
    const text = `environments:
  staging: {url_env: STAGING_URL, token_env: T1, paths: [staging]}
  production: {url_env: PROD_URL, token_env: T2, paths: [production]}
`;
    const dir = await writeConfig({
      'wafctl.yaml': text,
      'staging/rules.yaml': rule('shop.example.com'),
      'production/rules.yaml': rule('shop.example.com'),
    });
    const same = { STAGING_URL: 'https://waf.example.com', PROD_URL: 'https://waf.example.com/' };
    expect(await problemsOf(dir, 'staging', same)).toHaveLength(1);
    expect(await problemsOf(dir, 'staging', { ...same, PROD_URL: 'https://other.example.com' })).toEqual([]);
    expect(await problemsOf(dir, 'staging')).toEqual([]);
  });

  it('a family only one of them claims is no conflict', async () => {
    const dir = await writeConfig({
      'wafctl.yaml': project(['https://waf.example.com', 'https://waf.example.com']),
      'staging/rules.yaml': rule('shop.example.com'),
      'production/groups.yaml': 'groups:\n  - name: soc\n',
    });
    expect(await problemsOf(dir, 'staging')).toEqual([]);
  });

  it('validate reports the conflict as a problem of both environments', async () => {
    const dir = await writeConfig({
      'wafctl.yaml': project(['https://waf.example.com', 'https://waf.example.com']),
      'staging/rules.yaml': rule('shop.example.com'),
      'production/rules.yaml': rule('shop.example.com'),
    });
    const result = await runCli(['validate', dir], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('environments staging and production both reach https://waf.example.com');
    expect(result.stderr).toContain('environments production and staging both reach https://waf.example.com');
  });
});

describe('scopesOverlap', () => {
  const scope = (match: Record<string, string[]>) => ({ prune: true, match });

  it('overlaps where every field both list has globs in common', () => {
    expect(scopesOverlap(scope({}), scope({ rq_host: ['a'] }))).toBe(true);
    expect(scopesOverlap(scope({ rq_host: ['*.a.com'] }), scope({ rq_host: ['x.*'] }))).toBe(true);
    expect(scopesOverlap(scope({ rq_host: ['*.a.com'] }), scope({ rq_host: ['*.b.com'] }))).toBe(false);
    expect(
      scopesOverlap(
        scope({ rq_host: ['*.a.com'], priority: ['high'] }),
        scope({ rq_host: ['*'], priority: ['low'] }),
      ),
    ).toBe(false);
  });

  it('a pair too long to decide counts as overlapping', () => {
    const long = `${'a*'.repeat(2_500)}`;
    expect(scopesOverlap(scope({ description: [long] }), scope({ description: [`${long}c`] }))).toBe(true);
  });
});
