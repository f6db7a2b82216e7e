/** The apply gate: the verdict from a plan and the flags, and its refusals (a secret sent, the safety threshold). */
import { describe, expect, it } from 'vitest';
import type { Attributes, ImpactClass, Plan } from '../../../src/core/model.js';
import { registerSecret } from '../../../src/core/secrets.js';
import { KINDS } from '../../../src/kinds/index.js';
import { applyGate, type GateOptions, safetyRefusal, secretRefusal } from '../../../src/ops/apply/gate.js';
import { planChanges } from '../../../src/plan/planner.js';

const GROUP = (() => {
  const kind = KINDS.find((k) => k.name === 'group');
  if (kind === undefined) throw new Error('the group family is not registered');
  return kind;
})();

const SECRET = 'gate-test-secret-4d1c9e';
registerSecret(SECRET);

const group = (name: string, fields: Partial<Attributes> = {}): Attributes => ({
  name,
  description: '',
  is_admin: false,
  users: [],
  ...fields,
});

function plan(desired: Attributes[], remote: Attributes[], prune = false): Plan {
  return planChanges(
    [
      {
        kind: 'group',
        immutable: [],
        impact: GROUP.impact,
        scope: { prune, match: {} },
        desired: desired.map((attributes) => ({
          key: String(attributes.name),
          attributes,
          protect: false,
          ignoreChanges: [],
        })),
        remote: remote.map((attributes, i) => ({ id: `g-${i}`, key: String(attributes.name), attributes })),
      },
    ],
    { safety: { maxDeletePercent: 50, minExisting: 2 } },
  );
}

describe('secretRefusal', () => {
  it('names each change and field that would carry a secret, never the value', () => {
    const refusal = secretRefusal(
      plan(
        [group('new', { description: `x ${SECRET}` }), group('ops', { users: [JSON.stringify(SECRET)] })],
        [group('ops')],
      ),
      'bot',
    );
    expect(refusal?.code).toBe('PLAN_REFUSED');
    expect(refusal?.message).toMatch(
      /^refusing to send the API token \(or another secret wafctl holds\) to the firewall: group\.new description, group\.ops users would carry it\. Nothing was applied\./,
    );
    expect(refusal?.message).not.toContain(SECRET);
  });

  it('checks the whole object an update leaves, the username of creates, and not deletes', () => {
    // The live object holds the secret in a field the update does not change: it would be sent back.
    const update = plan(
      [group('ops', { description: SECRET, is_admin: true })],
      [group('ops', { description: SECRET })],
    );
    expect(secretRefusal(update, 'bot')?.message).toContain(': group.ops description would carry it.');
    const deletes = plan([], [group('ops', { description: SECRET })], true);
    expect(secretRefusal(deletes, SECRET)).toBeUndefined();
    const create = plan([group('new')], []);
    expect(secretRefusal(create, 'bot')).toBeUndefined();
    expect(secretRefusal(create, `bot-${SECRET}`)?.message).toContain(
      ': settings.username (sent with every rule created) would carry it.',
    );
  });

  it('redacts a key that holds the secret', () => {
    const refusal = secretRefusal(plan([group(`n-${SECRET}`)], []), 'bot');
    expect(refusal?.message).toContain('the firewall: group.n-[REDACTED] name would carry it.');
  });
});

describe('safetyRefusal', () => {
  it('refuses deletes above the threshold unless forced', () => {
    const deletes = plan([group('a')], [group('a'), group('b'), group('c')], true);
    expect(safetyRefusal(deletes, false)?.message).toBe(
      'refusing to delete 2 of 3 group objects (limit 50%): above the safety threshold (settings.safety). Pass --force to apply anyway.',
    );
    expect(safetyRefusal(deletes, true)).toBeUndefined();
  });
});

describe('applyGate', () => {
  const none = plan([group('a')], [group('a')]);
  const create = plan([group('new')], []);
  const admin = plan([group('root', { is_admin: true })], []);
  const secret = plan([group('new', { description: SECRET })], [group('a'), group('b'), group('c')], true);
  const tooManyDeletes = plan([group('a')], [group('a'), group('b'), group('c')], true);
  const problem = { kind: 'group' as const, key: 'broken', message: 'cannot be planned' };
  const withProblem = (p: Plan): Plan => ({ ...p, problems: [problem] });
  const flags = (options: Partial<GateOptions> = {}): GateOptions => ({
    failOn: [],
    allowPartial: false,
    force: false,
    interactive: false,
    username: 'bot',
    ...options,
  });
  const broadens: ImpactClass[] = ['broadens_access'];

  it('has an admin group create that broadens access (the fixture the policy rows rely on)', () => {
    expect(admin.changes[0]?.impact.map((i) => i.class)).toContain('broadens_access');
  });

  it.each([
    ['no change, no problem', none, flags({ interactive: true }), 'nothing', undefined],
    ['a change, a person at the terminal', create, flags({ interactive: true }), 'confirm', undefined],
    ['a change, --auto-approve or a saved plan', create, flags(), 'apply', undefined],
    ['--fail-on a class no change has', admin, flags({ failOn: ['reduces_audit'] }), 'apply', undefined],
    ['--fail-on a class a change has', admin, flags({ failOn: broadens }), 'refuse', 'POLICY_REFUSED'],
    [
      'the policy before the plan problems',
      withProblem(admin),
      flags({ failOn: broadens }),
      'refuse',
      'POLICY_REFUSED',
    ],
    [
      'a secret, --fail-on matching no change',
      secret,
      flags({ failOn: ['weakens_protection', 'reduces_audit'] }),
      'refuse',
      'PLAN_REFUSED',
    ],
    ['a plan problem, without --allow-partial', withProblem(create), flags(), 'refuse', 'PLAN_REFUSED'],
    ['a plan problem only, without --allow-partial', withProblem(none), flags(), 'refuse', 'PLAN_REFUSED'],
    [
      'a plan problem, --allow-partial, a person',
      withProblem(create),
      flags({ allowPartial: true, interactive: true }),
      'confirm',
      undefined,
    ],
    [
      'a plan problem only, --allow-partial: nothing to ask',
      withProblem(none),
      flags({ allowPartial: true, interactive: true }),
      'apply',
      undefined,
    ],
    ['deletes above the threshold', tooManyDeletes, flags({ interactive: true }), 'refuse', 'PLAN_REFUSED'],
    [
      'deletes above the threshold, --force',
      tooManyDeletes,
      flags({ force: true, interactive: true }),
      'confirm',
      undefined,
    ],
    ['a secret, even with --force', secret, flags({ force: true }), 'refuse', 'PLAN_REFUSED'],
  ] as const)('%s: %s', (_name, planned, options, verdict, code) => {
    const gate = applyGate(planned, options);
    expect(gate.verdict).toBe(verdict);
    expect(gate.verdict === 'refuse' ? gate.error.code : undefined).toBe(code);
  });

  it('refuses for the first reason in order: policy, secret, plan problems, safety', () => {
    const all = withProblem(
      plan(
        [group('root', { is_admin: true, description: SECRET })],
        [group('a'), group('b'), group('c')],
        true,
      ),
    );
    const reason = (options: GateOptions) => {
      const gate = applyGate(all, options);
      return gate.verdict === 'refuse' ? gate.error.message : gate.verdict;
    };
    expect(reason(flags({ failOn: broadens }))).toMatch(
      /^--fail-on broadens_access: 1 change broadens access/,
    );
    expect(reason(flags())).toMatch(/^refusing to send the API token/);
    const noSecret = withProblem(
      plan([group('root', { is_admin: true })], [group('a'), group('b'), group('c')], true),
    );
    expect(applyGate(noSecret, flags())).toMatchObject({
      verdict: 'refuse',
      error: { message: expect.stringMatching(/^1 object could not be planned .*pass --allow-partial/) },
    });
    expect(applyGate(noSecret, flags({ allowPartial: true }))).toMatchObject({
      verdict: 'refuse',
      error: { message: expect.stringMatching(/^refusing to delete 3 of 3 group objects/) },
    });
  });
});
