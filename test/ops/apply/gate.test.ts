/** The apply gate's refusals that read only the plan: a secret in what would be sent, the safety threshold. */
import { describe, expect, it } from 'vitest';
import type { Attributes, Plan } from '../../../src/core/model.js';
import { registerSecret } from '../../../src/core/secrets.js';
import { safetyRefusal, secretRefusal } from '../../../src/ops/apply/gate.js';
import { planChanges } from '../../../src/plan/planner.js';

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
