/**
 * Which environments `--env` (names, `all`, globs), `--exclude-env` and a shard select
 * (ops/project.ts `selectedNames`): pure, before any request.
 */
import { describe, expect, it } from 'vitest';
import type { EnvironmentSpec, Project } from '../../src/config/project.js';
import { type SelectionFilters, selectedNames } from '../../src/ops/project.js';
import { inShard } from '../../src/ops/shard.js';

const NAMES = ['staging', 'prod-eu-1', 'prod-eu-2', 'prod-us-1', 'prod-us-10', 'dev'];

const spec = (name: string): EnvironmentSpec => ({
  name,
  url: `https://${name}.example.com`,
  token_env: 'WAF_TOKEN',
  paths: ['base'],
  vars: {},
});

const project: Project = { root: '.', file: 'wafctl.yaml', environments: NAMES.map(spec) };
const wording = { option: '--env', needed: 'pass --env NAME' };

const select = (given: string[], filters?: SelectionFilters) =>
  selectedNames({ root: '.', project }, [], given, wording, filters);

const refusal = (given: string[], filters?: SelectionFilters): string => {
  try {
    select(given, filters);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected a refusal');
};

describe('selectedNames', () => {
  it('matches globs (* any run, ? one character), in declared order whatever the order given', () => {
    expect(select(['prod-us-*', 'staging'])?.names).toEqual(['staging', 'prod-us-1', 'prod-us-10']);
    expect(select(['prod-??-1'])?.names).toEqual(['prod-eu-1', 'prod-us-1']);
    expect(select(['*'])?.names).toEqual(NAMES);
    expect(select(['dev', 'prod-eu-?', 'dev'])?.names).toEqual(['prod-eu-1', 'prod-eu-2', 'dev']);
  });

  it('removes what --exclude-env matches, after the selection', () => {
    expect(select(['prod-*'], { exclude: ['prod-eu-2', '*-10'] })?.names).toEqual(['prod-eu-1', 'prod-us-1']);
    expect(select(['all'], { exclude: ['prod-*'] })?.names).toEqual(['staging', 'dev']);
    // An exclusion of an environment not selected, but declared, is no error.
    expect(select(['prod-eu-*'], { exclude: ['staging'] })?.names).toEqual(['prod-eu-1', 'prod-eu-2']);
  });

  it('runs a glob, all, an exclusion or a shard as a fleet, even when one environment is left', () => {
    expect(select(['dev'])?.several).toBe(false);
    expect(select(['dev', 'staging'])?.several).toBe(true);
    expect(select(['prod-us-1?'])).toMatchObject({ names: ['prod-us-10'], several: true });
    expect(select(['dev', 'staging'], { exclude: ['staging'] })).toMatchObject({
      names: ['dev'],
      several: true,
    });
    expect(select(['dev'], { shard: { k: 1, n: 1 } })).toMatchObject({ names: ['dev'], several: true });
  });

  it('takes the shard of what is left after the exclusions', () => {
    const kept = NAMES.filter((name) => name !== 'staging');
    for (let k = 1; k <= 3; k++) {
      const shard = { k, n: 3 };
      expect(select(['all'], { exclude: ['staging'], shard })).toMatchObject({
        names: inShard(kept, shard),
        sharded: { shard, of: kept.length },
      });
    }
  });

  it('gives an empty shard without refusing it', () => {
    // prod-eu-2 alone is in shard 3 of 4 (selection-shard.test.ts): shard 1 of 4 holds nothing.
    expect(select(['prod-eu-2'], { shard: { k: 1, n: 4 } })).toMatchObject({
      names: [],
      several: true,
      sharded: { shard: { k: 1, n: 4 }, of: 1 },
    });
  });

  it('refuses a glob or an exclusion that matches no environment, naming the declared ones', () => {
    expect(refusal(['prod-ap-*', 'dev'])).toBe(
      `--env "prod-ap-*" matches no environment: wafctl.yaml declares ${NAMES.join(', ')}`,
    );
    expect(refusal(['all'], { exclude: ['qa-*', 'x?'] })).toBe(
      `--exclude-env "qa-*", --exclude-env "x?" match no environment: wafctl.yaml declares ${NAMES.join(', ')}`,
    );
    // A name --exclude-env does not know is refused as --env's are.
    expect(refusal(['all'], { exclude: ['qa'] })).toBe(
      `unknown environment "qa": wafctl.yaml declares ${NAMES.join(', ')}`,
    );
  });

  it('refuses an unknown name as before, saying --env also takes all', () => {
    expect(refusal(['prod', 'prod-*'])).toBe(
      `unknown environment "prod": wafctl.yaml declares ${NAMES.join(', ')} (or --env all)`,
    );
  });

  it('refuses a selection that excludes every environment', () => {
    expect(refusal(['prod-eu-*'], { exclude: ['prod-*'] })).toBe(
      `--env prod-eu-* --exclude-env prod-* leaves no environment: wafctl.yaml declares ${NAMES.join(', ')}`,
    );
  });
});
