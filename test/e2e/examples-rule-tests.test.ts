/**
 * examples/config/tests.yaml: the examples' rule tests pass with the built binary (as `npm run demo`
 * runs them), and every application rule of the examples decides at least one case.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { spawnCli } from '../helpers/cli.js';
import { EXAMPLES } from '../helpers/fixtures.js';

const ROOT = join(EXAMPLES, '..', '..');

/** The keys (`RQ_HOST/DESCRIPTION`) of the examples' application rules. */
function exampleRuleKeys(): string[] {
  const dir = join(EXAMPLES, 'application-rules');
  return readdirSync(dir)
    .filter((name) => name.endsWith('.yaml'))
    .flatMap((name) => {
      const { application_rules: rules } = parse(readFileSync(join(dir, name), 'utf8')) as {
        application_rules: { rq_host: string; description: string }[];
      };
      return rules.map((rule) => `${rule.rq_host}/${rule.description}`);
    });
}

interface CaseReport {
  name: string;
  status: string;
  actual: { action: string; rule?: string };
}

describe('the examples rule tests', () => {
  it('all pass: wafctl test examples/config/ exits 0', async () => {
    const result = await spawnCli(['test', 'examples/config/'], { cwd: ROOT });
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('15 passed, 0 failed');
    expect(result.code).toBe(0);
  });

  it('cover every application rule of the examples, and requests no rule decides', async () => {
    const result = await spawnCli(['test', 'examples/config/', '--format', 'json'], { cwd: ROOT });
    expect(result.code, result.stderr).toBe(0);
    const cases = (JSON.parse(result.stdout) as { cases: CaseReport[] }).cases;
    expect(cases.every((c) => c.status === 'pass')).toBe(true);
    const deciding = new Set(cases.map((c) => c.actual.rule).filter((rule) => rule !== undefined));
    const keys = exampleRuleKeys();
    expect(keys).toHaveLength(6);
    expect([...deciding].sort()).toEqual([...keys].sort());
    expect(cases.filter((c) => c.actual.action === 'none').length).toBeGreaterThan(0);
  });
});
