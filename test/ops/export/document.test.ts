/* biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are `${VAR}` references in YAML, not template mistakes */
import { describe, expect, it } from 'vitest';
import { validateSources } from '../../../src/config/validate-sources.js';
import {
  type ExportSection,
  escapeSubstitutions,
  renderExportFile,
} from '../../../src/ops/export/document.js';

const TRICKY = [
  '${HOME}',
  '$${literal}',
  '$$${both}',
  'cost: $5',
  'a: b',
  '#not a comment',
  '*.example.com',
  'true',
  '123',
  'null',
  ' leading and trailing ',
  'it\'s "quoted"',
  'line one\nline two',
  'tab\there',
  'é ✓ 漢字',
  '- dash',
  '[not, a, list]',
];

function ruleWith(description: string, expressions: string[]) {
  return {
    rq_host: 'shop.example.com',
    description,
    priority: 'high',
    conditions: [{ operator: 'contains', expressions, targets: ['path'] }],
    actions: [{ firewall_action: 'block', firewall_name: 'waf-1' }],
  };
}

function load(text: string) {
  const result = validateSources([{ file: 'export.yaml', text }], { env: { HOME: '/root' } });
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.config.state;
}

describe('renderExportFile', () => {
  it('writes strings so that the loader reads back exactly the same values (${ escaped as $${)', () => {
    const rules = TRICKY.map((s, i) => ruleWith(`${i} ${s}`, [s]));
    const text = renderExportFile([{ section: 'application_rules', objects: rules, leftOut: 0 }], 'x.json');
    const state = load(text);
    expect(state.application_rules.map((r) => r.description)).toEqual(rules.map((r) => r.description));
    expect(state.application_rules.map((r) => r.conditions[0]?.expressions)).toEqual(
      rules.map((r) => r.conditions[0]?.expressions),
    );
  });

  it('escapes every ${ in nested string values, and nothing else', () => {
    expect(escapeSubstitutions({ a: ['${X}', 'plain $ {'], b: 5, c: null, d: { e: 'x${Y}$${Z}' } })).toEqual({
      a: ['$${X}', 'plain $ {'],
      b: 5,
      c: null,
      d: { e: 'x$${Y}$$${Z}' },
    });
  });

  it('puts the schema comment and a manage block first; prune is on unless objects were left out', () => {
    const sections: ExportSection[] = [
      { section: 'groups', objects: [{ name: 'a', users: ['u-1', 'u-2'] }, { name: 'b' }], leftOut: 0 },
      { section: 'application_rules', objects: [], leftOut: 2 },
    ];
    expect(renderExportFile(sections, '../schemas/wafctl.schema.json')).toBe(
      [
        '# yaml-language-server: $schema=../schemas/wafctl.schema.json',
        'manage:',
        '  groups:',
        '    prune: true',
        '  application_rules:',
        '    # prune is off: 2 application rules could not be exported (see the warnings of `wafctl export`),',
        '    # and pruning would delete them.',
        '    prune: false',
        '',
        'groups:',
        '  - name: a',
        '    users: [u-1, u-2]',
        '',
        '  - name: b',
        '',
        'application_rules: []',
        '',
      ].join('\n'),
    );
    const state = load(renderExportFile(sections, 'x.json'));
    expect(state.manage.groups).toEqual({ prune: true, match: {} });
    expect(state.manage.application_rules).toEqual({ prune: false, match: {} });
  });

  it('writes short lists of scalars inline and long ones one item per line', () => {
    const many = Array.from({ length: 12 }, (_, i) => `user-${i}@example.com`);
    const text = renderExportFile(
      [
        {
          section: 'schedules',
          objects: [{ name: 'w', hosts: ['a', 'b'], send_to: many }],
          leftOut: 0,
        },
      ],
      'x.json',
    );
    expect(text).toContain('    hosts: [a, b]\n');
    expect(text).toContain('    send_to:\n      - user-0@example.com\n      - user-1@example.com\n');
  });

  it('is deterministic: the same input gives the same bytes', () => {
    const sections: ExportSection[] = [
      { section: 'notifications', objects: [{ name: 'n', enabled: false }], leftOut: 0 },
    ];
    expect(renderExportFile(sections, 's')).toBe(renderExportFile(structuredClone(sections), 's'));
  });
});
