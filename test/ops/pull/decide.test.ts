/** What pull changes, decided without files: the plan, where objects are declared, literal or not. */

import { describe, expect, it } from 'vitest';
import { sameJson } from '../../../src/core/canonical.js';
import type { Attributes, KindName } from '../../../src/core/model.js';
import { DEFAULT_SCOPE } from '../../../src/core/scope.js';
import {
  type DeclaredObject,
  decidePull,
  declaredKey,
  type OwnPath,
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

/**
 * With environments (issue 40): `ops`, declared in `base.yaml` (read by staging too: it sets
 * `description`) and in `private.yaml` (an earlier path only this environment lists: it sets `users`),
 * changed live in both fields.
 */
function decideLayered(own: OwnPath, writeShared = false) {
  const kind: KindName = 'group';
  const desired = group('ops', { description: 'old', users: ['u-1'] });
  const live = group('ops', { description: 'new', users: ['u-2'] });
  const plan = planChanges([
    {
      kind,
      immutable: [],
      scope: DEFAULT_SCOPE,
      desired: [{ key: 'ops', attributes: desired, protect: false, ignoreChanges: [] }],
      remote: [{ id: 'id-1', key: 'ops', attributes: live }],
    },
  ]);
  const at = (file: string, line: number) => ({
    file,
    line,
    col: 5,
    path: 'groups[0]',
    document: 0,
    nodePath: ['groups', 0] as const,
  });
  const declarations = [
    { location: at('base.yaml', 2), raw: { name: 'ops', description: 'old' }, sharedWith: ['staging'] },
    { location: at('private.yaml', 3), raw: { name: 'ops', users: ['u-1'] } },
    ...(own.op === 'declared' ? [{ location: at('own.yaml', 4), raw: { name: 'ops' } }] : []),
  ];
  const object: DeclaredObject = {
    kind,
    key: 'ops',
    location: declarations.at(-1)?.location ?? at('own.yaml', 4),
    raw: desired,
    protect: false,
    declarations,
    own,
  };
  return decidePull({
    plan,
    declared: new Map([[declaredKey(kind, 'ops'), object]]),
    rules: { group: RULES, application_rule: RULES, notification: RULES, schedule: RULES },
    adopt: [],
    adoptTarget: () => ({ file: 'own.yaml', document: 0, path: ['groups'] }),
    origin: () => undefined,
    writeShared,
  });
}

describe('decidePull with environments: a hand change stays in the environment', () => {
  const target = { file: 'own.yaml', document: 0, path: ['groups'] };
  const usersEdit = { op: 'set', document: 0, path: ['groups', 0, 'users'], value: ['u-2'] };
  const kept = {
    kind: 'group',
    key: 'ops',
    fields: ['description'],
    file: 'own.yaml',
    insteadOf: 'base.yaml',
    sharedWith: ['staging'],
  };

  it("sets a field a shared declaration sets in the object's own declaration; a private path's is written there", () => {
    const decision = decideLayered({ op: 'declared' });
    expect(Object.fromEntries(decision.edits)).toEqual({
      'private.yaml': [usersEdit],
      'own.yaml': [{ op: 'set', document: 0, path: ['groups', 0, 'description'], value: 'new' }],
    });
    expect(decision.kept).toEqual([kept]);
    expect(decision.updated).toBe(1);
  });

  it('appends a new overlay entry, the key and the kept fields, when the own path has none', () => {
    const decision = decideLayered({ op: 'append', target, key: { name: 'ops' } });
    expect(Object.fromEntries(decision.edits)).toEqual({
      'private.yaml': [usersEdit],
      'own.yaml': [
        { op: 'append', document: 0, path: ['groups'], values: [{ name: 'ops', description: 'new' }] },
      ],
    });
    expect(decision.kept).toEqual([kept]);
  });

  it("sets a singleton's section in the own path", () => {
    const section = { file: 'own.yaml', document: 0, path: ['groups'] };
    const decision = decideLayered({ op: 'section', target: section });
    expect(decision.edits.get('own.yaml')).toEqual([
      { op: 'set', document: 0, path: ['groups'], value: { description: 'new' } },
    ]);
  });

  it('--write-shared writes the shared declaration, and keeps nothing', () => {
    const decision = decideLayered({ op: 'append', target, key: { name: 'ops' } }, true);
    expect(Object.fromEntries(decision.edits)).toEqual({
      'base.yaml': [{ op: 'set', document: 0, path: ['groups', 0, 'description'], value: 'new' }],
      'private.yaml': [usersEdit],
    });
    expect(decision.kept).toEqual([]);
  });
});
