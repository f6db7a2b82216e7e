import { describe, expect, it } from 'vitest';
import { resolveKinds } from '../../../src/ops/export/kind-names.js';

const sections = (names?: string[]) => resolveKinds(names).map((kind) => kind.section);

describe('resolveKinds (--kind)', () => {
  it('defaults to every kind, in registry order', () => {
    const all = ['groups', 'application_rules', 'notifications', 'schedules', 'network_rule_settings'];
    expect(sections()).toEqual(all);
    expect(sections([])).toEqual(all);
  });

  it('accepts YAML keys, plan names and dashed spellings, repeated or comma-separated, in registry order', () => {
    expect(sections(['schedules', 'application-rules'])).toEqual(['application_rules', 'schedules']);
    expect(sections(['notification,group', 'application_rule'])).toEqual([
      'groups',
      'application_rules',
      'notifications',
    ]);
    expect(sections(['groups', 'groups'])).toEqual(['groups']);
  });

  it('refuses an unknown kind with a suggestion and the valid names', () => {
    expect(() => resolveKinds(['schedles'])).toThrow(
      'unknown kind "schedles" (did you mean "schedules"?); expected one of groups, application-rules, notifications, schedules',
    );
    expect(() => resolveKinds(['rules'])).toThrow(/unknown kind "rules"/);
  });
});
