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
        '1 remote object is not managed by this configuration and will be left alone.',
        'Run `wafctl plan` for the full diff.',
        '',
      ].join('\n'),
    );
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
