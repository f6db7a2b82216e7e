/**
 * `environment_defaults:` in wafctl.yaml: a fleet declared one line per environment, each inheriting
 * the shared fields with `{env}` / `{ENV}` replaced; problems at file:line:col; and the trusted ref
 * compares the resolved connections.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { forEnvironment } from '../../src/config/environment-defaults.js';
import { loadEnvironment } from '../../src/config/load.js';
import { ConfigError } from '../../src/config/problems.js';
import { readProject } from '../../src/config/project.js';
import { trustChanges } from '../../src/config/trust.js';
import { type LoadedConfig, validateSources } from '../../src/config/validate-sources.js';
import { writeFiles } from '../helpers/firewall.js';

let dir = '';

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wafctl-environment-defaults-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const read = async (text: string, at = '.') => {
  await writeFiles(join(dir, at), { 'wafctl.yaml': text });
  return readProject('.', join(dir, at));
};

async function problems(text: string): Promise<string[]> {
  try {
    await read(text);
  } catch (error) {
    if (error instanceof ConfigError) return error.message.split('\n');
    throw error;
  }
  throw new Error('expected problems');
}

const FLEET = `environment_defaults:
  url_env: WAF_URL_{ENV}
  token_env: WAF_TOKEN_{ENV}
  paths: [base, 'regions/{env}']
  vars: {region: '{env}', tier: 1}
environments:
  prod-eu-1: {}
  prod.us.2: {vars: {tier: 2}}
  staging:
    url: https://waf-staging.example.com
    signin_username_env: STAGING_USER
    signin_password_env: STAGING_PASSWORD
    paths: [base]
`;

describe('environment_defaults', () => {
  it('gives every environment the fields it does not set, placeholders replaced, in declared order', async () => {
    const project = await read(FLEET);
    expect(project?.environments).toEqual([
      {
        name: 'prod-eu-1',
        url_env: 'WAF_URL_PROD_EU_1',
        token_env: 'WAF_TOKEN_PROD_EU_1',
        paths: ['base', 'regions/prod-eu-1'],
        vars: { region: 'prod-eu-1', tier: '1' },
      },
      {
        name: 'prod.us.2',
        url_env: 'WAF_URL_PROD_US_2',
        token_env: 'WAF_TOKEN_PROD_US_2',
        paths: ['base', 'regions/prod.us.2'],
        vars: { region: 'prod.us.2', tier: '2' },
      },
      {
        // Its own url and sign-in replace the defaults' url_env and token_env: alternatives go together.
        name: 'staging',
        url: 'https://waf-staging.example.com',
        signin_username_env: 'STAGING_USER',
        signin_password_env: 'STAGING_PASSWORD',
        paths: ['base'],
        vars: { region: 'staging', tier: '1' },
      },
    ]);
  });

  it('maps a name to a variable name part: upper-cased, other characters as _', () => {
    expect(forEnvironment('T_{ENV}_{env}', 'eu-west.1_b')).toBe('T_EU_WEST_1_B_eu-west.1_b');
  });

  it('is not configuration: an environment that reads the project file as configuration loads it', async () => {
    const project = await read(
      'environment_defaults: {url: "https://{env}.example.com", token_env: T, paths: [.]}\nenvironments:\n  a: {}\ngroups:\n  - name: soc\n',
    );
    const [environment] = project?.environments ?? [];
    expect(environment).toMatchObject({ url: 'https://a.example.com', paths: ['.'] });
    if (project === undefined || environment === undefined) return;
    const loaded = await loadEnvironment(project, environment, { env: {}, cwd: dir });
    expect(loaded.state.groups.map((group) => group.name)).toEqual(['soc']);
  });

  it('places a problem of an inherited field at the default, once for every environment it concerns', async () => {
    expect(
      await problems(`environment_defaults:
  url: https://{env}.example.com
  token_env: TOKEN_{env}
  paths: [base]
environments:
  ok_1: {}
  eu-1: {}
  eu-2: {}
  eu-3: {}
  eu-4: {}
`),
    ).toEqual([
      'wafctl.yaml:3:14 environment_defaults.token_env: expected the name of an environment variable: letters, digits and _, not starting with a digit (for environments eu-1, eu-2, eu-3 and 1 more)',
      '1 problem in 1 file.',
    ]);
  });

  it('places a problem of the defaults themselves, and of an environment left incomplete, at file:line:col', async () => {
    expect(
      await problems(`environment_defaults:
  url: https://{env}.example.com
  url_env: U_{ENV}
  token_env: T-{ENV}
  bogus: 1
environments:
  a: {token_env: A}
`),
    ).toEqual([
      expect.stringContaining('wafctl.yaml:3:12 environment_defaults.url_env: url and url_env are both set'),
      expect.stringContaining(
        'wafctl.yaml:4:14 environment_defaults.token_env: expected the name of an environment variable',
      ),
      'wafctl.yaml:5:3 environment_defaults: unknown field "bogus"',
      '3 problems in 1 file.',
    ]);
    expect(
      await problems(
        'environment_defaults: {token_env: T}\nenvironments:\n  a: {}\n  b: {url: https://b.example.com}\n',
      ),
    ).toEqual([
      'wafctl.yaml:3:6 environments.a: required field "paths" is missing',
      'wafctl.yaml:4:6 environments.b: required field "paths" is missing',
      '2 problems in 1 file.',
    ]);
  });
});

describe('with a trusted ref', () => {
  const side = (environments: NonNullable<Awaited<ReturnType<typeof readProject>>>['environments']) => {
    const result = validateSources([], { env: {}, policyOnly: true });
    if (!result.ok) throw new Error('empty configuration');
    return { environments, config: result.config as LoadedConfig };
  };
  const EXPLICIT = `environments:
  prod-eu-1: {url_env: WAF_URL_PROD_EU_1, token_env: WAF_TOKEN_PROD_EU_1, paths: [base]}
  prod-eu-2: {url_env: WAF_URL_PROD_EU_2, token_env: WAF_TOKEN_PROD_EU_2, paths: [base]}
`;

  it('compares the resolved connections: the same ones written with defaults change nothing', async () => {
    const trusted = await read(EXPLICIT, 'trusted');
    const work = await read(
      'environment_defaults: {url_env: "WAF_URL_{ENV}", token_env: "WAF_TOKEN_{ENV}", paths: [base]}\nenvironments:\n  prod-eu-1: {}\n  prod-eu-2: {}\n',
      'work',
    );
    expect(trustChanges(side(trusted?.environments ?? []), side(work?.environments ?? []))).toEqual([]);
  });

  it('sees a default that redirects every environment as a change of each', async () => {
    const trusted = await read(EXPLICIT, 'trusted');
    const work = await read(
      'environment_defaults: {url: "https://evil.example.com/{env}", token_env: "WAF_TOKEN_{ENV}", paths: [base]}\nenvironments:\n  prod-eu-1: {}\n  prod-eu-2: {}\n',
      'work',
    );
    expect(trustChanges(side(trusted?.environments ?? []), side(work?.environments ?? []))).toEqual(
      ['prod-eu-1', 'prod-eu-2'].flatMap((name) => [
        { subject: `environment ${name}`, change: `url: null -> "https://evil.example.com/${name}"` },
        {
          subject: `environment ${name}`,
          change: `url_env: "WAF_URL_${name.toUpperCase().replaceAll('-', '_')}" -> null`,
        },
      ]),
    );
  });
});
