/**
 * The collection table (src/emulator/collections.ts, table.ts): the state format derived from it is
 * the one the state file has always had, and an entry that would clash with another is refused
 * when the table is made (a test's extra collections included).
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { COLLECTIONS, defineCollection, GROUPS } from '../../src/emulator/collections.js';
import { ADMINS_ONLY } from '../../src/emulator/permissions.js';
import { tableWith } from '../../src/emulator/table.js';

const thing = (name: string, extra: { counter?: string; privilege?: string } = {}) =>
  defineCollection({
    name,
    noun: 'thing',
    schema: z.strictObject({ id: z.string() }),
    key: 'id',
    ...(extra.counter === undefined ? {} : { counter: extra.counter }),
    addedLater: true,
    privileges: { [extra.privilege ?? name]: ADMINS_ONLY },
  });

describe('the collection table', () => {
  it('derives the state file as it has always been: the collections in order, then the counters', () => {
    const { format, specs, counters } = tableWith([]);
    expect(specs).toEqual(COLLECTIONS);
    expect(Object.keys(format.state.shape)).toEqual([
      'format_version',
      'users',
      'rules',
      'groups',
      'application_rules',
      'notifications',
      'schedules',
      'rule_settings',
      'next_ids',
    ]);
    expect(counters).toEqual(['group', 'application_rule', 'condition', 'schedule']);
  });

  it('puts a test’s collections after the built-in ones, each with its counter and privileges', () => {
    const table = tableWith([thing('things', { counter: 'thing' })]);
    expect(table.specs.map((spec) => spec.name).at(-1)).toBe('things');
    expect(table.counters.at(-1)).toBe('thing');
    expect(table.grant('things')).toBe(ADMINS_ONLY);
    expect(table.grant('no such privilege')).toBeUndefined();
  });

  it.each([
    [
      'a name taken by a built-in collection',
      thing('groups', { privilege: 'things' }),
      "the name 'groups' is taken",
    ],
    ['a name the state file uses itself', thing('next_ids'), "the name 'next_ids' is taken"],
    [
      'a counter of another collection',
      thing('things', { counter: GROUPS.counter }),
      "the id counter 'group' is used twice",
    ],
    [
      'a privilege of another collection',
      thing('things', { privilege: 'groups' }),
      "the privilege 'groups' is named twice",
    ],
    [
      'the sign-in privilege',
      thing('things', { privilege: 'signin' }),
      "the privilege 'signin' is named twice",
    ],
  ])('refuses %s', (_case, spec, message) => {
    expect(() => tableWith([spec])).toThrow(message);
  });
});
