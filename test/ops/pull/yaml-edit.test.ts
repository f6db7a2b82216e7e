/* biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are `${VAR}` references in YAML, not template mistakes */
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { substituteVariables } from '../../../src/config/env.js';
import { SCHEMA_OPTIONS } from '../../../src/config/parse-yaml.js';
import type { YamlEdit } from '../../../src/ops/pull/model.js';
import { editYaml, valueOrigin, YamlEditError } from '../../../src/ops/pull/yaml-edit.js';

/** What the loader reads (before variable substitution). */
function data(text: string): unknown[] {
  return parseAllDocuments(text, SCHEMA_OPTIONS).map((doc) => doc.toJS());
}

/** The one span that changed: [what it was, what it became]; everything around it is byte-identical. */
function changed(before: string, after: string): [string, string] {
  let head = 0;
  while (head < before.length && before[head] === after[head]) head++;
  let tail = 0;
  while (
    tail < before.length - head &&
    tail < after.length - head &&
    before[before.length - 1 - tail] === after[after.length - 1 - tail]
  )
    tail++;
  return [before.slice(head, before.length - tail), after.slice(head, after.length - tail)];
}

/** `source` with its one occurrence of `was` replaced: the expected text around an edit. */
function replaceOnce(source: string, was: string, becomes: string): string {
  expect(source.split(was)).toHaveLength(2);
  return source.replace(was, () => becomes);
}

const set = (path: (string | number)[], value: unknown, document = 0): YamlEdit => ({
  op: 'set',
  document,
  path,
  value,
});
const remove = (path: (string | number)[], document = 0): YamlEdit => ({ op: 'remove', document, path });
const append = (path: (string | number)[], values: unknown[], document = 0): YamlEdit => ({
  op: 'append',
  document,
  path,
  values,
});

function errorOf(source: string, edits: YamlEdit[]): YamlEditError {
  try {
    editYaml(source, edits);
  } catch (error) {
    if (error instanceof YamlEditError) return error;
    throw error;
  }
  throw new Error('expected a YamlEditError');
}

/** Indented sequences, 2 spaces, comments on keys, items and own lines, blank lines between items. */
const GROUPS = `# yaml-language-server: $schema=../wafctl.schema.json
groups:   # who may do what
  # Tier 1
  - name: soc-analysts   # natural key
    description: 'Tier-1 analysts'
    users: [u-1001, u-1002]

  # Tier 2
  - name: soc-leads
    is_admin: true
    permissions:
      - permission: Explore alerts
        service_id: svc-shop   # the shop only

  - name: auditors
    description: "Read only"

notifications:
  - name: splunk
    type: siem
    settings: {destination_address: 10.0.0.5, destination_port: 514}
`;

/** Non-indented sequences (`- ` at the key's column), no blank lines. */
const RULES = `application_rules:
- rq_host: shop.example.com
  description: Block admin panel   # shown in the console
  priority: high
  conditions:
  - operator: match
    expressions:
    - ^/admin
    - ^/wp-admin
    targets: [path]
  actions:
  - firewall_action: block
    firewall_name: waf-eu-1
`;

/** 4-space indentation. */
const FOUR = `notifications:
    - name: splunk
      enabled: true
      settings:
          destination_address: 10.0.0.5
          destination_port: 514    # syslog
          format: cef
`;

describe('editYaml: no edits', () => {
  it.each([
    ['indented', GROUPS],
    ['non-indented', RULES],
    ['CRLF without a final newline', 'a: 1\r\nb: [x]\r\n# end'],
    ['two documents', `${FOUR}---\n${RULES}`],
    ['empty', ''],
  ])('returns the source unchanged (%s)', (_, source) => {
    expect(editYaml(source, [])).toBe(source);
  });
});

describe('editYaml: set a scalar', () => {
  it.each([
    ['a plain string stays plain', ['groups', 1, 'name'], 'red-team', ['name: soc-leads', 'name: red-team']],
    [
      'a single-quoted string stays single-quoted',
      ['groups', 0, 'description'],
      "Tier 1's",
      ["description: 'Tier-1 analysts'", "description: 'Tier 1''s'"],
    ],
    [
      'a double-quoted string stays double-quoted',
      ['groups', 2, 'description'],
      'Auditors',
      ['description: "Read only"', 'description: "Auditors"'],
    ],
    ['a boolean', ['groups', 1, 'is_admin'], false, ['is_admin: true', 'is_admin: false']],
    [
      'a string that reads as a boolean is quoted',
      ['groups', 1, 'is_admin'],
      'true',
      ['is_admin: true', 'is_admin: "true"'],
    ],
    [
      'a string that reads as a number is quoted',
      ['groups', 1, 'name'],
      '514',
      ['name: soc-leads', 'name: "514"'],
    ],
    [
      'a string that needs quotes',
      ['groups', 1, 'name'],
      '#1: leads',
      ['name: soc-leads', 'name: "#1: leads"'],
    ],
    [
      'a ${ is written as $${',
      ['groups', 1, 'name'],
      '${jndi:ldap://x}',
      ['name: soc-leads', 'name: $${jndi:ldap://x}'],
    ],
    [
      'in a flow mapping, a number',
      ['notifications', 0, 'settings', 'destination_port'],
      1514,
      ['destination_port: 514}', 'destination_port: 1514}'],
    ],
    [
      'in a flow list, quoted as a flow item needs',
      ['groups', 0, 'users', 1],
      'u-1003, u-1004',
      ['[u-1001, u-1002]', '[u-1001, "u-1003, u-1004"]'],
    ],
    [
      'with a comment after it',
      ['groups', 1, 'permissions', 0, 'service_id'],
      'svc-blog',
      ['service_id: svc-shop   # the shop only', 'service_id: svc-blog   # the shop only'],
    ],
  ])('%s', (_, path, value, [was, becomes]) => {
    const after = editYaml(GROUPS, [set(path as (string | number)[], value)]);
    expect(after).toBe(replaceOnce(GROUPS, was as string, becomes as string));
    const read = data(after)[0] as Record<string, Record<string, unknown>[]>;
    const got = (path as (string | number)[]).reduce<unknown>(
      (node, segment) => (node as Record<string | number, unknown>)[segment],
      read,
    );
    expect(
      typeof value === 'string'
        ? substituteVariables(got as string, { env: {}, declared: new Set() }).value
        : got,
    ).toEqual(value);
  });

  it('keeps the comment on the key line (4-space file)', () => {
    const after = editYaml(FOUR, [set(['notifications', 0, 'settings', 'destination_port'], 6514)]);
    expect(after).toBe(`notifications:
    - name: splunk
      enabled: true
      settings:
          destination_address: 10.0.0.5
          destination_port: 6514    # syslog
          format: cef
`);
  });

  it('writes an empty value (`key:`) after a space', () => {
    expect(editYaml('a:\nb: 1\n', [set(['a'], 'x')])).toBe('a: x\nb: 1\n');
  });

  it('keeps a block scalar a block scalar for a multi-line string, else writes one line', () => {
    const source = 'description: |\n  line one\n  line two\nnext: 1\n';
    expect(editYaml(source, [set(['description'], 'one\ntwo\nthree\n')])).toBe(
      'description: |\n  one\n  two\n  three\nnext: 1\n',
    );
    expect(editYaml(source, [set(['description'], 'one line')])).toBe('description: one line\nnext: 1\n');
  });

  it('writes a multi-line string on one line (double-quoted) in place of a plain scalar', () => {
    expect(editYaml('a: x   # c\n', [set(['a'], 'one\ntwo')])).toBe('a: "one\\ntwo"   # c\n');
  });
});

describe('editYaml: set a collection', () => {
  it('keeps a flow list flow, with wafctl spacing', () => {
    const after = editYaml(GROUPS, [set(['groups', 0, 'users'], ['u-1', 'u-2', 'u-3'])]);
    expect(after).toBe(replaceOnce(GROUPS, 'users: [u-1001, u-1002]', 'users: [u-1, u-2, u-3]'));
  });

  it('keeps a flow mapping flow', () => {
    const after = editYaml(GROUPS, [
      set(['notifications', 0, 'settings'], { destination_port: 514, format: 'cef' }),
    ]);
    expect(after).toBe(
      replaceOnce(
        GROUPS,
        'settings: {destination_address: 10.0.0.5, destination_port: 514}',
        'settings: {destination_port: 514, format: cef}',
      ),
    );
  });

  it('keeps a block list block, indented like the one it replaces (non-indented file)', () => {
    const after = editYaml(RULES, [set(['application_rules', 0, 'conditions', 0, 'expressions'], ['^/x'])]);
    expect(after).toBe(`application_rules:
- rq_host: shop.example.com
  description: Block admin panel   # shown in the console
  priority: high
  conditions:
  - operator: match
    expressions:
    - ^/x
    targets: [path]
  actions:
  - firewall_action: block
    firewall_name: waf-eu-1
`);
  });

  it('writes a block mapping in place of a scalar on the next lines, the comment staying on the key line', () => {
    const after = editYaml(FOUR, [set(['notifications', 0, 'enabled'], { a: 1, b: [{ c: 'x', d: 'y ' }] })]);
    expect(after).toBe(`notifications:
    - name: splunk
      enabled:
          a: 1
          b:
              - c: x
                d: "y "
      settings:
          destination_address: 10.0.0.5
          destination_port: 514    # syslog
          format: cef
`);
  });

  it('writes `key: []` in place of a block collection, keeping the comment of the key line', () => {
    const after = editYaml(GROUPS, [set(['groups'], [])]);
    expect(after).toBe(`# yaml-language-server: $schema=../wafctl.schema.json
groups: []   # who may do what

notifications:
  - name: splunk
    type: siem
    settings: {destination_address: 10.0.0.5, destination_port: 514}
`);
  });
});

describe('editYaml: add a key', () => {
  it('to a block mapping: after its last pair, indented like its keys (enabled: false on a group)', () => {
    const after = editYaml(GROUPS, [
      set(['groups', 1, 'enabled'], false),
      set(['groups', 2, 'users'], ['u-1']),
    ]);
    expect(after).toBe(`# yaml-language-server: $schema=../wafctl.schema.json
groups:   # who may do what
  # Tier 1
  - name: soc-analysts   # natural key
    description: 'Tier-1 analysts'
    users: [u-1001, u-1002]

  # Tier 2
  - name: soc-leads
    is_admin: true
    permissions:
      - permission: Explore alerts
        service_id: svc-shop   # the shop only
    enabled: false

  - name: auditors
    description: "Read only"
    users: [u-1]

notifications:
  - name: splunk
    type: siem
    settings: {destination_address: 10.0.0.5, destination_port: 514}
`);
  });

  it('to a flow mapping: `, key: value` before `}` (a settings sub-key)', () => {
    const after = editYaml(GROUPS, [set(['notifications', 0, 'settings', 'format'], 'cef')]);
    expect(changed(GROUPS, after)).toEqual(['', ', format: cef']);
  });

  it('to a 4-space block mapping, after a last pair that has a comment', () => {
    const after = editYaml(FOUR, [set(['notifications', 0, 'settings', 'protocol'], 'udp')]);
    expect(changed(FOUR, after)).toEqual(['', '          protocol: udp\n']);
    expect(data(after)).toEqual([
      {
        notifications: [
          {
            name: 'splunk',
            enabled: true,
            settings: {
              destination_address: '10.0.0.5',
              destination_port: 514,
              format: 'cef',
              protocol: 'udp',
            },
          },
        ],
      },
    ]);
  });
});

describe('editYaml: set members removed and appended', () => {
  it('in flow and block lists in one call', () => {
    const after = editYaml(RULES, [
      remove(['application_rules', 0, 'conditions', 0, 'expressions', 0]),
      append(['application_rules', 0, 'conditions', 0, 'expressions'], ['^/phpmyadmin', '${not a var}']),
      remove(['application_rules', 0, 'conditions', 0, 'targets', 0]),
      append(['application_rules', 0, 'conditions', 0, 'targets'], ['query', 'body']),
    ]);
    expect(after).toBe(`application_rules:
- rq_host: shop.example.com
  description: Block admin panel   # shown in the console
  priority: high
  conditions:
  - operator: match
    expressions:
    - ^/wp-admin
    - ^/phpmyadmin
    - $\${not a var}
    targets: [query, body]
  actions:
  - firewall_action: block
    firewall_name: waf-eu-1
`);
  });

  it('in a flow list: the middle, the last and all of them', () => {
    const source = 'users: [a, b, c]   # members\n';
    expect(editYaml(source, [remove(['users', 1])])).toBe('users: [a, c]   # members\n');
    expect(editYaml(source, [remove(['users', 2]), append(['users'], ['d'])])).toBe(
      'users: [a, b, d]   # members\n',
    );
    expect(editYaml(source, [remove(['users', 0]), remove(['users', 1]), remove(['users', 2])])).toBe(
      'users: []   # members\n',
    );
    expect(editYaml('users: []\n', [append(['users'], ['x', 'y'])])).toBe('users: [x, y]\n');
  });

  it('removing the last item of a block list leaves `key: []`', () => {
    const after = editYaml(FOUR, [remove(['notifications', 0])]);
    expect(after).toBe('notifications: []\n');
  });
});

describe('editYaml: remove an object from a list', () => {
  it('from the middle, with the comment lines above it, leaving one blank line between its neighbours', () => {
    const after = editYaml(GROUPS, [remove(['groups', 1])]);
    expect(after).toBe(`# yaml-language-server: $schema=../wafctl.schema.json
groups:   # who may do what
  # Tier 1
  - name: soc-analysts   # natural key
    description: 'Tier-1 analysts'
    users: [u-1001, u-1002]

  - name: auditors
    description: "Read only"

notifications:
  - name: splunk
    type: siem
    settings: {destination_address: 10.0.0.5, destination_port: 514}
`);
  });

  it('from the end, with the blank line before it, and from the start, with the blank line after it', () => {
    expect(
      editYaml(GROUPS, [remove(['groups', 2]), remove(['groups', 0])]),
    ).toBe(`# yaml-language-server: $schema=../wafctl.schema.json
groups:   # who may do what
  # Tier 2
  - name: soc-leads
    is_admin: true
    permissions:
      - permission: Explore alerts
        service_id: svc-shop   # the shop only

notifications:
  - name: splunk
    type: siem
    settings: {destination_address: 10.0.0.5, destination_port: 514}
`);
  });

  it('a mapping pair, and the first pair of a `- key:` item', () => {
    const after = editYaml(RULES, [
      remove(['application_rules', 0, 'description']),
      remove(['application_rules', 0, 'actions', 0, 'firewall_action']),
    ]);
    expect(after).toBe(`application_rules:
- rq_host: shop.example.com
  priority: high
  conditions:
  - operator: match
    expressions:
    - ^/admin
    - ^/wp-admin
    targets: [path]
  actions:
  - firewall_name: waf-eu-1
`);
  });
});

describe('editYaml: append objects', () => {
  it('after the last item, separated by blank lines as the others are, keys in the given order', () => {
    const after = editYaml(GROUPS, [
      append(
        ['groups'],
        [
          {
            name: 'red-team',
            is_admin: true,
            users: ['u-7'],
            permissions: [{ permission: 'Handle rules', service_id: '' }],
          },
          { name: 'blue-team' },
        ],
      ),
    ]);
    expect(after).toBe(
      replaceOnce(
        GROUPS,
        '    description: "Read only"\n',
        `    description: "Read only"

  - name: red-team
    is_admin: true
    users: [u-7]
    permissions:
      - permission: Handle rules
        service_id: ""

  - name: blue-team
`,
      ),
    );
  });

  it('in place of the removed last item, non-indented', () => {
    const after = editYaml(RULES, [
      remove(['application_rules', 0]),
      append(
        ['application_rules'],
        [{ rq_host: 'blog.example.com', description: 'x', conditions: [{ targets: ['path'] }] }],
      ),
    ]);
    expect(after).toBe(`application_rules:
- rq_host: blog.example.com
  description: x
  conditions:
  - targets: [path]
`);
  });

  it('adds the key after the last top-level pair when the document lacks it', () => {
    const after = editYaml(FOUR, [append(['groups'], [{ name: 'g', users: [] }])]);
    expect(changed(FOUR, after)).toEqual(['', 'groups:\n    - name: g\n      users: []\n']);
  });

  it('writes the key at the top of an empty document, or of a file with only comments', () => {
    const source = 'a: 1\n---\n# nothing yet\n---\nb: 2\n';
    expect(editYaml(source, [append(['groups'], [{ name: 'g' }], 1)])).toBe(
      'a: 1\n---\n# nothing yet\ngroups:\n  - name: g\n---\nb: 2\n',
    );
    expect(editYaml('# schema\n', [append(['groups'], [{ name: 'g' }])])).toBe(
      '# schema\ngroups:\n  - name: g\n',
    );
    expect(editYaml('', [append(['groups'], [{ name: 'g' }])])).toBe('groups:\n  - name: g\n');
  });

  it('appends a new document when the index is the number of documents', () => {
    const after = editYaml(RULES, [
      append(['groups'], [{ name: 'g' }], 1),
      set(['settings'], { username: 'bot' }, 1),
    ]);
    expect(changed(RULES, after)).toEqual(['', '---\ngroups:\n- name: g\nsettings:\n  username: bot\n']);
    expect(data(after)[1]).toEqual({ groups: [{ name: 'g' }], settings: { username: 'bot' } });
  });
});

describe('editYaml: several kinds of edit in one call', () => {
  it('applies them all; a new item follows a key added to the last one; a new top-level key is spaced like the others', () => {
    const after = editYaml(GROUPS, [
      append(['groups'], [{ name: 'red-team' }]),
      set(['groups', 2, 'is_admin'], true),
      remove(['groups', 1]),
      set(['groups', 0, 'description'], 'Tier 1'),
      remove(['groups', 0, 'users', 0]),
      set(['notifications', 0, 'settings', 'format'], 'cef'),
      set(['manage'], { groups: { prune: true } }),
    ]);
    expect(after).toBe(`# yaml-language-server: $schema=../wafctl.schema.json
groups:   # who may do what
  # Tier 1
  - name: soc-analysts   # natural key
    description: 'Tier 1'
    users: [u-1002]

  - name: auditors
    description: "Read only"
    is_admin: true

  - name: red-team

notifications:
  - name: splunk
    type: siem
    settings: {destination_address: 10.0.0.5, destination_port: 514, format: cef}

manage:
  groups:
    prune: true
`);
    expect(data(after)).toEqual([
      {
        groups: [
          { name: 'soc-analysts', description: 'Tier 1', users: ['u-1002'] },
          { name: 'auditors', description: 'Read only', is_admin: true },
          { name: 'red-team' },
        ],
        notifications: [
          {
            name: 'splunk',
            type: 'siem',
            settings: { destination_address: '10.0.0.5', destination_port: 514, format: 'cef' },
          },
        ],
        manage: { groups: { prune: true } },
      },
    ]);
  });

  it('keeps an anchor on the node it edits', () => {
    const source = 'shared: &s\n  - a\nother: *s\n';
    expect(editYaml(source, [set(['shared'], ['b', 'c'])])).toBe('shared: &s\n  - b\n  - c\nother: *s\n');
  });

  it('turns an empty flow list that receives objects into a block one', () => {
    expect(editYaml('groups: []   # none yet\n', [append(['groups'], [{ name: 'g', users: ['u'] }])])).toBe(
      'groups:   # none yet\n  - name: g\n    users: [u]\n',
    );
  });
});

describe('editYaml: the rest of the file', () => {
  it('leaves the other document byte-identical', () => {
    const source = `${GROUPS}---\n${RULES}`;
    const after = editYaml(source, [set(['application_rules', 0, 'priority'], 'low', 1)]);
    expect(after.startsWith(`${GROUPS}---\n`)).toBe(true);
    expect(changed(source, after)).toEqual(['high', 'low']);
  });

  it('keeps CRLF line ends and a missing final newline', () => {
    const source = 'groups:\r\n  - name: a\r\n    users: [x]\r\n\r\n  - name: b\r\n    users: [y]';
    expect(editYaml(source, [remove(['groups', 1])])).toBe('groups:\r\n  - name: a\r\n    users: [x]');
    expect(editYaml(source, [append(['groups'], [{ name: 'c', is_admin: true }])])).toBe(
      `${source}\r\n\r\n  - name: c\r\n    is_admin: true`,
    );
    expect(editYaml(source, [set(['groups', 0, 'is_admin'], true)])).toBe(
      'groups:\r\n  - name: a\r\n    users: [x]\r\n    is_admin: true\r\n\r\n  - name: b\r\n    users: [y]',
    );
  });
});

describe('editYaml: refusals', () => {
  it('rejects overlapping edits', () => {
    expect(errorOf(GROUPS, [set(['groups', 1], {}), set(['groups', 1, 'name'], 'x')]).message).toBe(
      '9:11: overlapping edits: groups[1] is replaced and groups[1].name edited',
    );
    expect(errorOf(GROUPS, [remove(['groups', 0]), remove(['groups', 0])]).message).toMatch(
      /overlapping edits/,
    );
    expect(errorOf(GROUPS, [append(['kinds'], [1]), set(['kinds'], [2])]).message).toMatch(
      /key "kinds" added twice/,
    );
  });

  it('names line:col and why for a path that does not exist', () => {
    expect(errorOf(GROUPS, [set(['groups', 5, 'name'], 'x')]).message).toBe(
      '4:3: groups has no item 5 (3 items)',
    );
    expect(errorOf(GROUPS, [remove(['groups', 0, 'is_admin'])]).message).toBe(
      '4:5: groups[0].is_admin does not exist',
    );
    expect(errorOf(GROUPS, [set(['groups', 0, 'name', 'x'], 1)]).message).toBe(
      '4:11: groups[0].name is not a mapping',
    );
    expect(errorOf(GROUPS, [set(['schedules', 0, 'name'], 1)]).message).toBe(
      '2:1: the document has no key "schedules"',
    );
    expect(errorOf(GROUPS, [append(['groups', 0, 'name'], [1])]).message).toBe(
      '4:11: groups[0].name is not a list',
    );
    expect(errorOf(GROUPS, [set(['x'], 1, 2)]).message).toBe('22:1: no document 2 (the file has 1)');
  });

  it('refuses a path through an alias, and setting an alias', () => {
    const source = 'base: &c {operator: match}\nrule:\n  conditions: [*c]\n';
    expect(errorOf(source, [set(['rule', 'conditions', 0, 'operator'], 'x')]).message).toBe(
      '3:16: rule.conditions[0] is an alias (*c), not written here',
    );
    expect(errorOf(source, [set(['rule', 'conditions', 0], 'x')]).message).toBe(
      '3:16: rule.conditions[0] is an alias (*c), not written here',
    );
  });
});

describe('valueOrigin', () => {
  const source = `notifications:
  - name: splunk
    settings:
      destination_address: "\${SPLUNK_HOST:-10.0.0.5}"
      destination_port: 514
      format: $\${not-a-variable}
defaults: &defaults
  enabled: true
other:
  <<: *defaults
`;

  it('finds a variable, in the value or inside it', () => {
    const variable = { origin: 'variable', line: 4, col: 29 };
    expect(valueOrigin(source, 0, ['notifications', 0, 'settings', 'destination_address'])).toEqual(variable);
    expect(valueOrigin(source, 0, ['notifications', 0])).toEqual(variable);
  });

  it('finds an alias, and an anchor that an alias refers to', () => {
    expect(valueOrigin(source, 0, ['other'])).toEqual({ origin: 'alias', line: 10, col: 7 });
    expect(valueOrigin(source, 0, ['defaults', 'enabled'])).toEqual({ origin: 'anchor', line: 7, col: 11 });
    // A field left out under a shared anchor: adding it would change the alias's value too.
    expect(valueOrigin(source, 0, ['defaults', 'priority'])).toEqual({ origin: 'anchor', line: 7, col: 11 });
    expect(valueOrigin('a: &x 1\nb: 2\n', 0, ['a'])).toBeUndefined();
  });

  it('is undefined for literal values ($${ included) and for a missing path', () => {
    expect(valueOrigin(source, 0, ['notifications', 0, 'settings', 'destination_port'])).toBeUndefined();
    expect(valueOrigin(source, 0, ['notifications', 0, 'settings', 'format'])).toBeUndefined();
    expect(valueOrigin(source, 0, ['notifications', 0, 'enabled'])).toBeUndefined();
    expect(valueOrigin(source, 0, ['groups', 3])).toBeUndefined();
    expect(valueOrigin(source, 1, ['notifications'])).toBeUndefined();
  });
});
