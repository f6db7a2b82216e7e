import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDesiredState } from '../../src/config/load.js';
import { MAX_FILE_BYTES } from '../../src/config/parse-yaml.js';
import { ConfigError, formatProblem } from '../../src/config/problems.js';
import { type SourceFile, validateSources } from '../../src/config/validate-sources.js';
import { rulesYaml } from '../helpers/fixtures.js';

function loaded(files: SourceFile[], env: Record<string, string> = {}) {
  const result = validateSources(files, { env });
  if (!result.ok) throw new Error(result.problems.map(formatProblem).join('\n'));
  return result.config;
}

const RULE = rulesYaml([{}]);

describe('defaults and normalisation', () => {
  it('fills every default of the contract', () => {
    const text = `${RULE}groups:
  - name: soc
notifications:
  - name: splunk
    settings: {destination_address: "::1", destination_port: 514, format: json, protocol: tcp}
schedules:
  - name: weekly
    hosts: [shop.example.com]
    type: summary
    schedule: weekly
    send_to: [a@example.com]
    send_via: email
    timezone: UTC
`;
    const { state } = loaded([{ file: 'all.yaml', text }]);
    expect(state.groups).toEqual([
      {
        name: 'soc',
        description: '',
        is_admin: false,
        permissions: [],
        users: [],
        protect: false,
        ignore_changes: [],
      },
    ]);
    expect(state.application_rules[0]).toMatchObject({
      enabled: true,
      duration: null,
      start_time: null,
      protect: false,
      ignore_changes: [],
      conditions: [{ operator: 'match', not_op: false, expressions: ['^/admin'], targets: ['path'] }],
    });
    expect(state.notifications[0]).toMatchObject({ type: 'siem', enabled: true });
    expect(state.schedules[0]).toMatchObject({ services: null });
    expect(state.manage).toEqual({
      groups: { prune: false, match: {} },
      application_rules: { prune: false, match: {} },
      notifications: { prune: false, match: {} },
      schedules: { prune: false, match: {} },
      // A singleton section has no scope of its own; its default is never read.
      network_rule_settings: { prune: false, match: {} },
    });
    expect(state.settings).toEqual({
      username: 'wafctl',
      safety: { max_delete_percent: 30, min_existing: 10 },
      firewall_actions: {
        blocking: ['block', 'deny', 'drop', 'reject', 'captcha'],
        observing: ['log', 'monitor', 'alert', 'count'],
        allowing: ['allow', 'bypass', 'whitelist'],
      },
      extra_targets: [],
      extra_operators: [],
    });
    expect(state.tests).toEqual([]);
  });

  it('resolves permission names to their catalog ids, and keeps ids', () => {
    const text = `groups:
  - name: soc
    permissions:
      - permission: Explore alerts
        service_id: svc-shop
      - permission: Load source rules
      - permission: 1
`;
    const { state } = loaded([{ file: 'g.yaml', text }]);
    expect(state.groups[0]?.permissions).toEqual([
      { permission: 0, service_id: 'svc-shop' },
      { permission: 3, service_id: '' },
      { permission: 1, service_id: '' },
    ]);
  });

  it('takes settings.username from the files, else WAF_USERNAME, else "wafctl"', () => {
    const bare = [{ file: 'g.yaml', text: 'groups: []\n' }];
    expect(loaded(bare).state.settings.username).toBe('wafctl');
    expect(loaded(bare, { WAF_USERNAME: 'ci-bot' }).state.settings.username).toBe('ci-bot');
    const named = [{ file: 's.yaml', text: 'settings: {username: gitops}\n' }];
    expect(loaded(named, { WAF_USERNAME: 'ci-bot' }).state.settings.username).toBe('gitops');
  });

  it('merges settings and manage leaf by leaf across files, then applies defaults', () => {
    const { state } = loaded([
      {
        file: 'a.yaml',
        text: 'settings: {safety: {min_existing: 3}}\nmanage: {application_rules: {prune: true}}\n',
      },
      {
        file: 'b.yaml',
        text: 'settings: {safety: {max_delete_percent: 50}}\nmanage: {application_rules: {match: {rq_host: ["*.example.com"]}}}\n',
      },
    ]);
    expect(state.settings.safety).toEqual({ max_delete_percent: 50, min_existing: 3 });
    expect(state.manage.application_rules).toEqual({ prune: true, match: { rq_host: ['*.example.com'] } });
    expect(state.manage.groups).toEqual({ prune: false, match: {} });
  });
});

describe('documents, files and sources', () => {
  it('concatenates the documents of a file and the files in the order given, recording each source', () => {
    const config = loaded([
      { file: 'a.yaml', text: 'groups:\n  - name: one\n---\n# nothing\n---\ngroups:\n  - name: two\n' },
      { file: 'b.yaml', text: 'groups:\n  - name: three\n' },
    ]);
    expect(config.state.groups.map((g) => g.name)).toEqual(['one', 'two', 'three']);
    // The document is counted among all of the file's, the empty one too (yaml's numbering): for pull.
    expect(config.sources.groups.get('two')).toEqual({
      file: 'a.yaml',
      line: 7,
      col: 5,
      path: 'groups[0]',
      document: 2,
      nodePath: ['groups', 0],
    });
    expect(config.sources.groups.get('three')).toEqual({
      file: 'b.yaml',
      line: 2,
      col: 5,
      path: 'groups[0]',
      document: 0,
      nodePath: ['groups', 0],
    });
    expect(config.files).toEqual(['a.yaml', 'b.yaml']);
  });

  it('keys application rules by rq_host/description', () => {
    const config = loaded([{ file: 'r.yaml', text: RULE }]);
    expect([...config.sources.application_rules.keys()]).toEqual(['shop.example.com/Block admin']);
  });

  it('never sets a prototype: __proto__ and constructor are plain unknown fields', () => {
    const text =
      'groups:\n  - name: soc\n    __proto__: {is_admin: true}\nsettings:\n  constructor: {prototype: {polluted: true}}\n';
    const result = validateSources([{ file: 'p.yaml', text }], { env: {} });
    expect(result.ok ? [] : result.problems.map(formatProblem)).toEqual([
      'p.yaml:3:5 groups[0]: unknown field "__proto__"',
      'p.yaml:5:3 settings: unknown field "constructor"',
    ]);
    expect(({} as Record<string, unknown>).is_admin).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses text over the size limit before parsing it', () => {
    const result = validateSources([{ file: 'big.yaml', text: `# ${'x'.repeat(MAX_FILE_BYTES)}\n` }], {
      env: {},
    });
    expect(result.ok ? [] : result.problems.map(formatProblem)).toEqual([
      `big.yaml:1:1: file is too large: ${MAX_FILE_BYTES + 3} bytes, the limit is ${MAX_FILE_BYTES} bytes (5 MiB)`,
    ]);
  });
});

describe('loadDesiredState (files and directories)', () => {
  let dir = '';

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wafctl-config-'));
    const files: Record<string, string> = {
      'conf/b.yaml': 'groups:\n  - name: b\n',
      'conf/a.yml': 'groups:\n  - name: a\n',
      'conf/sub/c.yaml': 'groups:\n  - name: c\n',
      'conf/sub/deeper/d.YAML': 'groups:\n  - name: d\n',
      'conf/a-z.yaml': 'groups:\n  - name: a-z\n',
      'conf/.hidden/x.yaml': 'groups:\n  - name: hidden\n',
      'conf/node_modules/pkg/y.yaml': 'groups:\n  - name: dependency\n',
      'conf/notes.txt': 'not yaml',
      'extra.yaml': 'groups:\n  - name: extra\n',
    };
    for (const [path, text] of Object.entries(files)) {
      await mkdir(join(dir, path, '..'), { recursive: true });
      await writeFile(join(dir, path), text);
    }
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('walks directories recursively, skips hidden entries and node_modules, and sorts all files by path', async () => {
    const config = await loadDesiredState(['extra.yaml', 'conf'], { cwd: dir, env: {} });
    expect(config.files).toEqual([
      'conf/a-z.yaml',
      'conf/a.yml',
      'conf/b.yaml',
      'conf/sub/c.yaml',
      'conf/sub/deeper/d.YAML',
      'extra.yaml',
    ]);
    expect(config.state.groups.map((g) => g.name)).toEqual(['a-z', 'a', 'b', 'c', 'd', 'extra']);
  });

  it('defaults to the current directory and loads a file named twice only once', async () => {
    const config = await loadDesiredState([], { cwd: join(dir, 'conf'), env: {} });
    expect(config.files[0]).toBe('a-z.yaml');
    const twice = await loadDesiredState(['conf/a.yml', 'conf'], { cwd: dir, env: {} });
    expect(twice.files.filter((f) => f.endsWith('a.yml'))).toEqual(['conf/a.yml']);
  });

  it('reports a missing PATH and an oversized file together, as ConfigError problems', async () => {
    await writeFile(join(dir, 'big.yaml'), `# ${'x'.repeat(MAX_FILE_BYTES)}\n`);
    const error = await loadDesiredState(['missing.yaml', 'big.yaml'], { cwd: dir, env: {} }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigError);
    const configError = error as ConfigError;
    expect(configError.code).toBe('CONFIG_INVALID');
    expect(configError.userFault).toBe(true);
    expect(configError.message).toBe(
      [
        `big.yaml:1:1: file is too large: ${MAX_FILE_BYTES + 3} bytes, the limit is ${MAX_FILE_BYTES} bytes (5 MiB)`,
        'missing.yaml: no such file or directory',
        '2 problems in 2 files.',
      ].join('\n'),
    );
  });
});

function problems(files: SourceFile[], env: Record<string, string> = {}): string[] {
  const result = validateSources(files, { env });
  return result.ok ? [] : result.problems.map(formatProblem);
}

describe('rq_host is a host name', () => {
  it.each([
    'shop.example.com',
    '*.example.com',
    'shop.example.com:8443',
    '10.0.0.1',
    '[2001:db8::1]:443',
    'bücher.example',
    'xn--bcher-kva.example',
    '例え.テスト',
  ])('accepts %s', (host) => {
    expect(problems([{ file: 'r.yaml', text: rulesYaml([{ host }]) }])).toEqual([]);
  });

  it("refuses '/', which would make <rq_host>/<description> keys collide", () => {
    const text = rulesYaml([
      { host: 'a/b', description: 'c' },
      { host: 'a', description: 'b/c' },
    ]);
    expect(problems([{ file: 'r.yaml', text }])).toEqual([
      `r.yaml:2:14 application_rules[0].rq_host: rq_host must be a host name: it cannot contain '/', got "a/b"`,
    ]);
  });

  it('refuses whitespace and control characters, showing them escaped', () => {
    const hosts = ['shop example.com', 'shop.example.com\n', 'a\u0085b', 'a\u00a0b', 'a\x7fb'];
    const text = rulesYaml(hosts.map((host) => ({ host })));
    expect(problems([{ file: 'r.yaml', text }])).toEqual([
      'r.yaml:2:14 application_rules[0].rq_host: rq_host must be a host name: it cannot contain spaces, got "shop example.com"',
      'r.yaml:7:14 application_rules[1].rq_host: rq_host must be a host name: it cannot contain whitespace (U+000A), got "shop.example.com\\n"',
      'r.yaml:12:14 application_rules[2].rq_host: rq_host must be a host name: it cannot contain control characters (U+0085), got "a\\u0085b"',
      'r.yaml:17:14 application_rules[3].rq_host: rq_host must be a host name: it cannot contain whitespace (U+00A0), got "a\\u00a0b"',
      'r.yaml:22:14 application_rules[4].rq_host: rq_host must be a host name: it cannot contain control characters (U+007F), got "a\\u007fb"',
    ]);
  });
});

describe('declarations outside their manage scope', () => {
  const MANAGE = 'manage:\n  application_rules:\n    match: {rq_host: ["*.example.com"], priority: [high]}\n';

  it('are problems at the field that fails, naming the glob list and where manage sets it', () => {
    const rules = rulesYaml([{ host: 'shop.example.com' }, { host: 'shop.other.org' }]);
    expect(
      problems([
        { file: 'a-manage.yaml', text: MANAGE },
        { file: 'rules.yaml', text: rules },
      ]),
    ).toEqual([
      'rules.yaml:7:14 application_rules[1].rq_host: rq_host "shop.other.org" is outside the manage scope: it matches none of manage.application_rules.match.rq_host ["*.example.com"] (set at a-manage.yaml:3:22), so wafctl would never create or update this application rule',
    ]);
  });

  it('are found with manage in the same file, in a later file, or spread over files', () => {
    const out = rulesYaml([{ host: 'shop.other.org' }]);
    expect(problems([{ file: 'one.yaml', text: `${MANAGE}${out}` }])).toHaveLength(1);
    expect(
      problems([
        { file: 'a.yaml', text: out },
        { file: 'z.yaml', text: MANAGE },
      ]),
    ).toHaveLength(1);
    const spread = problems([
      { file: 'a.yaml', text: 'manage: {application_rules: {prune: true}}\n' },
      { file: 'b.yaml', text: 'manage: {application_rules: {match: {rq_host: ["*.example.com"]}}}\n' },
      { file: 'c.yaml', text: out },
    ]);
    expect(spread).toEqual([expect.stringContaining('(set at b.yaml:1:47)')]);
  });

  it('are reported together with other problems, but not when manage itself conflicts', () => {
    const out = rulesYaml([{ host: 'shop.other.org' }]);
    expect(
      problems([
        { file: 'a.yaml', text: `${MANAGE}${out}` },
        { file: 'b.yaml', text: 'groups:\n  - name: soc\n    is_admin: "no"\n' },
      ]),
    ).toEqual([
      expect.stringContaining(
        'a.yaml:5:14 application_rules[0].rq_host: rq_host "shop.other.org" is outside the manage scope',
      ),
      'b.yaml:3:15 groups[0].is_admin: expected boolean, got string "no"',
    ]);
    const conflict = problems([
      { file: 'a.yaml', text: MANAGE },
      { file: 'b.yaml', text: `${MANAGE}${out}` },
    ]);
    expect(conflict).toHaveLength(2);
    expect(conflict.every((line) => line.includes('already set at'))).toBe(true);
  });

  it('name the object itself when the failing field was left to its default', () => {
    const text =
      'manage: {notifications: {match: {type: [generic]}}, groups: {match: {description: ["team *"]}}}\n' +
      'notifications:\n  - name: splunk\n    settings: {destination_address: 10.0.0.5, destination_port: 514, format: cef, protocol: udp}\n' +
      'groups:\n  - name: soc\n';
    expect(problems([{ file: 'n.yaml', text }])).toEqual([
      'n.yaml:3:5 notifications[0]: type "siem" (the default) is outside the manage scope: it matches none of manage.notifications.match.type ["generic"] (set at n.yaml:1:40), so wafctl would never create or update this notification',
      'n.yaml:6:5 groups[0]: description "" (the default) is outside the manage scope: it matches none of manage.groups.match.description ["team *"] (set at n.yaml:1:83), so wafctl would never create or update this group',
    ]);
  });

  it('do not include declarations inside the scope, nor any when match is empty', () => {
    const inside = `${MANAGE}${rulesYaml([{ host: 'shop.example.com' }])}`;
    expect(problems([{ file: 'a.yaml', text: inside }])).toEqual([]);
    const noMatch = `manage: {application_rules: {prune: true}}\n${rulesYaml([{ host: 'shop.other.org' }])}`;
    expect(problems([{ file: 'a.yaml', text: noMatch }])).toEqual([]);
  });
});

describe('problems quote data escaped', () => {
  it('a key holding a line break stays on its problem line', () => {
    const forged = 'soc\\nb.yaml:1:1: everything is fine';
    const text = `groups:\n  - name: "${forged}"\n  - name: "${forged}"\n`;
    const result = validateSources([{ file: 'a\nb.yaml', text }], { env: {} });
    expect(result.ok).toBe(false);
    const lines = result.ok ? [] : result.problems.map(formatProblem);
    expect(lines).toEqual([
      'a\\nb.yaml:3:5 groups[1]: duplicate group "soc\\nb.yaml:1:1: everything is fine": also declared at a\\nb.yaml:2:5',
    ]);
  });
});

describe('a duplicate natural key', () => {
  it('is a problem with the fields of every problem, and none of the loader`s own', () => {
    const text = 'groups:\n  - name: soc\n  - name: soc\n';
    const result = validateSources([{ file: 'g.yaml', text }], { env: {} });
    expect(result.ok ? [] : result.problems).toEqual([
      {
        file: 'g.yaml',
        line: 3,
        col: 5,
        path: 'groups[1]',
        message: expect.stringMatching(/^duplicate group "soc"/),
      },
    ]);
  });
});
