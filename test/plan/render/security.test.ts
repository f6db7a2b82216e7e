/** The Security impact section (text, markdown, drift), the markdown budget and the --fail-on gate. */
import { describe, expect, it } from 'vitest';
import { exitCodeFor } from '../../../src/core/errors.js';
import type { Impact, Plan } from '../../../src/core/model.js';
import { DEFAULT_SCOPE } from '../../../src/core/scope.js';
import { planChanges } from '../../../src/plan/planner.js';
import { failOnMatches, failOnRefusal } from '../../../src/plan/policy.js';
import { renderMarkdownDrift, renderTextDrift } from '../../../src/plan/render/drift.js';
import { MARKDOWN_MAX_CHARS, renderMarkdownPlan } from '../../../src/plan/render/markdown.js';
import { renderTextPlan } from '../../../src/plan/render/text.js';

/** `n` notification creates, the i-th with `impacts(i)` (set by hand: the classifier is tested apart). */
function plan(n: number, impacts: (i: number) => Impact[] = () => []): Plan {
  const planned = planChanges([
    {
      kind: 'notification',
      immutable: [],
      scope: DEFAULT_SCOPE,
      remote: [],
      desired: Array.from({ length: n }, (_, i) => ({
        key: `siem-${String(i).padStart(4, '0')}`,
        attributes: {
          name: `siem-${String(i).padStart(4, '0')}`,
          enabled: true,
          settings: {
            destination_address: '10.0.0.5',
            destination_port: 514,
            format: 'cef',
            protocol: 'udp',
          },
        },
        protect: false,
        ignoreChanges: [],
      })),
    },
  ]);
  planned.changes.forEach((change, i) => {
    change.impact = impacts(i);
  });
  for (const change of planned.changes) {
    for (const klass of new Set(change.impact.map((x) => x.class))) planned.summary.impact[klass] += 1;
  }
  return planned;
}

const weakens = (reason: string): Impact => ({ class: 'weakens_protection', reason });
const audit = (reason: string): Impact => ({ class: 'reduces_audit', reason });

describe('the Security impact section', () => {
  it('counts changes in the headline and gives one line a change and class, its reasons joined (issue 40)', () => {
    const access = (reason: string): Impact => ({ class: 'broadens_access', reason });
    const twice = plan(2, (i) =>
      i === 0 ? [access('member added: alice'), access('member added: bob')] : [access('x')],
    );
    const lines = renderTextPlan(twice, { color: false }).split('\n');
    expect(lines.slice(0, 3)).toEqual([
      'Security impact: 2 changes broaden access.',
      '  ! broadens_access  notification.siem-0000: member added: alice; member added: bob',
      '  ! broadens_access  notification.siem-0001: x',
    ]);
    const markdown = renderMarkdownPlan(twice);
    expect(markdown.match(/^- \*\*broadens_access\*\*/gm)).toHaveLength(2);
  });

  const p = plan(3, (i) =>
    i === 0
      ? [weakens('deleted'), audit('disabled (enabled: true -> false)')]
      : i === 2
        ? [audit('redirected\nPlan: forged')]
        : [],
  );

  it('comes first in the text plan: a count per class, then one line per change and class', () => {
    const lines = renderTextPlan(p, { color: false }).split('\n');
    expect(lines.slice(0, 5)).toEqual([
      'Security impact: 1 change weakens protection, 2 changes reduce audit.',
      '  ! weakens_protection  notification.siem-0000: deleted',
      '  ! reduces_audit       notification.siem-0000: disabled (enabled: true -> false)',
      '  ! reduces_audit       notification.siem-0002: redirected\\nPlan: forged',
      '',
    ]);
    expect(lines[5]).toBe('wafctl will perform the following actions:');
  });

  it('says "none" explicitly when changes have no impact, and is absent without changes', () => {
    expect(renderTextPlan(plan(1), { color: false })).toMatch(
      /^Security impact: none: no change weakens protection, broadens access or reduces audit\.\n/,
    );
    expect(renderTextPlan(plan(0), { color: false })).not.toContain('Security impact');
  });

  it('comes before the details in markdown, escaped', () => {
    const markdown = renderMarkdownPlan(p);
    const section = markdown.indexOf('#### Security impact');
    expect(section).toBeGreaterThan(markdown.indexOf('| create |'));
    expect(section).toBeLessThan(markdown.indexOf('<details>'));
    expect(markdown).toContain(
      [
        '#### Security impact',
        '',
        '1 change weakens protection, 2 changes reduce audit.',
        '',
        '- **weakens_protection** `notification.siem-0000`: deleted',
        '- **reduces_audit** `notification.siem-0000`: disabled (enabled: true -&gt; false)',
        '- **reduces_audit** `notification.siem-0002`: redirected\\\\nPlan: forged',
      ].join('\n'),
    );
  });

  it('is in the drift reports too', () => {
    expect(renderTextDrift(p).split('\n').slice(0, 2)).toEqual([
      'Drift detected: 3 objects differ from the configuration.',
      'Security impact of the drift (what was changed outside wafctl): 1 change weakens protection, 2 changes reduce audit.',
    ]);
    expect(renderMarkdownDrift(p)).toContain(
      '#### Security impact of the drift (what was changed outside wafctl)',
    );
  });
});

describe('the markdown budget', () => {
  it('keeps a 2,000-create plan under 65,536 characters, saying how many changes are not shown', () => {
    const big = plan(2000);
    const markdown = renderMarkdownPlan(big);
    expect(markdown.length).toBeLessThanOrEqual(MARKDOWN_MAX_CHARS);
    const shown = markdown.match(/<details>/g)?.length ?? 0;
    expect(shown).toBeGreaterThan(100);
    expect(
      markdown.endsWith(`_${2000 - shown} more changes not shown (see the JSON plan / job log)._\n`),
    ).toBe(true);
    expect(markdown).toContain('**Plan: 2000 to add, 0 to change, 0 to destroy.**');
  });

  it.each([1000, 1500, 4000, 20_000])('never exceeds --max-chars %i, whatever the plan', (maxChars) => {
    for (const p of [
      plan(0),
      plan(1),
      plan(40),
      plan(300, (i) => [weakens(`reason ${i} `.repeat(1 + (i % 7)))]),
    ]) {
      const markdown = renderMarkdownPlan(p, { maxChars });
      expect(markdown.length).toBeLessThanOrEqual(maxChars);
      expect(markdown.startsWith('<!-- wafctl-plan -->\n### wafctl plan\n')).toBe(true);
      expect(markdown).toContain('| create | update |');
    }
  });

  it('cuts a Security impact section that does not fit with a count, and shows no details then', () => {
    const p = plan(300, (i) => [weakens(`reason ${i} `.repeat(10))]);
    const markdown = renderMarkdownPlan(p, { maxChars: 4000 });
    const listed = markdown.match(/^- \*\*weakens_protection\*\*/gm)?.length ?? 0;
    expect(listed).toBeGreaterThan(0);
    expect(listed).toBeLessThan(300);
    expect(markdown).toMatch(/_\d+ more lines of this summary not shown \(see the JSON plan \/ job log\)\._/);
    expect(markdown).not.toContain('<details>');
    expect(markdown).toMatch(/_300 more changes not shown \(see the JSON plan \/ job log\)\._\n$/);
  });

  it('leaves a plan that fits exactly as it is: no count line', () => {
    expect(renderMarkdownPlan(plan(5))).not.toContain('not shown');
  });
});

describe('--fail-on', () => {
  const p = plan(8, (i) => (i < 7 ? [weakens('deleted')] : [audit('disabled')]));

  it('matches the named classes that some change has, in the contract order', () => {
    expect(
      failOnMatches(p, ['reduces_audit', 'broadens_access', 'weakens_protection']).map((m) => [
        m.class,
        m.changes.length,
      ]),
    ).toEqual([
      ['weakens_protection', 7],
      ['reduces_audit', 1],
    ]);
    expect(failOnMatches(p, ['broadens_access'])).toEqual([]);
    expect(failOnRefusal(p, [], 'x')).toBeUndefined();
  });

  it('refuses with exit code 3, naming the classes and the first changes', () => {
    const refusal = failOnRefusal(p, ['weakens_protection', 'reduces_audit'], 'Nothing was applied.');
    expect(refusal?.code).toBe('POLICY_REFUSED');
    expect(exitCodeFor(refusal)).toBe(3);
    expect(refusal?.message).toBe(
      '--fail-on weakens_protection,reduces_audit: 7 changes weaken protection (notification.siem-0000, notification.siem-0001, notification.siem-0002, notification.siem-0003, notification.siem-0004 and 2 more); 1 change reduces audit (notification.siem-0007); see the Security impact section above. Nothing was applied.',
    );
  });
});
