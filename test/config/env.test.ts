/* biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are variable references in YAML, not template mistakes */
import { describe, expect, it } from 'vitest';
import {
  credentialReason,
  credentialWord,
  type Environment,
  isAllowedVariable,
  substituteVariables,
} from '../../src/config/env.js';
import { formatProblem } from '../../src/config/problems.js';
import type { ReadOptions } from '../../src/config/read-sources.js';
import { validateSources } from '../../src/config/validate-sources.js';

/** The syntax tests declare every name they use: the allow-list has its own tests below. */
const DECLARED = new Set(['TEAM', 'EMPTY', 'MISSING', 'A', 'B', 'C', 'W', 'X', 'Y', 'Z']);
const sub = (text: string, env: Environment) => substituteVariables(text, { env, declared: DECLARED });

describe('substituteVariables', () => {
  const env = { TEAM: 'soc', EMPTY: '' };

  it('replaces ${VAR} with its value, anywhere in the string', () => {
    expect(sub('team ${TEAM}, again ${TEAM}', env)).toEqual({
      value: 'team soc, again soc',
      problems: [],
    });
  });

  it('uses the default of ${VAR:-default} when VAR is unset or empty, the value otherwise', () => {
    expect(sub('${MISSING:-ops}', env).value).toBe('ops');
    expect(sub('${EMPTY:-ops}', env).value).toBe('ops');
    expect(sub('${TEAM:-ops}', env).value).toBe('soc');
    expect(sub('${MISSING:-}', env).value).toBe('');
    expect(sub('${MISSING:-a:b c}', env).value).toBe('a:b c');
  });

  it('writes $${ as a literal ${ and does not substitute after it', () => {
    expect(sub('$${TEAM} is ${TEAM}', env)).toEqual({
      value: '${TEAM} is soc',
      problems: [],
    });
    expect(sub('cost: $5, $$', env).value).toBe('cost: $5, $$');
  });

  it('keeps a set-but-empty variable without default as the empty string', () => {
    expect(sub('[${EMPTY}]', env)).toEqual({ value: '[]', problems: [] });
  });

  it('reports every unset variable and malformed reference, numbered by reference', () => {
    const result = sub('${A} ${TEAM} ${B} ${1X} ${open', env);
    expect(result.problems.map((p) => p.reference)).toEqual([0, 2, 3, 4]);
    expect(result.problems[0]?.message).toBe(
      'environment variable A is not set (use ${A:-default} for a default)',
    );
    expect(result.problems[2]?.message).toContain('invalid variable reference "${1X}"');
    expect(result.problems[3]?.message).toContain('invalid variable reference "${open"');
  });
});

describe('nested defaults', () => {
  const env = { A: 'a', B: 'b', EMPTY: '' };
  const value = (text: string, vars: Record<string, string> = env) => sub(text, vars);

  it.each([
    ['${A:-${B}}', { A: 'a', B: 'b' }, 'a'],
    ['${A:-${B}}', { B: 'b' }, 'b'],
    ['${A:-${B}}', { A: '', B: 'b' }, 'b'],
    ['${A:-${B}}', { A: 'a' }, 'a'],
    ['${A:-${B:-literal}}', {}, 'literal'],
    ['${A:-${B:-literal}}', { B: 'b' }, 'b'],
    ['${A:-${B:-literal}}', { A: 'a' }, 'a'],
    ['${A:-${B:-literal}}', { B: '' }, 'literal'],
    ['${A:-prefix-${B}-suffix}', { B: 'b' }, 'prefix-b-suffix'],
    ['${A:-prefix-${B}-suffix}', { A: 'a', B: 'b' }, 'a'],
    ['${A:-${B:-${C:-deep}}}', {}, 'deep'],
    ['${A:-${B:-${C:-deep}}}', { C: 'c' }, 'c'],
    ['x ${A:-${B}} y ${A:-${B}} z', { B: 'b' }, 'x b y b z'],
    ['${A:-${B}-${C}}', { B: 'b', C: 'c' }, 'b-c'],
  ])('%s with %j is %j', (text, vars, expected) => {
    expect(sub(text, vars)).toEqual({ value: expected, problems: [] });
  });

  it('keeps $${ literal inside a default, and a } after the reference is plain text', () => {
    expect(value('${MISSING:-$${B}}').value).toBe('${B}');
    expect(value('${MISSING:-a$${B}b}').value).toBe('a${Bb}');
    expect(value('${MISSING:-x}}').value).toBe('x}');
    expect(value('${A:-x}}').value).toBe('a}');
  });

  it('an unset variable without a default is an error at any depth, when its default is needed', () => {
    const result = value('${A:-x} ${X:-${Y}} ${X:-${Z:-${W}}}');
    expect(result.problems).toEqual([
      {
        reference: 2,
        message:
          'environment variable Y is not set (use ${Y:-default} for a default); it is needed because X is unset or empty',
      },
      {
        reference: 5,
        message:
          'environment variable W is not set (use ${W:-default} for a default); it is needed because Z is unset or empty',
      },
    ]);
    // A set outer variable never reads its default: nothing in it needs to be set.
    expect(value('${A:-${Y}}')).toEqual({ value: 'a', problems: [] });
    expect(value('${EMPTY:-${Y}}').problems.map((p) => p.reference)).toEqual([1]);
  });

  it('reports a malformed reference inside a default even when the default is not used', () => {
    const result = value('${A:-${1X}} ${MISSING:-${B x}}');
    expect(result.problems.map((p) => [p.reference, p.message])).toEqual([
      [
        1,
        'invalid variable reference "${1X}": expected ${NAME} or ${NAME:-default} (write $${ for a literal ${)',
      ],
      [
        3,
        'invalid variable reference "${B x}": expected ${NAME} or ${NAME:-default} (write $${ for a literal ${)',
      ],
    ]);
  });

  it('an unterminated ${ is an error, at any depth, and the text stays as written', () => {
    expect(value('${A:-${B}')).toEqual({
      value: '${A:-${B}',
      problems: [
        {
          reference: 0,
          message:
            'invalid variable reference "${A:-${B}": no closing }; expected ${NAME} or ${NAME:-default} (write $${ for a literal ${)',
        },
      ],
    });
    expect(value('${A:-${B:-x}').problems.map((p) => p.reference)).toEqual([0]);
    expect(value('ok ${B} then ${A').problems.map((p) => p.reference)).toEqual([1]);
    expect(value('${MISSING:-').problems[0]?.message).toContain('no closing }');
  });

  it('quotes at most 60 characters of a malformed reference', () => {
    const message = value(`\${MISSING:-${'x'.repeat(1000)}`).problems[0]?.message ?? '';
    expect(message).toBe(
      `invalid variable reference "\${MISSING:-${'x'.repeat(49)}...": no closing }; expected \${NAME} or \${NAME:-default} (write $\${ for a literal \${)`,
    );
  });

  it('reads deep nesting without recursion (no stack overflow, linear time)', () => {
    const depth = 200_000;
    const deep = `${'${X:-'.repeat(depth)}bottom${'}'.repeat(depth)}`;
    expect(sub(deep, {})).toEqual({ value: 'bottom', problems: [] });
    const unclosed = sub('${X:-'.repeat(depth), {});
    expect(unclosed.problems.map((p) => p.reference)).toEqual([0]);
  });
});

describe('substitution in files', () => {
  // Read as a trusted ref's files are: their `variables:` is the allow-list (the tests below declare
  // the names they use; what declares is tested under "the allow-list").
  const load = (text: string, env: Record<string, string>) =>
    validateSources([{ file: 'f.yaml', text }], { env, allowList: 'own' });

  it('applies to string values, never to keys, and values stay strings', () => {
    const text = [
      'notifications:',
      '  - name: ${NAME}',
      '    settings:',
      '      destination_address: ${ADDR:-10.0.0.5}',
      '      destination_port: 514',
      '      format: ${FORMAT}',
      '      protocol: udp',
      'variables: [NAME, ADDR, FORMAT]',
    ].join('\n');
    const result = load(text, { NAME: 'splunk', FORMAT: 'json' });
    expect(result.ok && result.config.state.notifications[0]).toMatchObject({
      name: 'splunk',
      settings: { destination_address: '10.0.0.5', format: 'json', destination_port: 514 },
    });
    const keyed = load('${KEY}: []\nvariables: [KEY]\n', { KEY: 'groups' });
    expect(keyed.ok ? [] : keyed.problems.map(formatProblem)).toEqual(['f.yaml:1:1: unknown field "${KEY}"']);
  });

  it('an unset variable is reported at its ${, in plain, quoted and block scalars', () => {
    const text = [
      'groups:',
      '  - name: a ${X}',
      '    description: "b ${Y}"',
      '    users:',
      '      - |',
      '        c',
      '        d ${Z}',
      'variables: [X, Y, Z]',
    ].join('\n');
    const result = load(text, {});
    expect(result.ok ? [] : result.problems.map((p) => `${p.line}:${p.col} ${p.path}`)).toEqual([
      '2:13 groups[0].name',
      '3:21 groups[0].description',
      '7:11 groups[0].users[0]',
    ]);
  });

  it('places a nested unset variable at its own ${, and an unterminated reference at its first ${', () => {
    const text = [
      'groups:',
      '  - name: ${NAME:-${TEAM}}',
      '    description: "x ${D:-pre ${OWNER} post}"',
      '  - name: ${OTHER:-${BROKEN:-y}',
      'variables: [NAME, TEAM, D, OWNER, OTHER, BROKEN]',
    ].join('\n');
    const result = load(text, {});
    expect(result.ok ? [] : result.problems.map((p) => `${p.line}:${p.col} ${p.path}: ${p.message}`)).toEqual(
      [
        '2:19 groups[0].name: environment variable TEAM is not set (use ${TEAM:-default} for a default); it is needed because NAME is unset or empty',
        '3:30 groups[0].description: environment variable OWNER is not set (use ${OWNER:-default} for a default); it is needed because D is unset or empty',
        '4:11 groups[1].name: invalid variable reference "${OTHER:-${BROKEN:-y}": no closing }; expected ${NAME} or ${NAME:-default} (write $${ for a literal ${)',
      ],
    );
    const set = load([...text.split('\n').slice(0, 3), 'variables: [NAME, TEAM, D, OWNER]'].join('\n'), {
      TEAM: 'soc',
      OWNER: 'me',
    });
    expect(set.ok && set.config.state.groups[0]).toMatchObject({ name: 'soc', description: 'x pre me post' });
  });

  it('a value with a substitution problem gets no second, schema complaint', () => {
    const text =
      'notifications:\n  - name: n\n    type: ${WAFCTL_VAR_TYPE}\n    settings: {destination_address: 10.0.0.5, destination_port: 1, format: cef, protocol: udp}\n';
    const result = load(text, {});
    expect(result.ok ? [] : result.problems.map((p) => p.message)).toEqual([
      'environment variable WAFCTL_VAR_TYPE is not set (use ${WAFCTL_VAR_TYPE:-default} for a default)',
    ]);
  });
});

describe('the allow-list', () => {
  const secret = 'glpat-SECRET-VALUE';
  const env = { GITLAB_API_TOKEN: secret, PGPASSWORD: secret, WAFCTL_VAR_REGION: 'eu', TEAM: 'soc' };
  const load = (files: Record<string, string>, options: Partial<ReadOptions> = {}) =>
    validateSources(
      Object.entries(files).map(([file, text]) => ({ file, text })),
      { env, ...options },
    );
  const lines = (result: ReturnType<typeof load>) => (result.ok ? [] : result.problems.map(formatProblem));

  it('reads WAFCTL_VAR_* variables by their full name, without a declaration', () => {
    const result = load({ 'g.yaml': 'groups:\n  - name: soc-${WAFCTL_VAR_REGION}\n' });
    expect(result.ok && result.config.state.groups[0]?.name).toBe('soc-eu');
  });

  it('refuses any other name, set or not, with or without a default, used or not, and never reads it', () => {
    const text = [
      'groups:',
      '  - name: a',
      '    description: "${GITLAB_API_TOKEN}"',
      '  - name: b',
      '    description: ${GITLAB_API_TOKEN:-x}',
      '  - name: c',
      '    description: ${WAFCTL_VAR_REGION:-${HOME}}',
    ].join('\n');
    const result = load({ 'g.yaml': text });
    const found = lines(result);
    expect(found.map((line) => line.split(': variable ')[0])).toEqual([
      'g.yaml:3:19 groups[0].description',
      'g.yaml:5:18 groups[1].description',
      'g.yaml:7:39 groups[2].description',
    ]);
    expect(found[0]).toContain('export the value as WAFCTL_VAR_GITLAB_API_TOKEN');
    expect(found.join('\n')).not.toContain(secret);
  });

  it('without a trusted ref, refuses every name variables: declares, saying how to export it, and reads none', () => {
    // The replay of issue 50: names no list of words catches, each refused at its place.
    const text = [
      'variables: [PGPASSWORD, TEAM]',
      'groups:',
      '  - name: a',
      '    description: "${PGPASSWORD} ${TEAM}"',
    ].join('\n');
    const found = lines(load({ 'g.yaml': text }));
    expect(found.slice(0, 2)).toEqual([
      'g.yaml:1:13 variables[0]: PGPASSWORD cannot be declared here: without a trusted ref, variables: would let a pull request read any variable of the job; export the value as WAFCTL_VAR_PGPASSWORD and write ${WAFCTL_VAR_PGPASSWORD}, or pin the list with --trusted-ref REF',
      'g.yaml:1:25 variables[1]: TEAM cannot be declared here: without a trusted ref, variables: would let a pull request read any variable of the job; export the value as WAFCTL_VAR_TEAM and write ${WAFCTL_VAR_TEAM}, or pin the list with --trusted-ref REF',
    ]);
    expect(found.slice(2).map((line) => line.split(' is not allowed')[0])).toEqual([
      'g.yaml:4:19 groups[0].description: variable PGPASSWORD',
      'g.yaml:4:33 groups[0].description: variable TEAM',
    ]);
    expect(found.join('\n')).not.toContain(secret);
  });

  it("in a trusted ref's own files, reads a name variables: declares in any file, before or after its use", () => {
    const result = load(
      {
        'a.yaml': 'groups:\n  - name: ${TEAM}\n',
        'b.yaml': 'variables: [TEAM]\n',
        'c.yaml': 'variables: [TEAM]\ngroups:\n  - name: ${TEAM}-2\n',
      },
      { allowList: 'own' },
    );
    expect(result.ok && result.config.state.groups.map((g) => g.name)).toEqual(['soc', 'soc-2']);
    expect(result.ok && [...result.config.variables.declared]).toEqual(['TEAM']);
  });

  it("under a trusted ref, reads the ref's names: the work tree's own list widens nothing and is not refused", () => {
    const files = {
      'g.yaml': 'variables: [PGPASSWORD]\ngroups:\n  - name: ${TEAM}\n    description: ${PGPASSWORD}\n',
    };
    const result = load(files, { allowList: { trustedRef: new Set(['TEAM']) } });
    const found = lines(result);
    expect(found.map((line) => line.split(' is not allowed')[0])).toEqual([
      'g.yaml:4:18 groups[0].description: variable PGPASSWORD',
    ]);
    expect(found.join('\n')).not.toContain(secret);
    const declaredOnly = load(
      { 'g.yaml': 'variables: [PGPASSWORD]\ngroups:\n  - name: ${TEAM}\n' },
      {
        allowList: { trustedRef: new Set(['TEAM']) },
      },
    );
    expect(declaredOnly.ok && declaredOnly.config.state.groups[0]?.name).toBe('soc');
    // What the work tree declares is kept as data, for the plan's Trust section.
    expect(declaredOnly.ok && [...declaredOnly.config.declaredVariables]).toEqual(['PGPASSWORD']);
  });

  it('a declaration is a list of names: anything else is a schema problem at its place', () => {
    expect(lines(load({ 'v.yaml': 'variables: TEAM\n' }, { allowList: 'own' }))).toEqual([
      'v.yaml:1:12 variables: expected a list, got string "TEAM"',
    ]);
  });
});

describe('credential variables (issue 39)', () => {
  it("are wafctl's own or an environment's, known by construction; a name only makes a warning", () => {
    const credentials = new Map([['PROD_AUTH', 'token_env of environment production in wafctl.yaml']]);
    expect(credentialReason('PROD_AUTH', credentials)).toBe(
      'a credential variable (token_env of environment production in wafctl.yaml)',
    );
    expect(credentialReason('WAF_URL')).toBe("one of wafctl's own variables (WAF_*)");
    // A name is no proof: words only make a warning (credentialWord), never a refusal.
    for (const [name, word] of [
      ['CI_JOB_TOKEN', 'TOKEN'],
      ['db_password', 'PASSWORD'],
      ['AWS_SECRET_ACCESS_KEY', 'SECRET'],
      ['DEPLOY_SECRETS', 'SECRETS'],
      ['STRIPE_API_KEY', 'API_KEY'],
      ['GCP_CREDENTIALS', 'CREDENTIALS'],
      ['SENTRY_DSN', 'DSN'],
    ]) {
      expect([name, credentialReason(name ?? ''), credentialWord(name ?? '')]).toEqual([
        name,
        undefined,
        word,
      ]);
    }
    for (const name of ['SIEM_ADDRESS', 'TOKENIZER_URL', 'KEY', 'PARTITION_KEY', 'PGPASSWORD']) {
      expect([name, credentialWord(name)]).toEqual([name, undefined]);
    }
    // Declared or prefixed, a credential is never read.
    const rules = { declared: new Set(['PROD_AUTH', 'SIEM_ADDRESS']), credentials };
    expect(isAllowedVariable('PROD_AUTH', rules)).toBe(false);
    expect(isAllowedVariable('SIEM_ADDRESS', rules)).toBe(true);
    expect(
      isAllowedVariable('WAFCTL_VAR_X', {
        declared: new Set(),
        credentials: new Map([['WAFCTL_VAR_X', 'url_env']]),
      }),
    ).toBe(false);
  });
});
