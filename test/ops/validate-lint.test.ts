/**
 * `validate`'s rule lint (ops/validate/lint.ts): the findings of core/rules/lint.ts placed at the
 * rules' FILE:LINE:COL, as warnings, or as problems too with `strict`.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/problems.js';
import { type LoadedConfig, validateSources } from '../../src/config/validate-sources.js';
import { validationDocumentSchema } from '../../src/ops/validate/document.js';
import { configWarnings } from '../../src/ops/validate/lint.js';
import { validationOf } from '../../src/ops/validate/validate.js';

interface RuleSpec {
  host?: string;
  description: string;
  priority?: string;
  expressions?: readonly string[];
  action?: string;
}

/** One rule, 8 lines of YAML; the first rule of a file starts on line 2, its mapping at column 5. */
function ruleYaml(rule: RuleSpec): string {
  return `  - rq_host: ${rule.host ?? 'shop.example.com'}
    description: ${rule.description}
    priority: ${rule.priority ?? 'high'}
    conditions:
      - operator: match
        expressions: ${JSON.stringify(rule.expressions ?? ['^/admin'])}
        targets: [path]
    actions: [{firewall_action: ${rule.action ?? 'block'}, firewall_name: waf-eu-1}]
`;
}

const rulesFile = (rules: readonly RuleSpec[]) => `application_rules:\n${rules.map(ruleYaml).join('')}`;

/** The line of the `index`-th rule of a `rulesFile`. */
const lineOf = (index: number) => 2 + 8 * index;

function loaded(files: Record<string, string>): LoadedConfig {
  const sources = Object.entries(files).map(([file, text]) => ({ file, text }));
  const result = validateSources(sources, { env: {} });
  if (!result.ok) throw new Error(result.problems.map((p) => p.message).join('\n'));
  return result.config;
}

const HOST = 'shop.example.com';

describe('configWarnings', () => {
  const cases: {
    name: string;
    files: Record<string, string>;
    expected: { file: string; code: string; line: number; path: string; message: string }[];
  }[] = [
    {
      name: 'a rule that a higher-priority one with the same conditions always decides before: shadowed',
      files: {
        'rules.yaml': rulesFile([
          { description: 'low', priority: 'low', action: 'log' },
          { description: 'high', priority: 'high' },
        ]),
      },
      expected: [
        {
          file: 'rules.yaml',
          code: 'shadowed',
          line: lineOf(0),
          path: 'application_rules[0]',
          message: `shadowed by ${HOST}/high (same host and conditions, higher priority): it can never decide; ${HOST}/high is at rules.yaml:${lineOf(1)}:5`,
        },
      ],
    },
    {
      name: 'two rules of one host with the same conditions and actions: identical, the other named',
      files: {
        'a.yaml': rulesFile([{ description: 'first' }]),
        'b.yaml': rulesFile([{ description: 'second', expressions: ['^/admin'] }]),
      },
      expected: [
        {
          file: 'b.yaml',
          code: 'identical',
          line: lineOf(0),
          path: 'application_rules[0]',
          message: `identical to ${HOST}/first (same host, conditions and actions): one of them can go; ${HOST}/first is at a.yaml:${lineOf(0)}:5`,
        },
      ],
    },
    ...['.*', '^'].map((empty) => ({
      name: `a blocking rule matching ${JSON.stringify(empty)}: matches_empty, at the expression's path`,
      files: { 'rules.yaml': rulesFile([{ description: 'all', expressions: ['^/admin', empty] }]) },
      expected: [
        {
          file: 'rules.yaml',
          code: 'matches_empty',
          line: lineOf(0),
          path: 'application_rules[0].conditions[0].expressions[1]',
          message: `conditions[0].expressions[1] ${JSON.stringify(empty)} matches the empty string, so it matches every request that has a value of path, and the rule blocks`,
        },
      ],
    })),
    {
      name: 'an action that settings.firewall_actions makes blocking: matches_empty',
      files: {
        'settings.yaml': 'settings:\n  firewall_actions:\n    blocking: [quarantine]\n',
        'rules.yaml': rulesFile([{ description: 'all', expressions: ['.*'], action: 'Quarantine' }]),
      },
      expected: [
        {
          file: 'rules.yaml',
          code: 'matches_empty',
          line: lineOf(0),
          path: 'application_rules[0].conditions[0].expressions[0]',
          message:
            'conditions[0].expressions[0] ".*" matches the empty string, so it matches every request that has a value of path, and the rule blocks',
        },
      ],
    },
    {
      name: 'the same conditions on two hosts: nothing',
      files: {
        'rules.yaml': rulesFile([
          { description: 'low', priority: 'low', action: 'log' },
          { host: 'blog.example.com', description: 'high' },
        ]),
      },
      expected: [],
    },
    {
      name: 'a rule that only logs matching the empty string: nothing',
      files: { 'rules.yaml': rulesFile([{ description: 'all', expressions: ['.*'], action: 'log' }]) },
      expected: [],
    },
  ];

  it.each(cases)('$name', ({ files, expected }) => {
    const warnings = configWarnings(loaded(files));
    expect(warnings).toEqual(
      expected.map(({ file, line, path, code, message }) => ({ file, line, col: 5, path, code, message })),
    );
  });

  it('sorts the findings by file, line and column, not by the rules', () => {
    const config = loaded({
      'b.yaml': rulesFile([{ description: 'b', expressions: ['.*'] }]),
      'a.yaml': rulesFile([
        { description: 'low', priority: 'low', action: 'log' },
        { description: 'a', expressions: ['x*'] },
        { description: 'high', priority: 'high' },
      ]),
    });
    expect(configWarnings(config).map(({ file, line, code }) => [file, line, code])).toEqual([
      ['a.yaml', lineOf(0), 'shadowed'],
      ['a.yaml', lineOf(1), 'matches_empty'],
      ['b.yaml', lineOf(0), 'matches_empty'],
    ]);
  });
});

describe('validationOf with warnings', () => {
  const files = {
    'rules.yaml': rulesFile([
      { description: 'low', priority: 'low', action: 'log' },
      { description: 'high', priority: 'high' },
    ]),
  };
  const line = `rules.yaml:${lineOf(0)}:5: warning: shadowed by ${HOST}/high (same host and conditions, higher priority): it can never decide; ${HOST}/high is at rules.yaml:${lineOf(1)}:5`;
  const warning = {
    file: 'rules.yaml',
    line: lineOf(0),
    col: 5,
    path: 'application_rules[0]',
    code: 'shadowed',
    message: `shadowed by ${HOST}/high (same host and conditions, higher priority): it can never decide; ${HOST}/high is at rules.yaml:${lineOf(1)}:5`,
  };

  it('without strict: valid, the warnings in the document, a line each, counted in the verdict', async () => {
    const outcome = await validationOf(async () => loaded(files));
    expect(outcome.json).toMatchObject({ valid: true, files: 1, application_rules: 2, warnings: [warning] });
    expect(outcome.warnings).toEqual([line]);
    expect(outcome.text).toBe(
      'Configuration is valid, 1 warning: 1 file, 0 groups, 2 application rules, 0 notifications, 0 schedules.',
    );
  });

  it('with strict: invalid, each warning also a problem, the verdict saying why', async () => {
    const outcome = await validationOf(async () => loaded(files), { strict: true });
    const { code: _, ...problem } = warning;
    expect(outcome.json).toEqual({ valid: false, problems: [problem], warnings: [warning] });
    expect(validationDocumentSchema.safeParse(outcome.json).success).toBe(true);
    expect(outcome.warnings).toEqual([line]);
    expect(outcome.text).toBe('Configuration is invalid: 1 warning, which --strict makes errors.');
  });

  it('with strict and no warnings: valid as without', async () => {
    const clean = { 'rules.yaml': rulesFile([{ description: 'only' }]) };
    const strict = await validationOf(async () => loaded(clean), { strict: true });
    expect(strict).toEqual(await validationOf(async () => loaded(clean)));
    expect(strict.json).toMatchObject({ valid: true, warnings: [] });
    expect(strict.text).toMatch(/^Configuration is valid: 1 file/);
  });

  it('a configuration with problems has no warnings, strict or not: the lint runs on one that loads', async () => {
    const result = validateSources(
      [
        { file: 'groups.yaml', text: 'groups: 1\n' },
        { file: 'rules.yaml', text: files['rules.yaml'] },
      ],
      { env: {} },
    );
    if (result.ok) throw new Error('expected problems');
    const broken = await validationOf(() => Promise.reject(new ConfigError(result.problems)), {
      strict: true,
    });
    expect(broken.json).toMatchObject({ valid: false, problems: [{ file: 'groups.yaml' }], warnings: [] });
    expect(broken.warnings).toEqual([]);
  });

  it('lists at most 100 warning lines per file, then how many more; the document holds every one', async () => {
    const many = Array.from({ length: 102 }, (_, i) => ({
      host: `h${i}.example.com`,
      description: 'all',
      expressions: ['.*'],
    }));
    const config = loaded({ 'rules.yaml': rulesFile(many) });
    const outcome = await validationOf(async () => config);
    expect(outcome.warnings).toHaveLength(101);
    expect(outcome.warnings.at(-1)).toBe('rules.yaml: warning: 2 more warnings in this file not shown');
    expect(outcome.json.warnings).toHaveLength(102);
    const strict = await validationOf(async () => config, { strict: true });
    expect(strict.json.valid === false && strict.json.problems.at(-1)).toMatchObject({ hidden: 2, line: 0 });
    expect(strict.text).toBe('Configuration is invalid: 102 warnings, which --strict makes errors.');
  });
});
