/**
 * `wafctl test`: exit 0 when every case passes and 1 when one fails or errs, its three formats (the
 * JSON through its schema, the JUnit well-formed and counted), `--out` (replaced atomically, the
 * text report on stdout), `--live` against an emulator, `--env` and every environment offline, a
 * configuration without a case, usage errors, no secret in any output, and a start-up that does not
 * load the evaluator.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { chmod, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  buildTestReportJsonSchema,
  testReportDocumentSchema,
  testReportEnvironmentsSchema,
} from '../../src/core/test-document.js';
import { CLI_PATH, runCli } from '../helpers/cli.js';
import { E2E_TOKEN, startTestFirewall, type TestFirewall, writeConfig } from '../helpers/firewall.js';
import { EXAMPLES, rulesYaml } from '../helpers/fixtures.js';
import { parseXml } from '../helpers/xml.js';

/** The rule the cases below run against: `shop.example.com/Block admin` blocks `^/admin`. */
const RULES = rulesYaml([{}]);

/** A case as YAML; `expect` in flow style. */
const testYaml = (name: string, path: string, expect: string) =>
  `  - name: ${name}\n    request: {host: shop.example.com, path: ${path}}\n    expect: ${expect}\n`;

const PASSING = `tests:\n${testYaml('admin blocked', '/admin', '{action: block, rule: shop.example.com/Block admin}')}${testYaml('home open', '/', '{action: none}')}`;
const FAILING = `tests:\n${testYaml('admin blocked', '/admin', '{action: block}')}${testYaml('shop closed', '/shop', '{action: block}')}`;

/** The JSON Schema `npm run schema` writes to schemas/test-report.schema.json, as a validator. */
const validateReport = new Ajv2020({ allErrors: true, strict: true }).compile(
  JSON.parse(buildTestReportJsonSchema()) as object,
);

function expectValidReport(document: unknown): void {
  expect(validateReport(document), JSON.stringify(validateReport.errors)).toBe(true);
}

describe('wafctl test, offline', () => {
  it('exit 0 when every case passes: a line per case and the summary', async () => {
    const dir = await writeConfig({ 'rules.yaml': RULES, 'tests.yaml': PASSING });
    const result = await runCli(['test', dir]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n')).toEqual([
      '✓ admin blocked: block by shop.example.com/Block admin (waf-eu-1)',
      '✓ home open: no rule applies',
      '',
      "2 passed, 0 failed (2 cases against the configuration's 1 application rule).",
      '',
    ]);
  });

  it('exit 1 when a case fails: where it is declared and why', async () => {
    const dir = await writeConfig({ 'rules.yaml': RULES, 'tests.yaml': FAILING });
    const result = await runCli(['test', dir]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      `✗ shop closed (${join(dir, 'tests.yaml')}:5:5)\n    expected block, got none`,
    );
    expect(result.stdout).toMatch(/\n1 passed, 1 failed \(2 cases/);
  });

  it('exit 1 when a case cannot be evaluated (an operator wafctl knows only by name)', async () => {
    const opaque = `settings: {extra_operators: [regex_ci]}
application_rules:
  - rq_host: shop.example.com
    description: Opaque
    priority: high
    conditions: [{operator: regex_ci, expressions: [x], targets: [path]}]
    actions: [{firewall_action: block, firewall_name: waf-eu-1}]
`;
    const dir = await writeConfig({
      'rules.yaml': opaque,
      'tests.yaml': `tests:\n${testYaml('x', '/', '{action: none}')}`,
    });
    const result = await runCli(['test', dir, '--format', 'json']);
    expect(result.code).toBe(1);
    const report = testReportDocumentSchema.parse(JSON.parse(result.stdout));
    expect(report.summary).toEqual({ total: 1, passed: 0, failed: 0, errors: 1 });
  });

  it('--format json: the report, valid against its zod schema and its JSON Schema', async () => {
    const dir = await writeConfig({ 'rules.yaml': RULES, 'tests.yaml': FAILING });
    const result = await runCli(['test', dir, '--format', 'json']);
    expect(result.code).toBe(1);
    const document = JSON.parse(result.stdout) as Record<string, unknown>;
    expectValidReport(document);
    expect(testReportDocumentSchema.parse(document)).toEqual(document);
    expect(document).toMatchObject({
      format_version: 1,
      source: 'configuration',
      environment: null,
      rules: 1,
      passed: false,
      summary: { total: 2, passed: 1, failed: 1, errors: 0 },
    });
    expect(validateReport({ ...document, format_version: 2 })).toBe(false);
  });

  it('--format junit: well-formed, the failure counted and described', async () => {
    const dir = await writeConfig({ 'rules.yaml': RULES, 'tests.yaml': FAILING });
    const result = await runCli(['test', dir, '--format', 'junit']);
    expect(result.code).toBe(1);
    const root = parseXml(result.stdout);
    expect(root.attributes).toMatchObject({ tests: '2', failures: '1', errors: '0' });
    const cases = root.children[0]?.children.filter((c) => c.name === 'testcase') ?? [];
    expect(cases.map((c) => [c.attributes.name, c.children.map((e) => e.name)])).toEqual([
      ['admin blocked', []],
      ['shop closed', ['failure']],
    ]);
    expect(cases[1]?.attributes.classname).toBe(join(dir, 'tests.yaml'));
  });

  it('--out FILE: the report in --format replaces FILE (its mode kept), stdout shows the text report', async () => {
    const dir = await writeConfig({ 'rules.yaml': RULES, 'tests.yaml': FAILING });
    const out = join(dir, 'junit.xml');
    await writeFile(out, 'an older report');
    await chmod(out, 0o640);
    const result = await runCli(['test', dir, '--format', 'junit', '--out', out]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^✓ admin blocked: .*\n✗ shop closed/);
    expect(parseXml(await readFile(out, 'utf8')).attributes.failures).toBe('1');
    expect((await stat(out)).mode & 0o777).toBe(0o640);

    const json = join(dir, 'report.json');
    expect((await runCli(['test', dir, '--format', 'json', '--out', 'report.json'], { cwd: dir })).code).toBe(
      1,
    );
    expectValidReport(JSON.parse(await readFile(json, 'utf8')));
  });

  it('a configuration without a case: exit 1, one line naming the paths, nothing on stdout', async () => {
    const dir = await writeConfig({ 'rules.yaml': RULES });
    const result = await runCli(['test', dir, join(dir, 'rules.yaml'), '--format', 'junit']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `Error: no test cases in ${dir} and ${join(dir, 'rules.yaml')}: declare them under \`tests:\` (docs/rule-tests.md); a run that tests nothing fails\n`,
    );
  });

  it.each([
    [['--url', 'http://127.0.0.1:1'], 'Error: --url applies to --live only'],
    [['--token-file', 't', '--timeout', '5'], 'Error: --token-file and --timeout apply to --live only'],
    [['--format', 'xml'], "Error: option '--format <FORMAT>' argument 'xml' is invalid"],
  ])('usage error %j: exit 1 before reading anything', async (flags, message) => {
    const result = await runCli(['test', '/nonexistent-wafctl-dir', ...flags]);
    expect(result.code).toBe(1);
    expect(result.stderr.startsWith(message)).toBe(true);
  });
});

describe('wafctl test with environments', () => {
  // Offline: nothing listens at either URL (each environment its own server, as one server has one owner).
  const project = () => `environments:
  staging: {url: http://127.0.0.1:1, token_env: STAGING_TOKEN, paths: [base, staging]}
  production: {url: http://127.0.0.1:2, token_env: PRODUCTION_TOKEN, paths: [base, production]}
`;
  /** Staging also blocks /shop: the case `shop closed` passes there and fails in production. */
  const files = () => ({
    'wafctl.yaml': project(),
    'base/rules.yaml': RULES,
    'base/tests.yaml': FAILING,
    'staging/rules.yaml': rulesYaml([{ description: 'Block shop', expression: '^/shop' }]),
    'production/settings.yaml': 'settings: {username: prod-bot}\n',
  });

  it("--env NAME runs that environment's files: a heading, its own outcome", async () => {
    const dir = await writeConfig(files());
    const staging = await runCli(['test', dir, '--env', 'staging']);
    expect(staging.code, staging.stderr).toBe(0);
    expect(staging.stdout).toMatch(/^Environment: staging\n✓ admin blocked/);
    const production = await runCli(['test', dir, '--env', 'production', '--format', 'json']);
    expect(production.code).toBe(1);
    expect(JSON.parse(production.stdout)).toMatchObject({
      environment: 'production',
      rules: 1,
      passed: false,
    });
  });

  it('without --env, offline: every environment, one JSON document, exit 1 when one fails', async () => {
    const dir = await writeConfig(files());
    const result = await runCli(['test', dir, '--format', 'json']);
    expect(result.code).toBe(1);
    const document = JSON.parse(result.stdout) as Record<string, unknown>;
    expectValidReport(document);
    const { environments } = testReportEnvironmentsSchema.parse(document);
    expect(Object.keys(environments)).toEqual(['staging', 'production']);
    expect([environments.staging?.passed, environments.production?.passed]).toEqual([true, false]);
    const junit = parseXml((await runCli(['test', dir, '--format', 'junit'])).stdout);
    expect(junit.children.map((suite) => [suite.attributes.name, suite.attributes.failures])).toEqual([
      ['staging', '0'],
      ['production', '1'],
    ]);
  });

  it('an environment without a case fails alone, after the others are reported', async () => {
    const dir = await writeConfig({
      'wafctl.yaml': project(),
      'base/rules.yaml': RULES,
      'staging/tests.yaml': PASSING,
      'production/settings.yaml': 'settings: {username: prod-bot}\n',
    });
    const result = await runCli(['test', dir]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('== Environment: staging ==\n✓ admin blocked');
    expect(result.stdout).toContain('== Environment: production ==\nNo test report');
    expect(result.stderr).toBe(
      'Error: production: no test cases in the paths of environment production (base and production): declare them under `tests:` (docs/rule-tests.md); a run that tests nothing fails\n',
    );
  });

  it('--live needs --env where environments are declared: refused before any request', async () => {
    const dir = await writeConfig(files());
    const result = await runCli(['test', dir, '--live']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/declares environments \(staging, production\): pass --env NAME/);
  });
});

describe('wafctl test --live', () => {
  let firewall: TestFirewall;
  beforeEach(async () => {
    firewall = await startTestFirewall();
  });
  afterEach(async () => {
    await firewall.close();
  });

  it("runs the cases against the live firewall's rules, not the configuration's", async () => {
    const dir = await writeConfig({ 'rules.yaml': RULES, 'tests.yaml': PASSING });
    // The firewall has no rule yet: the case expecting a block fails there, and passes offline.
    const before = await runCli(['test', dir, '--live', '--format', 'json'], { env: firewall.env });
    expect(before.code).toBe(1);
    expect(JSON.parse(before.stdout)).toMatchObject({ source: 'live', rules: 0, summary: { failed: 1 } });
    expect((await runCli(['test', dir], { env: firewall.env })).code).toBe(0);

    expect((await runCli(['apply', dir, '--auto-approve'], { env: firewall.env })).code).toBe(0);
    const after = await runCli(['test', dir, '--live'], { env: firewall.env });
    expect(after.code, after.stderr).toBe(0);
    expect(after.stdout).toMatch(/\(2 cases against the live firewall's 1 application rule\)\.\n$/);
  });

  it("--live --env NAME: the environment's firewall and credentials", async () => {
    const dir = await writeConfig({
      'wafctl.yaml': `environments:\n  staging: {url: ${firewall.url}, token_env: STAGING_TOKEN, paths: [base]}\n`,
      'base/tests.yaml': PASSING,
    });
    const result = await runCli(['test', dir, '--live', '--env', 'staging', '--format', 'json'], {
      env: { STAGING_TOKEN: E2E_TOKEN },
    });
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ source: 'live', environment: 'staging', rules: 0 });
  });

  it('no secret in stdout, stderr or --out, even where a case quotes the token', async () => {
    const dir = await writeConfig({
      'rules.yaml': RULES,
      'tests.yaml': `tests:\n${testYaml(`"sends ${E2E_TOKEN}"`, '/admin', `{action: block, rule: "shop.example.com/${E2E_TOKEN}"}`)}`,
    });
    const out = join(dir, 'report.json');
    for (const format of ['text', 'json', 'junit']) {
      const result = await runCli(['test', dir, '--live', '--format', format, '--out', out], {
        env: firewall.env,
      });
      expect(result.code).toBe(1);
      const written = readFileSync(out, 'utf8');
      for (const text of [result.stdout, result.stderr, written]) expect(text).not.toContain(E2E_TOKEN);
      expect(written).toContain('sends [REDACTED]');
    }
    // A refused token: the error names where it came from, never the token.
    const refused = await runCli(['test', dir, '--live'], {
      env: { ...firewall.env, WAF_TOKEN: `${E2E_TOKEN}-x` },
    });
    expect(refused.code).toBe(1);
    expect(`${refused.stdout}${refused.stderr}`).not.toContain(E2E_TOKEN);
  });
});

/** The files the binary loads for `args`, as a module hook sees them; their text, joined. */
function loadedText(args: string[]): Promise<string> {
  const hook = `data:text/javascript,import {register} from "node:module"; register("data:text/javascript,export async function load(u,c,n){ process._rawDebug('LOAD '+u); return n(u,c)}")`;
  const child = spawn(process.execPath, ['--import', hook, CLI_PATH, ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', () => {
      const files = [...stderr.matchAll(/^LOAD (file:\S+)$/gm)].map((match) => new URL(match[1] ?? ''));
      resolve(files.map((file) => readFileSync(file, 'utf8')).join('\n'));
    });
  });
}

describe('start-up', () => {
  it('--version and test --help do not load the evaluator (re2js); a test run does', async () => {
    expect(await loadedText(['--version'])).not.toContain('RE2JS');
    expect(await loadedText(['test', '--help'])).not.toContain('RE2JS');
    expect(await loadedText(['test', EXAMPLES])).toContain('RE2JS');
  });
});
