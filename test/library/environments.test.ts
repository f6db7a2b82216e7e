/* biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${var.NAME}` in configuration is data here */
/**
 * The library's `environment` option (docs/library.md): one environment of wafctl.yaml per call, with
 * its paths, overlays, vars, URL and credentials, as `--env NAME`; each document is the one
 * `wafctl COMMAND --env NAME --format json` prints, and what `--env` refuses is refused before any
 * request.
 */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { apply, drift, exportState, isWafctlError, plan, validate } from '../../src/library/index.js';
import { runCli } from '../helpers/cli.js';
import { E2E_TOKEN, startTestFirewall, type TestFirewall, writeConfig } from '../helpers/firewall.js';
import { actionOverlayYaml, rulesYaml } from '../helpers/fixtures.js';

let staging: TestFirewall;
let production: TestFirewall;
let dir = '';
/** The variables both the CLI and the library are given: the URL and tokens wafctl.yaml names. */
let env: Record<string, string> = {};

const STAGING_GROUP = `groups:
  - name: soc
    description: \${var.team}
`;

beforeEach(async () => {
  staging = await startTestFirewall();
  production = await startTestFirewall();
  dir = await writeConfig({
    'wafctl.yaml': `environments:
  staging:
    url_env: STAGING_URL
    token_env: TOKEN_STAGING
    paths: [base, envs/staging]
    vars: {team: Analysts}
  production:
    url: ${production.url}
    token_env: TOKEN_PROD
    paths: [base, envs/production]
`,
    'base/rules.yaml': rulesYaml([{}]),
    'envs/staging/groups.yaml': STAGING_GROUP,
    'envs/production/rules.yaml': `application_rules:\n${actionOverlayYaml({ action: 'log' })}`,
  });
  env = { STAGING_URL: staging.url, TOKEN_STAGING: E2E_TOKEN, TOKEN_PROD: E2E_TOKEN };
});

afterEach(async () => {
  await staging.close();
  await production.close();
  await rm(dir, { recursive: true, force: true });
});

/** The CLI's `--format json` output in the project, parsed. */
async function cliJson(args: string[], variables = env): Promise<unknown> {
  const result = await runCli([...args, '--format', 'json'], { env: variables, cwd: dir });
  expect(result.stdout, result.stderr).not.toBe('');
  return JSON.parse(result.stdout);
}

const asJson = (document: unknown): unknown => JSON.parse(JSON.stringify(document));

/** Requests each firewall has answered. */
const requests = async () => [(await staging.stats()).total, (await production.stats()).total];

describe('environment', () => {
  it('plans, checks for drift and validates one environment as --env NAME does, against its firewall only', async () => {
    const planned = await plan({ cwd: dir, env, environment: 'staging' });
    expect(await requests()).toEqual([expect.any(Number), 0]);
    expect(asJson(planned)).toStrictEqual(await cliJson(['plan', '--env', 'staging']));
    const group = planned.changes.find((change) => change.kind === 'group' && change.key === 'soc');
    expect(group?.after).toMatchObject({ description: 'Analysts' });

    const drifted = await drift({
      cwd: dir,
      env,
      environment: 'production',
      connection: { timeoutSeconds: 5 },
    });
    expect(asJson(drifted)).toStrictEqual(await cliJson(['drift', '--env', 'production']));
    expect(drifted.changes.some((change) => change.kind === 'group')).toBe(false);

    const valid = await validate({ cwd: dir, environment: 'staging' });
    expect(valid).toEqual(await cliJson(['validate', '--env', 'staging']));
    expect(valid).toMatchObject({ valid: true, environments: { staging: { valid: true, groups: 1 } } });
    expect(Object.keys((await validate({ cwd: dir })) as object)).toEqual([
      'valid',
      'environments',
      'summary',
    ]);
  });

  it("applies to the environment's firewall as apply --env NAME does, and exports it as export --env NAME", async () => {
    const other = await startTestFirewall();
    try {
      const texts: string[] = [];
      const report = await apply({
        cwd: dir,
        env,
        environment: 'staging',
        onText: (text) => texts.push(text),
      });
      const cli = await runCli(['apply', '--env', 'staging', '--auto-approve', '--format', 'json'], {
        env: { ...env, STAGING_URL: other.url },
        cwd: dir,
      });
      expect(cli.code, cli.stderr).toBe(0);
      const timeless = (document: unknown) => ({ ...(asJson(document) as object), duration_ms: 0 });
      expect(timeless(report)).toStrictEqual(timeless(JSON.parse(cli.stdout)));
      expect(report).toMatchObject({ succeeded: true, exit_code: 0 });
      expect(texts[0]).toBe('Environment: staging');
    } finally {
      await other.close();
    }
    expect((await plan({ cwd: dir, env, environment: 'staging' })).changes).toEqual([]);
    expect((await requests())[1]).toBe(0);

    const exported = await runCli(['export', '--env', 'staging', '--dir', 'live'], { env, cwd: dir });
    expect(exported.code, exported.stderr).toBe(0);
    const state = await exportState({ cwd: dir, env, environment: 'staging', dir: 'live' });
    for (const file of state.files) {
      expect(file.text).toBe(await readFile(join(dir, 'live', file.name), 'utf8'));
    }
    expect(state.files.map((file) => file.name)).toContain('groups.yaml');
  });

  it('refuses, before any request, what --env refuses', async () => {
    const refusals = await Promise.all(
      [
        () => plan({ cwd: dir, env, connection: { url: staging.url, token: E2E_TOKEN } }),
        () => plan({ cwd: dir, env, environment: 'qa' }),
        () => plan({ cwd: dir, env, environment: 'all' }),
        () => plan({ cwd: dir, env, environment: 'staging', paths: ['.', 'base'] }),
        () => drift({ cwd: dir, env: {}, environment: 'staging' }),
        () => apply({ cwd: dir, env: { STAGING_URL: staging.url }, environment: 'staging' }),
        () =>
          exportState({
            cwd: dir,
            env,
            environment: 'staging',
            connection: { url: staging.url } as { timeoutSeconds?: number },
          }),
        () => validate({ cwd: join(dir, 'base'), environment: 'staging' }),
      ].map((call) => call().catch((error: unknown) => error)),
    );
    const messages = refusals.map((error) =>
      isWafctlError(error) ? `${error.code}: ${error.message}` : error,
    );
    expect(messages).toEqual([
      expect.stringMatching(
        /^USAGE: wafctl.yaml declares environments \(staging, production\): give `environment`/,
      ),
      'USAGE: unknown environment "qa": wafctl.yaml declares staging, production',
      expect.stringMatching(/^USAGE: a call works on one environment, not staging, production/),
      expect.stringMatching(/^USAGE: wafctl.yaml declares environments .* not \. base$/),
      expect.stringMatching(/^USAGE: environment staging: STAGING_URL is not set \(url_env in wafctl.yaml\)/),
      expect.stringMatching(
        /^USAGE: environment staging: TOKEN_STAGING is not set \(token_env in wafctl.yaml\)/,
      ),
      expect.stringMatching(
        /^USAGE: connection.url cannot be combined with environment: environment staging/,
      ),
      expect.stringMatching(
        /^USAGE: environment selects environments of wafctl.yaml .* which declares none$/,
      ),
    ]);
    expect(await requests()).toEqual([0, 0]);
  });
});
