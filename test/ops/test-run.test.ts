/**
 * `test`'s operation (src/ops/test/): the rules it runs the cases against (the configuration's, the
 * live firewall's), the report (every case, counted, through its schema), the refusal of a
 * configuration without a case, and no registered secret in the report.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { validateSources } from '../../src/config/validate-sources.js';
import { forgetSecrets, registerSecret } from '../../src/core/secrets.js';
import { testReportDocumentSchema } from '../../src/core/test-document.js';
import { configuredRules, liveRules } from '../../src/ops/test/rules.js';
import { casesOf, runTests, sourceFiles } from '../../src/ops/test/run.js';
import { startTestFirewall } from '../helpers/firewall.js';
import { rulesYaml } from '../helpers/fixtures.js';

function config(text: string) {
  const result = validateSources([{ file: 'waf.yaml', text }], { env: {} });
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.config;
}

const RULES = rulesYaml([
  { description: 'Block admin', expression: '^/admin' },
  { description: 'Log api', priority: 'low', expression: '^/api', action: 'log' },
  { description: 'Off', expression: '^/', enabled: false },
]);

const TESTS = `
settings: {extra_operators: [regex_ci]}
tests:
  - name: admin blocked
    request: {host: shop.example.com, path: /admin/login}
    expect: {action: block, rule: shop.example.com/Block admin}
  - name: api allowed
    request: {host: shop.example.com, path: /api/orders}
    expect: {action: allow}
  - name: legacy host
    request: {host: legacy.example.com, path: /x}
    expect: {action: block}
`;

/** A rule whose operator wafctl knows only by name (`settings.extra_operators`): its cases are errors. */
const OPAQUE = `  - rq_host: legacy.example.com
    description: Opaque
    priority: high
    conditions: [{operator: regex_ci, expressions: [x], targets: [path]}]
    actions: [{firewall_action: block, firewall_name: waf-eu-1}]
`;

afterEach(() => forgetSecrets());

describe('configuredRules', () => {
  it('keys each rule RQ_HOST/DESCRIPTION and keeps only the fields that decide, disabled ones too', () => {
    const rules = configuredRules(config(RULES).state);
    expect(rules.map((rule) => [rule.key, rule.enabled])).toEqual([
      ['shop.example.com/Block admin', true],
      ['shop.example.com/Log api', true],
      ['shop.example.com/Off', false],
    ]);
    expect(Object.keys(rules[0] ?? {}).sort()).toEqual([
      'actions',
      'conditions',
      'enabled',
      'key',
      'priority',
      'rq_host',
    ]);
  });
});

describe('runTests', () => {
  it('runs every case in order: pass, fail (with the closest rule) and error, counted', () => {
    const text = `${RULES}${OPAQUE}${TESTS}`;
    const loaded = config(text);
    const report = runTests(
      loaded,
      configuredRules(loaded.state),
      { source: 'configuration', environment: undefined },
      'waf.yaml',
    );
    expect(testReportDocumentSchema.parse(report)).toEqual(report);
    expect(report).toMatchObject({
      format_version: 1,
      source: 'configuration',
      environment: null,
      rules: 4,
      passed: false,
      summary: { total: 3, passed: 1, failed: 1, errors: 1 },
    });
    // Each case where its item starts: its line in the text, the column of `name` after `- `.
    const lineOf = (name: string) => text.split('\n').indexOf(`  - name: ${name}`) + 1;
    expect(report.cases.map((c) => [c.name, c.status, c.file, c.line, c.col])).toEqual([
      ['admin blocked', 'pass', 'waf.yaml', lineOf('admin blocked'), 5],
      ['api allowed', 'fail', 'waf.yaml', lineOf('api allowed'), 5],
      ['legacy host', 'error', 'waf.yaml', lineOf('legacy host'), 5],
    ]);
    const [, failed, errored] = report.cases;
    expect(failed?.actual).toEqual({ action: 'log', rule: 'shop.example.com/Log api', firewall: 'waf-eu-1' });
    expect(failed?.reason).toMatch(/^expected allow, got log/);
    expect(errored?.actual).toBeUndefined();
    expect(errored?.reason).toContain('legacy.example.com/Opaque');
  });

  it('a case expecting the rule of a disabled one fails: a disabled rule decides nothing', () => {
    const loaded = config(
      `${RULES}tests:\n  - name: off\n    request: {host: shop.example.com, path: /x}\n    expect: {action: block, rule: shop.example.com/Off}\n`,
    );
    const report = runTests(
      loaded,
      configuredRules(loaded.state),
      { source: 'configuration', environment: 'staging' },
      '.',
    );
    expect(report).toMatchObject({ environment: 'staging', passed: false, summary: { failed: 1 } });
    expect(report.cases[0]?.actual).toEqual({ action: 'none' });
  });

  it('refuses a configuration without a case, naming what was read, before running anything', () => {
    const loaded = config(RULES);
    const where = sourceFiles(['config/', 'more.yaml'], undefined);
    expect(where).toBe('config/ and more.yaml');
    expect(() => casesOf(loaded, where)).toThrow(
      expect.objectContaining({
        code: 'USAGE',
        message: expect.stringMatching(
          /^no test cases in config\/ and more\.yaml: declare them under `tests:`/,
        ),
      }),
    );
    expect(() => runTests(loaded, [], { source: 'live', environment: undefined }, where)).toThrow(
      /^no test cases/,
    );
    const environment = { name: 'prod', paths: ['base', 'prod'], vars: {} };
    expect(sourceFiles(['.'], environment)).toBe('the paths of environment prod (base and prod)');
  });

  it('redacts a registered secret from every string of the report', () => {
    const secret = 'tok-3f9a1c77e2d54b08';
    registerSecret(secret);
    const loaded = config(
      `${RULES}tests:\n  - name: "leaks ${secret}"\n    request: {host: shop.example.com, path: /admin}\n    expect: {action: allow, rule: "shop.example.com/${secret}"}\n`,
    );
    const report = runTests(
      loaded,
      configuredRules(loaded.state),
      { source: 'configuration', environment: undefined },
      '.',
    );
    const text = JSON.stringify(report);
    expect(text).not.toContain(secret);
    expect(report.cases[0]?.name).toBe('leaks [REDACTED]');
    expect(report.cases[0]?.expected.rule).toBe('shop.example.com/[REDACTED]');
  });
});

describe('liveRules', () => {
  it("reads every live application rule, out of wafctl's scope and disabled ones too, keyed as plans key them", async () => {
    const firewall = await startTestFirewall();
    try {
      const input = (description: string, enabled: boolean, host = 'shop.example.com') => ({
        rq_host: host,
        description,
        priority: 'medium',
        enabled,
        duration: null,
        start_time: null,
        username: 'e2e',
        conditions: [
          {
            operator: 'contains',
            not_op: true,
            expressions: [{ expression: 'ok' }],
            targets: [{ target: 'query' }],
          },
        ],
        actions: [{ firewall_action: 'block', firewall_name: 'waf-eu-1' }],
      });
      await firewall.api.applicationRules.create([
        input('On', true),
        input('Off', false, 'other.example.com'),
      ]);
      const rules = await liveRules(firewall.api, { concurrency: 2 });
      expect(rules.sort((a, b) => a.key.localeCompare(b.key))).toEqual([
        {
          key: 'other.example.com/Off',
          rq_host: 'other.example.com',
          priority: 'medium',
          enabled: false,
          conditions: [{ operator: 'contains', not_op: true, expressions: ['ok'], targets: ['query'] }],
          actions: [{ firewall_action: 'block', firewall_name: 'waf-eu-1' }],
        },
        expect.objectContaining({ key: 'shop.example.com/On', enabled: true }),
      ]);
    } finally {
      await firewall.close();
    }
  });
});
