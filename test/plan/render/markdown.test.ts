import { describe, expect, it } from 'vitest';
import { planChanges } from '../../../src/plan/planner.js';
import { MARKDOWN_MARKER, renderMarkdownPlan } from '../../../src/plan/render/markdown.js';
import { samplePlan } from '../fixtures.js';

describe('renderMarkdownPlan', () => {
  it('renders a sticky-comment marker, a summary table and one collapsible diff per change', () => {
    const markdown = renderMarkdownPlan(samplePlan());
    expect(markdown.startsWith(`${MARKDOWN_MARKER}\n`)).toBe(true);
    expect(markdown.match(/<details>/g)).toHaveLength(5);
    expect(markdown).toMatchInlineSnapshot(`
      "<!-- wafctl-plan -->
      ### wafctl plan

      **Plan: 2 to add, 2 to change, 2 to destroy.**

      | create | update | replace | delete | unchanged | unmanaged |
      |---:|---:|---:|---:|---:|---:|
      | 1 | 2 | 1 | 1 | 0 | 1 |

      #### Security impact

      2 changes weaken protection, 1 change broadens access.

      - **weakens_protection** \`application_rule.shop.example.com/Block export\`: match changed: conditions
      - **weakens_protection** \`application_rule.shop.example.com/Old rule\`: deleted
      - **broadens_access** \`group.soc-analysts\`: member added: u-1003

      _1 remote object is not managed by this configuration and will be left alone: \`application_rule.other.net/Foreign\` (outside the manage scope)._

      <details>
      <summary><code>+ group.auditors</code> will be created</summary>

      \`\`\`diff
      + name        = "auditors"
      + description = "Read-only"
      + is_admin    = false
      + users       = []
      \`\`\`

      </details>

      <details>
      <summary><code>~ group.soc-analysts</code> will be updated in-place</summary>

      \`\`\`diff
        id    = "g-7"
        users = [
          "u-1001"
      -   "u-1002"
      +   "u-1003"
        ]
        # (3 unchanged attributes hidden)
      \`\`\`

      </details>

      <details>
      <summary><code>~ application_rule.shop.example.com/Block admin</code> will be updated in-place</summary>

      \`\`\`diff
        id       = "ar-1"
      - priority = "low"
      + priority = "high"
        # (5 unchanged attributes hidden)
      \`\`\`

      </details>

      <details>
      <summary><code>-/+ application_rule.shop.example.com/Block export</code> will be replaced</summary>

      \`\`\`diff
        id         = "ar-2" -> (known after apply)
        conditions = [ # forces replacement
      -   {
      -     operator    = "match"
      -     not_op      = false
      -     expressions = [
      -       "^/export"
      -     ]
      -     targets     = [
      -       "path"
      -     ]
      -   }
      +   {
      +     operator    = "match"
      +     not_op      = false
      +     expressions = [
      +       "^/export/v2"
      +     ]
      +     targets     = [
      +       "path"
      +     ]
      +   }
        ]
        # (5 unchanged attributes hidden)
      \`\`\`

      </details>

      <details>
      <summary><code>- application_rule.shop.example.com/Old rule</code> will be destroyed</summary>

      \`\`\`diff
      - id          = "ar-3"
      - rq_host     = "shop.example.com"
      - description = "Old rule"
      - priority    = "low"
      - enabled     = true
      - conditions  = [
      -   {
      -     operator    = "match"
      -     not_op      = false
      -     expressions = [
      -       "^/old"
      -     ]
      -     targets     = [
      -       "path"
      -     ]
      -   }
      - ]
      - actions     = [
      -   {
      -     firewall_action = "block"
      -     firewall_name   = "waf-eu-1"
      -   }
      - ]
      \`\`\`

      </details>
      "
    `);
  });

  it('escapes HTML in keys and never lets content close its code fence', () => {
    const plan = planChanges([
      {
        kind: 'notification',
        immutable: [],
        scope: { prune: false, match: {} },
        desired: [
          { key: '<b>&x', attributes: { name: 'has ``` inside' }, protect: false, ignoreChanges: [] },
        ],
        remote: [],
      },
    ]);
    const markdown = renderMarkdownPlan(plan);
    expect(markdown).toContain('<code>+ notification.&lt;b&gt;&amp;x</code>');
    expect(markdown).toContain('````diff\n+ name = "has ``` inside"\n````');
  });
});
