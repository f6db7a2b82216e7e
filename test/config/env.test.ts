/* biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are variable references in YAML, not template mistakes */
import { describe, expect, it } from 'vitest';
import { substituteVariables } from '../../src/config/env.js';
import { formatProblem } from '../../src/config/problems.js';
import { validateSources } from '../../src/config/validate-sources.js';

describe('substituteVariables', () => {
  const env = { TEAM: 'soc', EMPTY: '' };

  it('replaces ${VAR} with its value, anywhere in the string', () => {
    expect(substituteVariables('team ${TEAM}, again ${TEAM}', env)).toEqual({
      value: 'team soc, again soc',
      problems: [],
    });
  });

  it('uses the default of ${VAR:-default} when VAR is unset or empty, the value otherwise', () => {
    expect(substituteVariables('${MISSING:-ops}', env).value).toBe('ops');
    expect(substituteVariables('${EMPTY:-ops}', env).value).toBe('ops');
    expect(substituteVariables('${TEAM:-ops}', env).value).toBe('soc');
    expect(substituteVariables('${MISSING:-}', env).value).toBe('');
    expect(substituteVariables('${MISSING:-a:b c}', env).value).toBe('a:b c');
  });

  it('writes $${ as a literal ${ and does not substitute after it', () => {
    expect(substituteVariables('$${TEAM} is ${TEAM}', env)).toEqual({
      value: '${TEAM} is soc',
      problems: [],
    });
    expect(substituteVariables('cost: $5, $$', env).value).toBe('cost: $5, $$');
  });

  it('keeps a set-but-empty variable without default as the empty string', () => {
    expect(substituteVariables('[${EMPTY}]', env)).toEqual({ value: '[]', problems: [] });
  });

  it('reports every unset variable and malformed reference, numbered by reference', () => {
    const result = substituteVariables('${A} ${TEAM} ${B} ${1X} ${open', env);
    expect(result.problems.map((p) => p.reference)).toEqual([0, 2, 3, 4]);
    expect(result.problems[0]?.message).toBe(
      'environment variable A is not set (use ${A:-default} for a default)',
    );
    expect(result.problems[2]?.message).toContain('invalid variable reference "${1X}"');
    expect(result.problems[3]?.message).toContain('invalid variable reference "${open"');
  });
});

describe('substitution in files', () => {
  const load = (text: string, env: Record<string, string>) =>
    validateSources([{ file: 'f.yaml', text }], { env });

  it('applies to string values, never to keys, and values stay strings', () => {
    const text = [
      'notifications:',
      '  - name: ${NAME}',
      '    settings:',
      '      destination_address: ${ADDR:-10.0.0.5}',
      '      destination_port: 514',
      '      format: ${FORMAT}',
      '      protocol: udp',
    ].join('\n');
    const result = load(text, { NAME: 'splunk', FORMAT: 'json' });
    expect(result.ok && result.config.state.notifications[0]).toMatchObject({
      name: 'splunk',
      settings: { destination_address: '10.0.0.5', format: 'json', destination_port: 514 },
    });
    const keyed = load('${KEY}: []\n', { KEY: 'groups' });
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
    ].join('\n');
    const result = load(text, {});
    expect(result.ok ? [] : result.problems.map((p) => `${p.line}:${p.col} ${p.path}`)).toEqual([
      '2:13 groups[0].name',
      '3:21 groups[0].description',
      '7:11 groups[0].users[0]',
    ]);
  });

  it('a value with a substitution problem gets no second, schema complaint', () => {
    const text =
      'notifications:\n  - name: n\n    type: ${TYPE}\n    settings: {destination_address: 10.0.0.5, destination_port: 1, format: cef, protocol: udp}\n';
    const result = load(text, {});
    expect(result.ok ? [] : result.problems.map((p) => p.message)).toEqual([
      'environment variable TYPE is not set (use ${TYPE:-default} for a default)',
    ]);
  });
});
