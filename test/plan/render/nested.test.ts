/**
 * Issue 15: a change inside `conditions`, `actions`, `permissions` or `settings` is shown as nested
 * blocks at every depth, lists as sets (members removed and added), never as a line of inline JSON.
 */
import { describe, expect, it } from 'vitest';
import type { Attributes, KindName, Plan } from '../../../src/core/model.js';
import { planChanges } from '../../../src/plan/planner.js';
import { renderMarkdownPlan } from '../../../src/plan/render/markdown.js';
import { renderTextPlan } from '../../../src/plan/render/text.js';

interface Side {
  key: string;
  attributes: Attributes;
}

/** A plan of one object of `kind`: `remote` alone is a delete, `desired` alone a create. */
function planOf(kind: KindName, immutable: string[], remote: Side | null, desired: Side | null): Plan {
  return planChanges([
    {
      kind,
      immutable,
      scope: { prune: true, match: {} },
      desired: desired ? [{ ...desired, protect: false, ignoreChanges: [] }] : [],
      remote: remote ? [{ ...remote, id: `${kind.slice(0, 1)}-1` }] : [],
    },
  ]);
}

/** The changes of the text plan: from the first change header to the last closing brace. */
function textChanges(plan: Plan): string {
  const lines = renderTextPlan(plan, { color: false }).split('\n');
  const start = lines.findIndex((line) => line.startsWith('  # '));
  return `\n${lines.slice(start, lines.lastIndexOf('    }') + 1).join('\n')}\n`;
}

/** The changes of the markdown plan: its `<details>` blocks. */
function markdownChanges(plan: Plan): string {
  const markdown = renderMarkdownPlan(plan);
  return `\n${markdown.slice(markdown.indexOf('<details>'), markdown.lastIndexOf('</details>') + 10)}\n`;
}

/** A line of inline JSON holding an object or a list with something in it. */
const INLINE_JSON = /[[{]["\d{[]/;

const rule = (conditions: unknown[], actions: unknown[]): Side => ({
  key: 'shop.example.com/Block admin',
  attributes: {
    rq_host: 'shop.example.com',
    description: 'Block admin',
    priority: 'high',
    enabled: true,
    conditions,
    actions,
  },
});
const scanners = {
  operator: 'contains',
  not_op: false,
  expressions: ['nikto', 'sqlmap'],
  targets: ['request:user-agent'],
};
const admin = (expression: string) => ({
  operator: 'match',
  not_op: false,
  expressions: [expression],
  targets: ['path'],
});
const action = (firewallAction: string) => ({ firewall_action: firewallAction, firewall_name: 'waf-eu-1' });

const group = (permissions: unknown[], users: string[]): Side => ({
  key: 'soc-analysts',
  attributes: { name: 'soc-analysts', description: 'Tier-1 analysts', is_admin: false, permissions, users },
});
const permission = (name: string, serviceId: string) => ({ permission: name, service_id: serviceId });

const splunk = (port: number): Side => ({
  key: 'splunk',
  attributes: {
    name: 'splunk',
    type: 'siem',
    enabled: true,
    settings: { destination_address: '10.0.0.5', destination_port: port, format: 'cef', protocol: 'udp' },
  },
});

const schedule = (sendTo: string[]): Side => ({
  key: 'weekly-shop',
  attributes: {
    name: 'weekly-shop',
    hosts: ['shop.example.com'],
    services: null,
    type: 'summary',
    schedule: 'weekly',
    send_to: sendTo,
    send_via: 'email',
    timezone: 'Europe/Paris',
  },
});

describe('a nested change', () => {
  const replaced = planOf(
    'application_rule',
    ['conditions', 'actions'],
    rule([scanners, admin('^/admin')], [action('block')]),
    rule([scanners, admin('^/admin/')], [action('log')]),
  );

  it('replaces a rule: the changed condition and action removed and added, the other condition counted', () => {
    expect(textChanges(replaced)).toMatchInlineSnapshot(`
      "
        # application_rule.shop.example.com/Block admin will be replaced
      -/+ application_rule "shop.example.com/Block admin" {
              id         = "a-1" -> (known after apply)
            ~ conditions = [ # forces replacement
                - {
                    - operator    = "match"
                    - not_op      = false
                    - expressions = [
                        - "^/admin"
                      ]
                    - targets     = [
                        - "path"
                      ]
                  }
                + {
                    + operator    = "match"
                    + not_op      = false
                    + expressions = [
                        + "^/admin/"
                      ]
                    + targets     = [
                        + "path"
                      ]
                  }
                  # (1 unchanged element hidden)
              ]
            ~ actions    = [ # forces replacement
                - {
                    - firewall_action = "block"
                    - firewall_name   = "waf-eu-1"
                  }
                + {
                    + firewall_action = "log"
                    + firewall_name   = "waf-eu-1"
                  }
              ]
              # (4 unchanged attributes hidden)
          }
      "
    `);
    expect(markdownChanges(replaced)).toMatchInlineSnapshot(`
      "
      <details>
      <summary><code>-/+ application_rule.shop.example.com/Block admin</code> will be replaced</summary>

      \`\`\`diff
        id         = "a-1" -> (known after apply)
        conditions = [ # forces replacement
      -   {
      -     operator    = "match"
      -     not_op      = false
      -     expressions = [
      -       "^/admin"
      -     ]
      -     targets     = [
      -       "path"
      -     ]
      -   }
      +   {
      +     operator    = "match"
      +     not_op      = false
      +     expressions = [
      +       "^/admin/"
      +     ]
      +     targets     = [
      +       "path"
      +     ]
      +   }
          # (1 unchanged element hidden)
        ]
        actions    = [ # forces replacement
      -   {
      -     firewall_action = "block"
      -     firewall_name   = "waf-eu-1"
      -   }
      +   {
      +     firewall_action = "log"
      +     firewall_name   = "waf-eu-1"
      +   }
        ]
        # (4 unchanged attributes hidden)
      \`\`\`

      </details>
      "
    `);
  });

  const regrouped = planOf(
    'group',
    [],
    group([permission('Explore alerts', '')], ['u-1001', 'u-1002']),
    group([permission('Explore alerts', ''), permission('Handle rules', 'svc-shop')], ['u-1001']),
  );

  it('updates a group that gains a permission and loses a member', () => {
    expect(textChanges(regrouped)).toMatchInlineSnapshot(`
      "
        # group.soc-analysts will be updated in-place
        ~ group "soc-analysts" {
              id          = "g-1"
            ~ permissions = [
                + {
                    + permission = "Handle rules"
                    + service_id = "svc-shop"
                  }
                  # (1 unchanged element hidden)
              ]
            ~ users       = [
                  "u-1001"
                - "u-1002"
              ]
              # (3 unchanged attributes hidden)
          }
      "
    `);
    expect(markdownChanges(regrouped)).toMatchInlineSnapshot(`
      "
      <details>
      <summary><code>~ group.soc-analysts</code> will be updated in-place</summary>

      \`\`\`diff
        id          = "g-1"
        permissions = [
      +   {
      +     permission = "Handle rules"
      +     service_id = "svc-shop"
      +   }
          # (1 unchanged element hidden)
        ]
        users       = [
          "u-1001"
      -   "u-1002"
        ]
        # (3 unchanged attributes hidden)
      \`\`\`

      </details>
      "
    `);
  });

  const redirected = planOf('notification', [], splunk(514), splunk(6514));

  it("shows a notification's changed port inside its settings block, with the settings around it", () => {
    expect(textChanges(redirected)).toMatchInlineSnapshot(`
      "
        # notification.splunk will be updated in-place
        ~ notification "splunk" {
              id       = "n-1"
            ~ settings = {
                  destination_address = "10.0.0.5"
                ~ destination_port    = 514 -> 6514
                  format              = "cef"
                  protocol            = "udp"
              }
              # (3 unchanged attributes hidden)
          }
      "
    `);
    expect(markdownChanges(redirected)).toMatchInlineSnapshot(`
      "
      <details>
      <summary><code>~ notification.splunk</code> will be updated in-place</summary>

      \`\`\`diff
        id       = "n-1"
        settings = {
          destination_address = "10.0.0.5"
      -   destination_port    = 514
      +   destination_port    = 6514
          format              = "cef"
          protocol            = "udp"
        }
        # (3 unchanged attributes hidden)
      \`\`\`

      </details>
      "
    `);
  });

  const created = planOf('application_rule', [], null, rule([scanners], [action('block')]));
  const deleted = planOf(
    'group',
    [],
    group([permission('Explore alerts', ''), permission('Handle rules', 'svc-shop')], ['u-1001']),
    null,
  );

  it('shows a create with + and a delete with - at every depth', () => {
    expect(textChanges(created)).toMatchInlineSnapshot(`
      "
        # application_rule.shop.example.com/Block admin will be created
        + application_rule "shop.example.com/Block admin" {
            + rq_host     = "shop.example.com"
            + description = "Block admin"
            + priority    = "high"
            + enabled     = true
            + conditions  = [
                + {
                    + operator    = "contains"
                    + not_op      = false
                    + expressions = [
                        + "nikto"
                        + "sqlmap"
                      ]
                    + targets     = [
                        + "request:user-agent"
                      ]
                  }
              ]
            + actions     = [
                + {
                    + firewall_action = "block"
                    + firewall_name   = "waf-eu-1"
                  }
              ]
          }
      "
    `);
    expect(markdownChanges(created)).toMatchInlineSnapshot(`
      "
      <details>
      <summary><code>+ application_rule.shop.example.com/Block admin</code> will be created</summary>

      \`\`\`diff
      + rq_host     = "shop.example.com"
      + description = "Block admin"
      + priority    = "high"
      + enabled     = true
      + conditions  = [
      +   {
      +     operator    = "contains"
      +     not_op      = false
      +     expressions = [
      +       "nikto"
      +       "sqlmap"
      +     ]
      +     targets     = [
      +       "request:user-agent"
      +     ]
      +   }
      + ]
      + actions     = [
      +   {
      +     firewall_action = "block"
      +     firewall_name   = "waf-eu-1"
      +   }
      + ]
      \`\`\`

      </details>
      "
    `);
    expect(textChanges(deleted)).toMatchInlineSnapshot(`
      "
        # group.soc-analysts will be destroyed
        - group "soc-analysts" {
            - id          = "g-1"
            - name        = "soc-analysts"
            - description = "Tier-1 analysts"
            - is_admin    = false
            - permissions = [
                - {
                    - permission = "Explore alerts"
                    - service_id = ""
                  }
                - {
                    - permission = "Handle rules"
                    - service_id = "svc-shop"
                  }
              ]
            - users       = [
                - "u-1001"
              ]
          }
      "
    `);
    expect(markdownChanges(deleted)).toMatchInlineSnapshot(`
      "
      <details>
      <summary><code>- group.soc-analysts</code> will be destroyed</summary>

      \`\`\`diff
      - id          = "g-1"
      - name        = "soc-analysts"
      - description = "Tier-1 analysts"
      - is_admin    = false
      - permissions = [
      -   {
      -     permission = "Explore alerts"
      -     service_id = ""
      -   }
      -   {
      -     permission = "Handle rules"
      -     service_id = "svc-shop"
      -   }
      - ]
      - users       = [
      -   "u-1001"
      - ]
      \`\`\`

      </details>
      "
    `);
  });

  const recipients = planOf(
    'schedule',
    [],
    schedule(['ciso@example.com', 'secops@example.com']),
    schedule(['noc@example.com', 'secops@example.com', 'soc@example.com']),
  );

  it('shows the recipients a schedule gains and loses, in set order, the kept one as context', () => {
    expect(textChanges(recipients)).toMatchInlineSnapshot(`
      "
        # schedule.weekly-shop will be updated in-place
        ~ schedule "weekly-shop" {
              id      = "s-1"
            ~ send_to = [
                - "ciso@example.com"
                + "noc@example.com"
                  "secops@example.com"
                + "soc@example.com"
              ]
              # (7 unchanged attributes hidden)
          }
      "
    `);
    expect(markdownChanges(recipients)).toMatchInlineSnapshot(`
      "
      <details>
      <summary><code>~ schedule.weekly-shop</code> will be updated in-place</summary>

      \`\`\`diff
        id      = "s-1"
        send_to = [
      -   "ciso@example.com"
      +   "noc@example.com"
          "secops@example.com"
      +   "soc@example.com"
        ]
        # (7 unchanged attributes hidden)
      \`\`\`

      </details>
      "
    `);
  });

  it('never shows an object or a non-empty list as inline JSON', () => {
    for (const plan of [replaced, regrouped, redirected, created, deleted, recipients]) {
      for (const output of [textChanges(plan), markdownChanges(plan)]) {
        expect(output.split('\n').filter((line) => INLINE_JSON.test(line))).toEqual([]);
      }
    }
  });
});

describe('nested rendering rules', () => {
  const notification = (settings: Attributes): Side => ({ key: 'n', attributes: { name: 'n', settings } });

  it('shows fields added to and removed from a nested object, and shows a changed multi-line string escaped, old then new', () => {
    const before = { format: 'cef', template: 'line one\nline two', tls: { verify: true } };
    const after = { format: 'leef', template: 'line one\nline 2', tls: { verify: false, ca: 'x' } };
    const plan = planOf('notification', [], notification(before), notification(after));
    expect(textChanges(plan)).toMatchInlineSnapshot(`
      "
        # notification.n will be updated in-place
        ~ notification "n" {
              id       = "n-1"
            ~ settings = {
                ~ format   = "cef" -> "leef"
                - template = "line one\\nline two"
                + template = "line one\\nline 2"
                ~ tls      = {
                    ~ verify = true -> false
                    + ca     = "x"
                  }
              }
              # (1 unchanged attribute hidden)
          }
      "
    `);
    expect(markdownChanges(plan)).toMatchInlineSnapshot(`
      "
      <details>
      <summary><code>~ notification.n</code> will be updated in-place</summary>

      \`\`\`diff
        id       = "n-1"
        settings = {
      -   format   = "cef"
      +   format   = "leef"
      -   template = "line one\\nline two"
      +   template = "line one\\nline 2"
          tls      = {
      -     verify = true
      +     verify = false
      +     ca     = "x"
          }
        }
        # (1 unchanged attribute hidden)
      \`\`\`

      </details>
      "
    `);
  });

  it('counts the unchanged fields of a large object and the unchanged members of a large set', () => {
    const wide = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`f${i}`, i]));
    const users = Array.from({ length: 11 }, (_, i) => `u-${1000 + i}`);
    const plan = planOf(
      'group',
      [],
      { key: 'g', attributes: { name: 'g', settings: wide, users } },
      { key: 'g', attributes: { name: 'g', settings: { ...wide, f0: 10 }, users: [...users, 'u-2000'] } },
    );
    expect(textChanges(plan)).toMatchInlineSnapshot(`
      "
        # group.g will be updated in-place
        ~ group "g" {
              id       = "g-1"
            ~ settings = {
                ~ f0 = 0 -> 10
                  # (8 unchanged attributes hidden)
              }
            ~ users    = [
                + "u-2000"
                  # (11 unchanged elements hidden)
              ]
              # (1 unchanged attribute hidden)
          }
      "
    `);
  });

  it('shows a change of shape as the old value removed and the new one added', () => {
    const plan = planOf(
      'schedule',
      [],
      { key: 's', attributes: { name: 's', services: null, hosts: [] } },
      { key: 's', attributes: { name: 's', services: ['svc-shop'], hosts: ['a.example.com'] } },
    );
    expect(textChanges(plan)).toMatchInlineSnapshot(`
      "
        # schedule.s will be updated in-place
        ~ schedule "s" {
              id       = "s-1"
            - services = null
            + services = [
                + "svc-shop"
              ]
            ~ hosts    = [
                + "a.example.com"
              ]
              # (1 unchanged attribute hidden)
          }
      "
    `);
    expect(markdownChanges(plan)).toMatchInlineSnapshot(`
      "
      <details>
      <summary><code>~ schedule.s</code> will be updated in-place</summary>

      \`\`\`diff
        id       = "s-1"
      - services = null
      + services = [
      +   "svc-shop"
      + ]
        hosts    = [
      +   "a.example.com"
        ]
        # (1 unchanged attribute hidden)
      \`\`\`

      </details>
      "
    `);
  });

  it('matches repeated members once per repetition, never by position', () => {
    const plan = planOf(
      'schedule',
      [],
      { key: 's', attributes: { send_to: ['b', 'a', 'a'] } },
      { key: 's', attributes: { send_to: ['a', 'c', 'b'] } },
    );
    expect(textChanges(plan)).toMatchInlineSnapshot(`
      "
        # schedule.s will be updated in-place
        ~ schedule "s" {
              id      = "s-1"
            ~ send_to = [
                  "a"
                - "a"
                  "b"
                + "c"
              ]
          }
      "
    `);
  });
});
