/**
 * The fleet output (issue 45): with several environments, text and markdown open with a summary
 * table, one row per environment; JSON holds each one's `summary`; one environment failing (a bad
 * token) stops none of the others; the exit code is the worst; `--concurrency` changes nothing of
 * the output. Four environments on three in-process emulators.
 */
import { rm } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { markdownSummaryTable, textSummaryTable } from '../../src/plan/render/environments.js';
import { runCli } from '../helpers/cli.js';
import { E2E_TOKEN, startTestFirewall, type TestFirewall, writeConfig } from '../helpers/firewall.js';
import { actionOverlayYaml, rulesYaml } from '../helpers/fixtures.js';

let firewalls: TestFirewall[] = [];
let dir = '';
const env = { TOKEN_GOOD: E2E_TOKEN, TOKEN_BAD: 'not-the-token-0123456789' };

beforeEach(async () => {
  firewalls = await Promise.all([startTestFirewall(), startTestFirewall(), startTestFirewall()]);
  const [one, two, three] = firewalls.map((firewall) => firewall.url);
  dir = await writeConfig({
    'wafctl.yaml': `environments:
  alpha:
    url: ${one}
    token_env: TOKEN_GOOD
    paths: [base]
  beta:
    url: ${two}
    token_env: TOKEN_GOOD
    paths: [base, weak]
  gamma:
    url: ${three}
    token_env: TOKEN_BAD
    paths: [base]
  delta:
    url: ${three}
    token_env: TOKEN_GOOD
    paths: [none]
`,
    'base/rules.yaml': rulesYaml([{}]),
    'weak/rules.yaml': `application_rules:\n${actionOverlayYaml({ action: 'log' })}`,
    'none/groups.yaml': 'groups: []\n',
  });
});

afterEach(async () => {
  await Promise.all(firewalls.map((firewall) => firewall.close()));
  await rm(dir, { recursive: true, force: true });
});

describe('plan --env all: the summary table', () => {
  it('opens the text with one row per environment; a failed one shows its error, the others complete', async () => {
    const plan = await runCli(['plan', dir, '--env', 'all', '--detailed-exitcode'], { env });
    expect(plan.code).toBe(1);
    const table = plan.stdout.slice(0, plan.stdout.indexOf('\n\n'));
    const lines = table.split('\n');
    expect(lines[0]).toMatch(/^Environment +Result +Impact +Error$/);
    expect(lines.slice(1).map((line) => line.split(/ {2,}/).slice(0, 2))).toEqual([
      ['alpha', expect.stringMatching(/^\d+ changes?$/)],
      ['beta', expect.stringMatching(/^\d+ changes?$/)],
      ['gamma', 'failed'],
      ['delta', 'no changes'],
    ]);
    expect(lines[3]).toMatch(/failed +\S.*40[13]/);
    expect(plan.stdout).not.toContain(env.TOKEN_BAD);
    // The sections follow, in declared order, the failed one included.
    const at = ['alpha', 'beta', 'gamma', 'delta'].map((name) =>
      plan.stdout.indexOf(`== Environment: ${name} ==\n`),
    );
    expect(at.every((index, i) => index > table.length && (i === 0 || index > (at[i - 1] ?? 0)))).toBe(true);
    expect(plan.stdout).toContain('== Environment: gamma ==\nNo plan: this environment failed');
    expect(plan.stderr).toMatch(/^Error: gamma: /m);
    expect(plan.stdout).toContain('== Environment: delta ==\nNo changes.');
  });

  it('markdown: the table follows the header, within the document', async () => {
    const md = await runCli(['plan', dir, '--env', 'all', '--format', 'markdown'], { env });
    expect(md.code).toBe(1);
    expect(md.stdout).toMatch(
      /^<!-- wafctl-plan -->\n## wafctl plan: alpha, beta, gamma, delta\n\n\| Environment \| Result \| Impact \| Error \|\n\| --- \| --- \| --- \| --- \|\n\| alpha \| \d+ changes? \| /,
    );
    expect(md.stdout).toMatch(
      /\n\| gamma \| failed \| {2}\| \S[^\n]* \|\n\| delta \| no changes \| {2}\| {2}\|\n\n## alpha\n/,
    );
  });

  it('JSON: each environment under `environments` as before, and its `summary`', async () => {
    const json = await runCli(['plan', dir, '--env', 'all', '--format', 'json'], { env });
    expect(json.code).toBe(1);
    const doc = JSON.parse(json.stdout) as {
      environments: Record<string, { changes: unknown[] } | null>;
      summary: Record<string, unknown>;
    };
    expect(Object.keys(doc)).toEqual(['format_version', 'environments', 'summary']);
    expect(json.stdout).toBe(`${JSON.stringify(doc, null, 2)}\n`);
    expect(doc.environments.gamma).toBeNull();
    expect(doc.summary.alpha).toEqual({
      result: expect.stringMatching(/change/),
      count: doc.environments.alpha?.changes.length,
      impact: null,
      error: null,
    });
    expect(doc.summary.gamma).toEqual({
      result: 'failed',
      count: null,
      impact: null,
      error: expect.any(String),
    });
    expect(doc.summary.delta).toEqual({ result: 'no changes', count: 0, impact: null, error: null });
  });

  it('--concurrency 1 and 3 give the same output and exit code', async () => {
    const one = await runCli(['plan', dir, '--env', 'all', '--concurrency', '1', '--format', 'json'], {
      env,
    });
    const three = await runCli(['plan', dir, '--env', 'all', '--concurrency', '3', '--format', 'json'], {
      env,
    });
    expect(one.code).toBe(1);
    expect(three.code).toBe(one.code);
    expect(three.stdout).toBe(one.stdout);
    const text = await runCli(['drift', dir, '--env', 'all', '--concurrency', '3'], { env });
    const textOne = await runCli(['drift', dir, '--env', 'all', '--concurrency', '1'], { env });
    expect(text.stdout).toBe(textOne.stdout);
    expect(text.code).toBe(textOne.code);
  });
});

describe('drift --env all: the summary table', () => {
  it('says drift or no drift per environment; the exit code is the worst (1 over 2)', async () => {
    const alpha = await runCli(['apply', dir, '--env', 'alpha', '--auto-approve'], { env });
    expect(alpha.code).toBe(0);
    const drift = await runCli(['drift', dir, '--env', 'all'], { env });
    expect(drift.code).toBe(1);
    const rows = drift.stdout.slice(0, drift.stdout.indexOf('\n\n')).split('\n').slice(1);
    expect(rows.map((line) => line.split(/ {2,}/).slice(0, 2))).toEqual([
      ['alpha', 'no drift'],
      ['beta', expect.stringMatching(/^drift: \d+ objects?$/)],
      ['gamma', 'failed'],
      ['delta', 'no drift'],
    ]);
  });
});

describe('summary tables', () => {
  const rows = [
    {
      name: 'eu',
      summary: {
        result: '2 changes',
        count: 2,
        impact: 'weakens_protection' as const,
        error: 'bad | <b>x</b> `y`',
      },
    },
    { name: 'us', summary: { result: 'no changes', count: 0, impact: null, error: null } },
  ];

  it('markdown escapes data: a | cannot end a cell, HTML and code spans are text', () => {
    expect(markdownSummaryTable(rows)).toBe(
      '| Environment | Result | Impact | Error |\n| --- | --- | --- | --- |\n' +
        '| eu | 2 changes | weakens\\_protection | bad \\| &lt;b&gt;x&lt;/b&gt; \\`y\\` |\n' +
        '| us | no changes |  |  |\n',
    );
  });

  it('text aligns the columns and ends with a blank line', () => {
    expect(textSummaryTable(rows)).toBe(
      'Environment  Result      Impact              Error\n' +
        'eu           2 changes   weakens_protection  bad | <b>x</b> `y`\n' +
        'us           no changes\n\n',
    );
  });
});
