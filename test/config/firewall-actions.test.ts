/** `settings.firewall_actions`: defaults, lists that replace them, merging, and every mistake at FILE:LINE:COL. */
import { describe, expect, it } from 'vitest';
import { formatProblem } from '../../src/config/problems.js';
import { type SourceFile, validateSources } from '../../src/config/validate-sources.js';
import { DEFAULT_FIREWALL_ACTIONS } from '../../src/core/firewall-actions.js';

function validate(files: SourceFile[]) {
  return validateSources(files, { env: {} });
}

function actions(files: SourceFile[]) {
  const result = validate(files);
  if (!result.ok) throw new Error(result.problems.map(formatProblem).join('\n'));
  return result.config.state.settings.firewall_actions;
}

function problems(files: SourceFile[]): string[] {
  const result = validate(files);
  return result.ok ? [] : result.problems.map(formatProblem);
}

describe('settings.firewall_actions', () => {
  it('defaults to the documented lists', () => {
    expect(actions([{ file: 'a.yaml', text: 'groups: []\n' }])).toEqual({
      blocking: ['block', 'deny', 'drop', 'reject', 'captcha'],
      observing: ['log', 'monitor', 'alert', 'count'],
      allowing: ['allow', 'bypass', 'whitelist'],
    });
    expect(actions([{ file: 'a.yaml', text: 'settings: {firewall_actions: {}}\n' }])).toEqual(
      DEFAULT_FIREWALL_ACTIONS,
    );
  });

  it('replaces the default of each list given, keeping the others, as written', () => {
    const text = 'settings:\n  firewall_actions:\n    blocking: [Block, challenge]\n    allowing: []\n';
    expect(actions([{ file: 'a.yaml', text }])).toEqual({
      blocking: ['Block', 'challenge'],
      observing: ['log', 'monitor', 'alert', 'count'],
      allowing: [],
    });
  });

  it('merges list by list across files; one list set twice is a conflict naming both places', () => {
    const a = { file: 'a.yaml', text: 'settings: {firewall_actions: {blocking: [block, challenge]}}\n' };
    const b = { file: 'b.yaml', text: 'settings: {firewall_actions: {allowing: [allow]}}\n' };
    expect(actions([a, b])).toMatchObject({ blocking: ['block', 'challenge'], allowing: ['allow'] });

    const twice = { file: 'c.yaml', text: 'settings:\n  firewall_actions:\n    blocking: [block]\n' };
    expect(problems([a, twice])).toEqual([
      'c.yaml:3:15 settings.firewall_actions.blocking: already set at a.yaml:1:41: settings and manage merge across files, and each field may be set only once',
    ]);
  });

  it('refuses an action in two lists set in one file, at the later list, naming the first', () => {
    const text = [
      'settings:',
      '  firewall_actions:',
      '    blocking: [block, challenge]',
      '    observing:',
      '      - log',
      '      - challenge',
      '',
    ].join('\n');
    expect(problems([{ file: 'waf.yaml', text }])).toEqual([
      'waf.yaml:6:9 settings.firewall_actions.observing[1]: "challenge" is also in settings.firewall_actions.blocking at waf.yaml:3:23: an action may be in one list only (matched ignoring case); remove it from one of them',
    ]);
  });

  it('refuses an overlap across files, ignoring case, and says how the other list spells it', () => {
    const a = { file: 'a.yaml', text: 'settings:\n  firewall_actions:\n    allowing: [Log]\n' };
    const b = { file: 'b.yaml', text: 'settings:\n  firewall_actions:\n    observing: [log]\n' };
    expect(problems([a, b])).toEqual([
      'a.yaml:3:16 settings.firewall_actions.allowing[0]: "Log" is also in settings.firewall_actions.observing (as "log") at b.yaml:3:17: an action may be in one list only (matched ignoring case); remove it from one of them',
    ]);
  });

  it('refuses an action that is in the default of a list not given, and says how to move it', () => {
    const text = 'settings:\n  firewall_actions:\n    observing: [log, CAPTCHA]\n';
    expect(problems([{ file: 'waf.yaml', text }])).toEqual([
      'waf.yaml:3:22 settings.firewall_actions.observing[1]: "CAPTCHA" is also in the default blocking list (block, deny, drop, reject, captcha) (as "captcha"): an action may be in one list only (matched ignoring case); set settings.firewall_actions.blocking to a list without it',
    ]);
    const moved = 'settings:\n  firewall_actions:\n    blocking: [block]\n    observing: [log, captcha]\n';
    expect(actions([{ file: 'waf.yaml', text: moved }]).observing).toEqual(['log', 'captcha']);
  });

  it('refuses unknown fields, empty actions, duplicates and non-lists, at their place', () => {
    const text = [
      'settings:',
      '  firewall_actions:',
      '    blockng: [block]',
      '    observing: [log, ""]',
      '    allowing: [allow, allow]',
      '',
    ].join('\n');
    const found = problems([{ file: 'waf.yaml', text }]);
    expect(found).toHaveLength(3);
    expect(found[0]).toBe(
      'waf.yaml:3:5 settings.firewall_actions: unknown field "blockng" (did you mean "blocking"?)',
    );
    expect(found[1]).toBe('waf.yaml:4:22 settings.firewall_actions.observing[1]: must not be empty');
    expect(found[2]).toMatch(
      /^waf\.yaml:5:23 settings\.firewall_actions\.allowing\[1\]: duplicate action "allow"/,
    );
    expect(problems([{ file: 'w.yaml', text: 'settings: {firewall_actions: {blocking: block}}\n' }])).toEqual(
      ['w.yaml:1:41 settings.firewall_actions.blocking: expected a list, got string "block"'],
    );
  });
});
