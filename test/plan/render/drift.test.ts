import { describe, expect, it } from 'vitest';
import { planChanges } from '../../../src/plan/planner.js';
import {
  driftHeadline,
  renderJsonDrift,
  renderMarkdownDrift,
  renderTextDrift,
} from '../../../src/plan/render/drift.js';
import { samplePlan } from '../fixtures.js';

describe('drift reports', () => {
  it('words the plan as drift, one line per object that differs', () => {
    expect(renderTextDrift(samplePlan({ impactDirection: 'drift' }))).toBe(
      [
        'Drift detected: 5 objects differ from the configuration.',
        // What was done by hand: a member added, a rule's match changed (applying reverts both).
        'Security impact of the drift (what was changed outside wafctl): 1 change weakens protection, 1 change broadens access.',
        '  ! weakens_protection  application_rule.shop.example.com/Block export: match changed: conditions',
        '  ! broadens_access     group.soc-analysts: member added: u-1002',
        '    + group.auditors: missing from the firewall',
        '    ~ group.soc-analysts: users differs',
        '    ~ application_rule.shop.example.com/Block admin: priority differs',
        '  -/+ application_rule.shop.example.com/Block export: conditions differ (apply would replace it)',
        '    - application_rule.shop.example.com/Old rule: not in the configuration (apply would delete it)',
        '1 remote object is not managed by this configuration and will be left alone: application_rule.other.net/Foreign (outside the manage scope).',
        'Run `wafctl plan` for the full diff.',
        '',
      ].join('\n'),
    );
  });

  it("words the markdown report's changes as the text report does, never as actions to approve", () => {
    const markdown = renderMarkdownDrift(samplePlan({ impactDirection: 'drift' }));
    const summaries = markdown.split('\n').filter((line) => line.startsWith('<summary>'));
    expect(summaries).toEqual([
      '<summary><code>+ group.auditors</code> missing from the firewall</summary>',
      '<summary><code>~ group.soc-analysts</code> users differs</summary>',
      '<summary><code>~ application_rule.shop.example.com/Block admin</code> priority differs</summary>',
      '<summary><code>-/+ application_rule.shop.example.com/Block export</code> conditions differ (apply would replace it)</summary>',
      '<summary><code>- application_rule.shop.example.com/Old rule</code> not in the configuration (apply would delete it)</summary>',
    ]);
    expect(markdown).not.toMatch(/will be (created|updated|replaced|destroyed)|Plan: \d/);
    expect(markdown.split('\n').slice(0, 4)).toEqual([
      '<!-- wafctl-drift -->',
      '### wafctl drift: Drift detected: 5 objects differ from the configuration.',
      '',
      '| create | update | replace | delete | unchanged | unmanaged |',
    ]);
  });

  it('says there is no drift when nothing differs', () => {
    const empty = planChanges([]);
    expect(driftHeadline(empty)).toBe('No drift: the firewall matches the configuration.');
    expect(JSON.parse(renderJsonDrift(empty))).toMatchObject({ drift: false, objects: 0, format_version: 1 });
  });

  it('keeps the JSON plan document and the markdown marker', () => {
    expect(JSON.parse(renderJsonDrift(samplePlan({ impactDirection: 'drift' })))).toMatchObject({
      drift: true,
      objects: 5,
      summary: { create: 1 },
    });
    expect(renderMarkdownDrift(samplePlan({ impactDirection: 'drift' }))).toContain(
      '### wafctl drift: Drift detected: 5 objects differ',
    );
  });
});
