import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { planChanges } from '../../../src/plan/planner.js';
import { renderTextPlan } from '../../../src/plan/render/text.js';
import { samplePlan } from '../fixtures.js';

describe('renderTextPlan', () => {
  it('renders every action Terraform-style', () => {
    expect(renderTextPlan(samplePlan(), { color: false })).toMatchInlineSnapshot(`
      "Security impact: 2 changes weaken protection, 1 change broadens access.
        ! weakens_protection  application_rule.shop.example.com/Block export: match changed: conditions
        ! weakens_protection  application_rule.shop.example.com/Old rule: deleted
        ! broadens_access     group.soc-analysts: member added: u-1003

      wafctl will perform the following actions:

      Resource actions are indicated with the following symbols:
        + create
        ~ update in-place
        - destroy
      -/+ replace (the new object is created before the old one is deleted)

        # group.auditors will be created
        + group "auditors" {
            + name        = "auditors"
            + description = "Read-only"
            + is_admin    = false
            + users       = []
          }

        # group.soc-analysts will be updated in-place
        ~ group "soc-analysts" {
              id    = "g-7"
            ~ users = [
                  "u-1001"
                - "u-1002"
                + "u-1003"
              ]
              # (3 unchanged attributes hidden)
          }

        # application_rule.shop.example.com/Block admin will be updated in-place
        ~ application_rule "shop.example.com/Block admin" {
              id       = "ar-1"
            ~ priority = "low" -> "high"
              # (5 unchanged attributes hidden)
          }

        # application_rule.shop.example.com/Block export will be replaced
      -/+ application_rule "shop.example.com/Block export" {
              id         = "ar-2" -> (known after apply)
            ~ conditions = [ # forces replacement
                - {
                    - operator    = "match"
                    - not_op      = false
                    - expressions = [
                        - "^/export"
                      ]
                    - targets     = [
                        - "path"
                      ]
                  }
                + {
                    + operator    = "match"
                    + not_op      = false
                    + expressions = [
                        + "^/export/v2"
                      ]
                    + targets     = [
                        + "path"
                      ]
                  }
              ]
              # (5 unchanged attributes hidden)
          }

        # application_rule.shop.example.com/Old rule will be destroyed
        - application_rule "shop.example.com/Old rule" {
            - id          = "ar-3"
            - rq_host     = "shop.example.com"
            - description = "Old rule"
            - priority    = "low"
            - enabled     = true
            - conditions  = [
                - {
                    - operator    = "match"
                    - not_op      = false
                    - expressions = [
                        - "^/old"
                      ]
                    - targets     = [
                        - "path"
                      ]
                  }
              ]
            - actions     = [
                - {
                    - firewall_action = "block"
                    - firewall_name   = "waf-eu-1"
                  }
              ]
          }

      1 remote object is not managed by this configuration and will be left alone: application_rule.other.net/Foreign (outside the manage scope).

      Plan: 2 to add, 2 to change, 2 to destroy.
      "
    `);
  });

  it('colours only when asked, and the colours carry no content', () => {
    const plain = renderTextPlan(samplePlan(), { color: false });
    const coloured = renderTextPlan(samplePlan(), { color: true });
    expect(plain).not.toContain('\u001b[');
    expect(coloured).toContain('\u001b[');
    expect(stripVTControlCharacters(coloured)).toBe(plain);
  });

  it('says "No changes." when there is nothing to do', () => {
    const plan = planChanges([
      {
        kind: 'notification',
        immutable: [],
        scope: { prune: false, match: {} },
        desired: [{ key: 'n', attributes: { name: 'n' }, protect: false, ignoreChanges: [] }],
        remote: [{ id: 'n', key: 'n', attributes: { name: 'n' } }],
      },
    ]);
    expect(renderTextPlan(plan, { color: false })).toBe(
      'No changes. The firewall matches the configuration.\n',
    );
  });

  it('shows a changed multi-line string as its old and new values, each one escaped line', () => {
    const plan = planChanges([
      {
        kind: 'group',
        immutable: [],
        scope: { prune: false, match: {} },
        desired: [
          {
            key: 'g',
            attributes: { description: 'line one\nline two changed\nline three' },
            protect: false,
            ignoreChanges: [],
          },
        ],
        remote: [{ id: '1', key: 'g', attributes: { description: 'line one\nline two\nline three' } }],
      },
    ]);
    const text = renderTextPlan(plan, { color: false });
    expect(text).toContain(
      [
        '      - description = "line one\\nline two\\nline three"',
        '      + description = "line one\\nline two changed\\nline three"',
      ].join('\n'),
    );
  });

  it('lists problems and safety warnings before the plan line', () => {
    const remote = Array.from({ length: 10 }, (_, i) => ({
      id: `${i}`,
      key: `n${i}`,
      attributes: { name: `n${i}` },
    }));
    const plan = planChanges([
      {
        kind: 'notification',
        immutable: [],
        scope: { prune: true, match: {} },
        desired: [{ key: 'n0', attributes: { name: 'n0' }, protect: true, ignoreChanges: [] }],
        remote: [...remote, { ...remote[0]!, id: '10' }],
      },
    ]);
    const lines = renderTextPlan(plan, { color: false }).trimEnd().split('\n');
    expect(lines).toContain(
      'Error: notification.n0: protected: 2 remote objects share this key (ids 0, 10) and deleting the duplicates would delete protected objects; nothing is planned for it. Delete all but one by hand, or remove "protect: true" to let wafctl keep id 0 and delete the others',
    );
    expect(lines).toContain(
      'Warning: the plan deletes 9 of 11 existing notification objects (82%), above the safety limit of 30%; apply refuses this without --force.',
    );
    expect(lines.at(-1)).toBe('Plan: 0 to add, 0 to change, 9 to destroy.');
  });

  it('says that duplicates are deleted and not counted by the safety threshold (issue 41)', () => {
    const remote = Array.from({ length: 10 }, (_, i) => ({
      id: `${i}`,
      key: 'n',
      attributes: { name: 'n' },
    }));
    const plan = planChanges([
      {
        kind: 'notification',
        immutable: [],
        scope: { prune: false, match: {} },
        desired: [{ key: 'n', attributes: { name: 'n' }, protect: false, ignoreChanges: [] }],
        remote,
      },
    ]);
    expect(plan.warnings).toEqual([]);
    expect(renderTextPlan(plan, { color: false })).toContain(
      'Note: 9 notification objects are duplicates of declared ones (two applies at once leave such copies): deleted, a copy with the same key stays; the safety threshold does not count them.',
    );
  });
});
