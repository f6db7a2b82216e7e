/** Issue 28, what a first-time user trips over: every problem of a run at once, files that are no configuration, numbers as written. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatProblem } from '../../src/config/problems.js';
import { validateSources } from '../../src/config/validate-sources.js';
import { runCli } from '../helpers/cli.js';

function problems(text: string, file = 'waf.yaml'): string[] {
  const result = validateSources([{ file, text }], { env: {} });
  return result.ok ? [] : result.problems.map(formatProblem);
}

const notification = (port: string, extra = '') =>
  `notifications:\n  - name: siem\n    settings:\n      destination_address: 10.0.0.5\n      destination_port: ${port}\n      format: json\n      protocol: tcp\n${extra}`;

describe('every problem of a run is reported together', () => {
  it('a duplicate YAML key does not hide a duplicate group', () => {
    const text = 'groups:\n  - name: soc\n    description: first\n    description: second\n  - name: soc\n';
    expect(problems(text)).toEqual([
      'waf.yaml:4:5: duplicate key "description" (first at waf.yaml:3:5)',
      'waf.yaml:5:5 groups[1]: duplicate group "soc": also declared at waf.yaml:2:5',
    ]);
  });

  it('a natural key written twice declares nothing, and nothing is said under a duplicate key', () => {
    const text =
      'groups:\n  - name: soc\n    name: ops\n    permissions: [nope]\n    permissions: [also nope]\n  - name: ops\n';
    expect(problems(text)).toEqual([
      'waf.yaml:3:5: duplicate key "name" (first at waf.yaml:2:5)',
      'waf.yaml:5:5: duplicate key "permissions" (first at waf.yaml:4:5)',
    ]);
  });

  it('a schema problem does not hide a firewall_actions conflict', () => {
    const text = [
      'groups:',
      '  - name: soc',
      '    bogus: 1',
      'settings:',
      '  firewall_actions:',
      '    observing: [log, CAPTCHA]',
      '',
    ].join('\n');
    expect(problems(text)).toEqual([
      'waf.yaml:3:5 groups[0]: unknown field "bogus"',
      'waf.yaml:6:22 settings.firewall_actions.observing[1]: "CAPTCHA" is also in the default blocking list (block, deny, drop, reject, captcha) (as "captcha"): an action may be in one list only (matched ignoring case); set settings.firewall_actions.blocking to a list without it',
    ]);
  });

  it('the objects that pass the schema are checked against the manage scope', () => {
    const text = [
      'manage:',
      '  groups: {match: {name: ["team-*"]}}',
      'groups:',
      '  - name: soc',
      '  - name: team-a',
      '    bogus: 1',
      '',
    ].join('\n');
    expect(problems(text)).toEqual([
      'waf.yaml:4:11 groups[0].name: name "soc" is outside the manage scope: it matches none of manage.groups.match.name ["team-*"] (set at waf.yaml:2:26), so wafctl would never create or update this group',
      'waf.yaml:6:5 groups[1]: unknown field "bogus"',
    ]);
  });
});

describe('a check the problems keep from running is named, with why', () => {
  const skippedOf = (files: Record<string, string>) => {
    const result = validateSources(
      Object.entries(files).map(([file, text]) => ({ file, text })),
      { env: {} },
    );
    return result.ok ? [] : result.skipped;
  };

  it('settings or manage set twice: the checks that need them merged', () => {
    expect(
      skippedOf({
        'a.yaml': 'settings:\n  username: one\nmanage:\n  groups: {prune: true}\n',
        'b.yaml': 'settings:\n  username: two\nmanage:\n  groups: {prune: false}\n',
      }),
    ).toEqual([
      'firewall_actions conflicts (settings is set twice)',
      'the manage scope of the declared objects (manage is set twice)',
    ]);
  });

  it('a file YAML cannot read, and a settings section with problems', () => {
    expect(
      skippedOf({
        'broken.yaml': 'groups: [\n',
        'settings.yaml': 'settings:\n  safety: {max_delete_percent: lots}\n',
      }),
    ).toEqual([
      'the objects of broken.yaml (YAML cannot read it) against the other files',
      'what depends on the settings of settings.yaml (it has problems)',
    ]);
  });

  it('is the last line of the error, and `skipped` in validate --format json; nothing when all ran', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wafctl-skipped-'));
    writeFileSync(join(dir, 'a.yaml'), 'settings:\n  username: one\n');
    writeFileSync(join(dir, 'b.yaml'), 'settings:\n  username: two\n');
    const text = await runCli(['validate', dir]);
    expect(text.code).toBe(1);
    expect(text.stderr.trimEnd().split('\n').at(-1)).toBe(
      'Not checked because of the problems above: firewall_actions conflicts (settings is set twice).',
    );
    const json = JSON.parse((await runCli(['validate', dir, '--format', 'json'])).stdout) as {
      skipped?: string[];
    };
    expect(json.skipped).toEqual(['firewall_actions conflicts (settings is set twice)']);
    writeFileSync(join(dir, 'b.yaml'), 'groups:\n  - name: soc\n    bogus: 1\n');
    const clean = JSON.parse((await runCli(['validate', dir, '--format', 'json'])).stdout) as object;
    expect(clean).not.toHaveProperty('skipped');
  });
});

describe('a file that is no wafctl configuration', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wafctl-first-time-'));
  writeFileSync(
    join(dir, 'README.md'),
    '# My firewall\n\nThis repository holds the rules of our firewall.\n',
  );
  writeFileSync(join(dir, 'NOTES.md'), '# Notes\n\n## Todo\n');
  writeFileSync(
    join(dir, 'broken.md'),
    '# Title\n\n- [link](#x): text\n- `code`: more: text\n```sh\nnpm test\n```\n',
  );
  writeFileSync(join(dir, 'empty.yaml'), '');
  writeFileSync(join(dir, 'list.yaml'), '- groups\n- settings\n');

  it('says so, and why, for a markdown file YAML reads as a string, as comments or not at all', async () => {
    const result = await runCli(['validate', 'README.md', 'NOTES.md', 'broken.md', 'list.yaml'], {
      cwd: dir,
    });
    expect(result.code).toBe(1);
    const expected =
      'expected a mapping with sections such as groups:, application_rules:, notifications:, schedules:, network_rule_settings:, settings:';
    expect(result.stderr).toBe(
      [
        `NOTES.md:1:1: not a wafctl configuration file: ${expected}, and it holds only comments (# lines)`,
        `README.md:3:1: not a wafctl configuration file: ${expected}, got string "This repository holds the rules of our firewall."`,
        `broken.md:3:3: not a wafctl configuration file: ${expected}, and YAML cannot read it (a mapping key must be a plain scalar, not a list or mapping)`,
        `list.yaml:1:1: not a wafctl configuration file: ${expected}, got a list`,
        '4 problems in 4 files.',
        '',
      ].join('\n'),
    );
  });

  it('a really empty file keeps its own message', async () => {
    const result = await runCli(['validate', 'empty.yaml'], { cwd: dir });
    expect(result.stderr).toBe('empty.yaml:1:1: file is empty\n1 problem in 1 file.\n');
  });
});

describe('a number is one message, quoted as written', () => {
  it('a huge port: one message, the digits as typed (both readers)', () => {
    expect(problems(notification('100000000000000000000000'))).toEqual([
      'waf.yaml:5:25 notifications[0].settings.destination_port: expected an integer from 1 to 65535, got 100000000000000000000000',
    ]);
    // `${` sends the file to the yaml reader.
    expect(problems(notification('9999999999999999999999999', `# \${not a reference}\n`))).toEqual([
      'waf.yaml:5:25 notifications[0].settings.destination_port: expected an integer from 1 to 65535, got 9999999999999999999999999',
    ]);
  });

  it('other integers: a port out of range, a huge duration, a huge number where a string is expected', () => {
    expect(problems(notification('70000'))).toEqual([
      'waf.yaml:5:25 notifications[0].settings.destination_port: expected an integer from 1 to 65535, got 70000',
    ]);
    const rule = (field: string) =>
      `application_rules:\n  - rq_host: shop.example.com\n    description: d\n    priority: high\n    conditions: [{field: uri, operator: equals, value: /admin}]\n    actions: [{firewall_action: block, targets: [waf-eu-1]}]\n    ${field}\n`;
    const duration = problems(rule('duration: 100000000000000000000000'));
    expect(duration.filter((line) => line.includes('duration'))).toEqual([
      'waf.yaml:7:15 application_rules[0].duration: must be <= 9007199254740991, got 100000000000000000000000',
    ]);
  });
});
