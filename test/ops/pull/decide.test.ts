/** What pull changes, decided without files: the plan, where objects are declared, literal or not. */

import { describe, expect, it } from 'vitest';
import { sameJson } from '../../../src/core/canonical.js';
import type { Attributes, KindName } from '../../../src/core/model.js';
import { DEFAULT_SCOPE } from '../../../src/core/scope.js';
import {
  type DeclaredObject,
  decidePull,
  declaredKey,
  type PullInput,
  type PullRules,
} from '../../../src/ops/pull/decide.js';
import type { NodePath, ValueOrigin } from '../../../src/ops/pull/model.js';
import { planChanges } from '../../../src/plan/planner.js';

/** Identity rules: values are written as they are; members are the same when equal. */
const RULES: PullRules = {
  fileValue: (_field, value) => value,
  sameMember: (_field, _raw, member, live) => sameJson(member, live),
};

interface Fixture {
  /** key -> [object as the file says it (also its desired attributes), live attributes or undefined] */
  objects: Record<string, [Attributes, Attributes | undefined]>;
  /** Undeclared live objects. */
  undeclared?: Attributes[];
  adopt?: boolean;
  protect?: string[];
  /** `document/path` -> origin */
  origins?: Record<string, ValueOrigin>;
}

function decide(fixture: Fixture) {
  const kind: KindName = 'group';
  const entries = Object.entries(fixture.objects);
  const plan = planChanges([
    {
      kind,
      immutable: [],
      scope: DEFAULT_SCOPE,
      desired: entries.map(([key, [file]]) => ({
        key,
        attributes: file,
        protect: fixture.protect?.includes(key) ?? false,
        ignoreChanges: [],
      })),
      remote: [
        ...entries.flatMap(([key, [, live]], i) => (live ? [{ id: `id-${i}`, key, attributes: live }] : [])),
        ...(fixture.undeclared ?? []).map((attributes, i) => ({
          id: `u-${i}`,
          key: String(attributes.name),
          attributes,
        })),
      ],
    },
  ]);
  const declared = new Map<string, DeclaredObject>(
    entries.map(([key, [raw]], i) => [
      declaredKey(kind, key),
      {
        kind,
        key,
        raw,
        protect: fixture.protect?.includes(key) ?? false,
        location: {
          file: 'groups.yaml',
          line: 2 + i * 4,
          col: 5,
          path: `groups[${i}]`,
          document: 0,
          nodePath: ['groups', i],
        },
      },
    ]),
  );
  const input: PullInput = {
    plan,
    declared,
    rules: { group: RULES, application_rule: RULES, notification: RULES, schedule: RULES },
    adopt: (fixture.adopt ? (fixture.undeclared ?? []) : []).map((object) => ({
      kind,
      key: String(object.name),
      object,
    })),
    adoptTarget: () => ({ file: 'groups.yaml', document: 0, path: ['groups'] }),
    origin: (_file: string, document: number, path: NodePath) =>
      fixture.origins?.[`${document}/${path.join('.')}`],
  };
  return decidePull(input);
}

const group = (name: string, extra: Attributes = {}): Attributes => ({
  name,
  description: '',
  users: [],
  ...extra,
});

describe('decidePull', () => {
  it('writes the differing scalar fields where the object is declared, and nothing else', () => {
    const decision = decide({
      objects: {
        ops: [group('ops', { description: 'old' }), group('ops', { description: 'new' })],
        same: [group('same'), group('same')],
      },
    });
    expect(decision.edits.get('groups.yaml')).toEqual([
      { op: 'set', document: 0, path: ['groups', 0, 'description'], value: 'new' },
    ]);
    expect(decision).toMatchObject({ updated: 1, removed: 0, adopted: 0, conflicts: [] });
  });

  it('updates a set by its members: removes the gone ones by index, appends the new ones, keeps the rest', () => {
    const decision = decide({
      objects: {
        ops: [
          group('ops', { users: ['u-1', 'u-2', 'u-3'] }),
          group('ops', { users: ['u-1', 'u-3', 'u-4', 'u-5'] }),
        ],
      },
    });
    expect(decision.edits.get('groups.yaml')).toEqual([
      { op: 'remove', document: 0, path: ['groups', 0, 'users', 1] },
      { op: 'append', document: 0, path: ['groups', 0, 'users'], values: ['u-4', 'u-5'] },
    ]);
  });

  it('writes a set whose every member changed whole', () => {
    const decision = decide({
      objects: { ops: [group('ops', { users: ['u-1'] }), group('ops', { users: ['u-2'] })] },
    });
    expect(decision.edits.get('groups.yaml')).toEqual([
      { op: 'set', document: 0, path: ['groups', 0, 'users'], value: ['u-2'] },
    ]);
  });

  it('writes an object field by its differing keys', () => {
    const settings = (port: number) => ({ destination_address: '10.0.0.5', destination_port: port });
    const decision = decide({
      objects: {
        ops: [group('ops', { settings: settings(514) }), group('ops', { settings: settings(6514) })],
      },
    });
    expect(decision.edits.get('groups.yaml')).toEqual([
      { op: 'set', document: 0, path: ['groups', 0, 'settings', 'destination_port'], value: 6514 },
    ]);
  });

  it('removes an object deleted live from its file, unless it is protected', () => {
    const decision = decide({
      objects: { gone: [group('gone'), undefined], kept: [group('kept'), undefined] },
      protect: ['kept'],
    });
    expect(decision.edits.get('groups.yaml')).toEqual([{ op: 'remove', document: 0, path: ['groups', 0] }]);
    expect(decision.removed).toBe(1);
    expect(decision.conflicts).toEqual([
      expect.objectContaining({
        key: 'kept',
        file: 'groups.yaml',
        line: 6,
        col: 5,
        reason: expect.stringContaining('it is protected'),
      }),
    ]);
  });

  it('a value from a variable or an alias is a conflict: nothing is written for that object, the others are', () => {
    const decision = decide({
      objects: {
        a: [group('a', { description: 'x' }), group('a', { description: 'y' })],
        b: [group('b', { description: 'x' }), group('b', { description: 'y' })],
      },
      origins: { '0/groups.0.description': { origin: 'variable', line: 3, col: 18 } },
    });
    expect(decision.conflicts).toEqual([
      {
        kind: 'group',
        key: 'a',
        file: 'groups.yaml',
        line: 3,
        col: 18,
        reason: `description comes from a \${VAR} substitution`,
      },
    ]);
    expect(decision.edits.get('groups.yaml')).toEqual([
      { op: 'set', document: 0, path: ['groups', 1, 'description'], value: 'y' },
    ]);
    expect(decision.updated).toBe(1);
  });

  it('adopts undeclared live objects only when asked, in one append', () => {
    const undeclared = [group('new-1'), group('new-2')];
    expect(decide({ objects: {}, undeclared }).edits.size).toBe(0);
    const decision = decide({ objects: {}, undeclared, adopt: true });
    expect(decision.edits.get('groups.yaml')).toEqual([
      { op: 'append', document: 0, path: ['groups'], values: undeclared },
    ]);
    expect(decision.adopted).toBe(2);
  });
});
