/**
 * Issue 14: a name, key, id or message from configuration or the API can never forge a line of a
 * plan or drift report, recolour or erase one, nor inject markdown or HTML into a comment.
 */
import { describe, expect, it } from 'vitest';
import type { Plan } from '../../../src/core/model.js';
import { planChanges } from '../../../src/plan/planner.js';
import { renderMarkdownDrift, renderTextDrift } from '../../../src/plan/render/drift.js';
import { renderJsonPlan } from '../../../src/plan/render/json.js';
import {
  DRIFT_MARKDOWN_MARKER,
  MARKDOWN_MARKER,
  renderMarkdownPlan,
} from '../../../src/plan/render/markdown.js';
import { renderTextPlan } from '../../../src/plan/render/text.js';
import { samplePlan } from '../fixtures.js';

const FORGED = 'Plan: 0 to add, 0 to change, 0 to destroy.';
/** A line break that would forge a plan line, then "erase the line" for a terminal. */
const EVIL = `\n${FORGED}\u001b[2K`;
/** How EVIL reads once escaped. */
const ESCAPED = `\\n${FORGED}\\u001b[2K`;

const rule = (description: string, expressions: string[]) => ({
  rq_host: 'shop.example.com',
  description,
  priority: 'high',
  enabled: true,
  conditions: [{ operator: 'match', not_op: false, expressions, targets: ['path'] }],
  actions: [{ firewall_action: 'block', firewall_name: 'waf-eu-1' }],
});

/**
 * A plan with every action, a duplicate and a problem, whose keys, ids and declaration place end
 * with `suffix`. Attribute values always hold EVIL, so two plans built with different suffixes
 * differ only in what is printed in headers, addresses and messages.
 */
function plan(suffix: string): Plan {
  const same = { protect: false, ignoreChanges: [] };
  return planChanges([
    {
      kind: 'group',
      immutable: [],
      scope: { prune: false, match: {} },
      desired: [
        {
          key: `soc${suffix}`,
          attributes: {
            name: `soc${EVIL}`,
            description: `Tier-1${EVIL}`,
            [`note${EVIL}`]: 'a',
            users: ['u-1'],
          },
          ...same,
        },
        { key: `new${suffix}`, attributes: { name: `new${EVIL}`, description: 'd' }, ...same },
      ],
      remote: [
        {
          id: `g-7${suffix}`,
          key: `soc${suffix}`,
          attributes: {
            name: `soc${EVIL}`,
            description: 'Tier-1',
            [`note${EVIL}`]: 'b',
            users: ['u-1', `u-2${EVIL}`],
          },
        },
      ],
    },
    {
      kind: 'notification',
      immutable: [],
      scope: { prune: true, match: {} },
      desired: [
        {
          key: `splunk${suffix}`,
          attributes: { name: `splunk${EVIL}`, settings: { [`port${EVIL}`]: 514 } },
          ...same,
        },
      ],
      remote: [
        {
          id: `n-1${suffix}`,
          key: `splunk${suffix}`,
          attributes: { name: `splunk${EVIL}`, settings: { [`port${EVIL}`]: 514 } },
        },
        {
          id: 'n-2',
          key: `splunk${suffix}`,
          attributes: { name: `splunk${EVIL}`, settings: { [`port${EVIL}`]: 515 } },
        },
        { id: `n-3${suffix}`, key: `old${suffix}`, attributes: { name: `old${EVIL}`, settings: {} } },
      ],
    },
    {
      kind: 'application_rule',
      immutable: ['conditions', 'actions'],
      scope: { prune: false, match: { rq_host: ['*.example.com'] } },
      desired: [
        {
          key: `shop.example.com/Block admin${suffix}`,
          attributes: rule(`Block admin${EVIL}`, ['^/admin/v2']),
          ...same,
        },
        {
          key: `evil.net/Outside${suffix}`,
          attributes: { ...rule(`Outside${EVIL}`, ['x']), rq_host: 'evil.net' },
          source: `a.yaml:1:1${suffix}`,
          ...same,
        },
      ],
      remote: [
        {
          id: 'ar-1',
          key: `shop.example.com/Block admin${suffix}`,
          attributes: rule(`Block admin${EVIL}`, ['^/admin']),
        },
      ],
    },
  ]);
}

const RENDERERS: [string, (plan: Plan) => string][] = [
  ['text plan', (p) => renderTextPlan(p, { color: false })],
  ['markdown plan', (p) => renderMarkdownPlan(p)],
  ['text drift', renderTextDrift],
  ['markdown drift', renderMarkdownDrift],
];

describe('data in a human-readable plan or drift report', () => {
  it.each(RENDERERS)('cannot forge a line, nor send a control character, in the %s', (_, render) => {
    const output = render(plan(EVIL));
    const lines = output.split('\n');
    expect(lines.filter((line) => line.startsWith(FORGED))).toEqual([]);
    expect(output).toContain(ESCAPED);
    expect(output).not.toContain('\u001b');
    // A key that holds a line break adds no line: as many as for a harmless key.
    expect(lines).toHaveLength(render(plan(' harmless-suffix')).split('\n').length);
  });

  it('escapes keys, ids, field names, object keys and values in the text plan', () => {
    const p = plan(EVIL);
    // The fixture has every action, a duplicate and a problem.
    expect(p.changes.map((c) => c.action).sort()).toEqual([
      'create',
      'delete',
      'delete',
      'replace',
      'update',
    ]);
    expect(p.changes.some((c) => c.action === 'delete' && c.duplicate_of === `n-1${EVIL}`)).toBe(true);
    expect(p.problems).toHaveLength(1);

    const text = renderTextPlan(p, { color: false });
    expect(text).toContain(`  # group.soc${ESCAPED} will be updated in-place\n`);
    expect(text).toContain(`  ~ group "soc${ESCAPED}" {\n`);
    // Labels are padded to the longest escaped field name, `note\n...`.
    const width = `note${ESCAPED}`.length;
    expect(text).toContain(`        ${'id'.padEnd(width)} = "g-7${ESCAPED}"\n`);
    expect(text).toContain(`      ~ note${ESCAPED} = "b" -> "a"\n`);
    // A value with a line break is one JSON line, escaped like a key: never a heredoc of raw lines.
    expect(text).toContain(`      - ${'description'.padEnd(width)} = "Tier-1"\n`);
    expect(text).toContain(`      + ${'description'.padEnd(width)} = "Tier-1${ESCAPED}"\n`);
    expect(text).toContain(`      + name        = "new${ESCAPED}"\n`);
    expect(text).toContain(`          - "u-2${ESCAPED}"\n`);
    expect(text).toContain(`          - port${ESCAPED} = 515\n`);
    expect(text).toContain(
      `  # notification.splunk${ESCAPED} will be destroyed (duplicate of n-1${ESCAPED})\n`,
    );
    expect(text).toContain(
      `Error: application_rule.evil.net/Outside${ESCAPED}: declared outside the manage scope of application_rules (declared at a.yaml:1:1${ESCAPED}); wafctl never touches objects outside it\n`,
    );

    // The JSON plan is data, not text for a reader: it keeps the key exactly.
    const doc = JSON.parse(renderJsonPlan(p)) as { changes: { key: string }[] };
    expect(doc.changes.map((c) => c.key)).toContain(`soc${EVIL}`);
  });

  it('escapes keys, ids and field names in the text drift report', () => {
    const drift = renderTextDrift(plan(EVIL));
    expect(drift).toContain(`    ~ group.soc${ESCAPED}: description, note${ESCAPED}, users differ\n`);
    expect(drift).toContain(
      `    - notification.splunk${ESCAPED}: a duplicate of id n-1${ESCAPED} (apply would delete it)\n`,
    );
  });

  it('escapes what JSON.stringify leaves raw: DEL, C1 controls, U+2028 and bidi controls', () => {
    const sneaky = 'a\u007f b\u009b c\u2028 d\u202e e\u2066';
    const p = planChanges([
      {
        kind: 'group',
        immutable: [],
        scope: { prune: false, match: {} },
        desired: [{ key: sneaky, attributes: { name: sneaky }, protect: false, ignoreChanges: [] }],
        remote: [],
      },
    ]);
    const escaped = 'a\\u007f b\\u009b c\\u2028 d\\u202e e\\u2066';
    const text = renderTextPlan(p, { color: false });
    expect(text).toContain(`  # group.${escaped} will be created\n`);
    expect(text).toContain(`  + group "${escaped}" {\n`);
    expect(text).toContain(`      + name = "${escaped}"\n`);
    for (const output of [text, renderMarkdownPlan(p), renderTextDrift(p), renderMarkdownDrift(p)]) {
      expect(output).not.toMatch(/[\u007f\u009b\u2028\u202e\u2066]/);
    }
  });
});

/**
 * The markdown outside fenced code blocks and code spans, whose content is shown literally: what a
 * markdown renderer would read as markup. Every fence and code span must be closed.
 */
function outsideCode(markdown: string): string {
  const kept: string[] = [];
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    if (fence === undefined) {
      const open = /^(`{3,})diff$/.exec(line);
      if (open) fence = open[1];
      else kept.push(line);
    } else if (line === fence) {
      fence = undefined;
    }
  }
  expect(fence).toBeUndefined();
  // A code span opens with a run of N backticks and closes at the next run of exactly N. Lines of
  // an HTML block (`<summary>...`) are raw HTML: markdown, code spans included, is not parsed there.
  return kept
    .map((line) => {
      if (line.startsWith('<')) return line;
      let out = '';
      let rest = line;
      for (let open = /`+/.exec(rest); open; open = /`+/.exec(rest)) {
        out += rest.slice(0, open.index);
        const ticks = open[0];
        const after = rest.slice(open.index + ticks.length);
        const close = new RegExp(`(?<!\`)${ticks}(?!\`)`).exec(after);
        expect(close, `unclosed code span in ${line}`).not.toBeNull();
        rest = after.slice((close?.index ?? 0) + ticks.length);
      }
      return out + rest;
    })
    .join('\n');
}

describe('data in a markdown plan', () => {
  const NASTY = 'x</code></summary></details><img src=x onerror=alert(1)>`` ` ```';

  function nastyPlan(): Plan {
    return planChanges([
      {
        kind: 'notification',
        immutable: [],
        scope: { prune: false, match: { name: ['ok-*'] } },
        desired: [
          { key: `ok-${NASTY}`, attributes: { name: `ok-${NASTY}` }, protect: false, ignoreChanges: [] },
          {
            key: NASTY,
            attributes: { name: NASTY },
            protect: false,
            ignoreChanges: [],
            source: 'a.yaml:1:1 [click](https://evil.example) <b>bold</b> *x* `y` \\',
          },
        ],
        remote: [],
      },
    ]);
  }

  it('cannot close the details, the summary or a code span, nor inject HTML', () => {
    const markdown = renderMarkdownPlan(nastyPlan());
    const outside = outsideCode(markdown);
    expect(outside.match(/<details>/g)).toHaveLength(1);
    expect(outside.match(/<\/details>/g)).toHaveLength(1);
    expect(outside.match(/<\/summary>/g)).toHaveLength(1);
    expect(outside.match(/<\/code>/g)).toHaveLength(1);
    expect(outside).not.toContain('<img');
    expect(outside).not.toContain('<b>');
    expect(markdown).toContain(
      '<summary><code>+ notification.ok-x&lt;/code&gt;&lt;/summary&gt;&lt;/details&gt;&lt;img src=x onerror=alert(1)&gt;`` ` ```</code> will be created</summary>',
    );
    // The body is in a fence longer than any backtick run in it: shown literally.
    expect(markdown).toContain(
      '````diff\n+ name = "ok-x</code></summary></details><img src=x onerror=alert(1)>`` ` ```"\n````',
    );
  });

  it('puts a key in a code span longer than any backtick run in it, and escapes the message', () => {
    const markdown = renderMarkdownPlan(nastyPlan());
    expect(markdown).toContain(
      '> **Error:** ```` notification.x</code></summary></details><img src=x onerror=alert(1)>`` ` ``` ````: ' +
        'declared outside the manage scope of notifications (declared at a.yaml:1:1 ' +
        // GFM would link a bare URL: a zero-width space in `://` keeps it text.
        '\\[click\\](https:&#8203;//evil.example) &lt;b&gt;bold&lt;/b&gt; \\*x\\* \\`y\\` \\\\); ' +
        'wafctl never touches objects outside it\n',
    );
  });

  // The text drift report shows no values, only which fields differ.
  it.each(RENDERERS.filter(([name]) => name !== 'text drift'))(
    'shows a name holding a line break in an attribute value as one escaped line in the %s',
    (_, render) => {
      // Only the value differs between the two plans: the key and every header are harmless.
      const named = (name: string) =>
        planChanges([
          {
            kind: 'group',
            immutable: [],
            scope: { prune: false, match: {} },
            desired: [
              { key: 'soc', attributes: { name, description: 'd' }, protect: false, ignoreChanges: [] },
              {
                key: 'ops',
                attributes: { name: 'ops', description: name },
                protect: false,
                ignoreChanges: [],
              },
            ],
            remote: [{ id: 'g-1', key: 'ops', attributes: { name: 'ops', description: 'old' } }],
          },
        ]);
      const evil = render(named(`soc${EVIL}`));
      const lines = evil.split('\n');
      expect(lines.filter((line) => line.includes(FORGED) && !line.includes(ESCAPED))).toEqual([]);
      expect(evil).toContain(`"soc${ESCAPED}"`);
      expect(evil).not.toContain('<<-EOT');
      // A long harmless name, shown as the evil one is (a changed long string is a -/+ pair).
      expect(lines).toHaveLength(render(named(`soc ${'x'.repeat(80)}`)).split('\n').length);
    },
  );

  it('escapes a line break in a title', () => {
    const markdown = renderMarkdownPlan(samplePlan(), { title: `wafctl plan${EVIL}` });
    expect(markdown.split('\n')[1]).toBe(`### wafctl plan\\\\n${FORGED}\\\\u001b\\[2K`);
  });
});

describe('the drift markdown', () => {
  it('has its own sticky-comment marker, so it never overwrites a plan comment', () => {
    expect(DRIFT_MARKDOWN_MARKER).toBe('<!-- wafctl-drift -->');
    expect(DRIFT_MARKDOWN_MARKER).not.toBe(MARKDOWN_MARKER);
    const drift = renderMarkdownDrift(samplePlan());
    expect(drift.startsWith(`${DRIFT_MARKDOWN_MARKER}\n`)).toBe(true);
    expect(drift).not.toContain(MARKDOWN_MARKER);
    expect(renderMarkdownPlan(samplePlan()).startsWith(`${MARKDOWN_MARKER}\n`)).toBe(true);
  });
});
