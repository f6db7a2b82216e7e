/**
 * Drift reports name who changed what and when, and the rules not enforced (issue 44): text,
 * markdown (opening with "Who changed what", within its size limit) and JSON (through its schema).
 */
import { describe, expect, it } from 'vitest';
import { driftDocumentSchema } from '../../../src/core/drift-document.js';
import { KINDS } from '../../../src/kinds/index.js';
import { withAttribution } from '../../../src/plan/attribution.js';
import { withEnforcement } from '../../../src/plan/enforcement.js';
import { type KindPlanInput, planChanges, type RemoteObject } from '../../../src/plan/planner.js';
import { utcMinute } from '../../../src/plan/render/attribution.js';
import {
  renderJsonDrift,
  renderMarkdownDrift,
  renderTextDrift,
  WHO_CHANGED_WHAT_LINES,
} from '../../../src/plan/render/drift.js';
import { renderJsonPlan } from '../../../src/plan/render/json.js';
import { renderMarkdownPlan } from '../../../src/plan/render/markdown.js';
import { samplePlan } from '../fixtures.js';

const NOW = Date.parse('2026-11-27T10:00:00Z');
const impact = KINDS.find((kind) => kind.name === 'application_rule')?.impact ?? [];

const rule = (description: string, priority = 'high') => ({
  rq_host: 'shop.example.com',
  description,
  priority,
  enabled: true,
  conditions: [{ operator: 'match', not_op: false, expressions: ['^/a'], targets: ['path'] }],
  actions: [{ firewall_action: 'block', firewall_name: 'waf-eu-1' }],
});
const declared = (description: string) => ({
  key: `shop.example.com/${description}`,
  attributes: rule(description),
  protect: false,
  ignoreChanges: [],
});
const live = (
  id: string,
  description: string,
  fields: Partial<RemoteObject>,
  priority = 'high',
): RemoteObject => ({
  id,
  key: `shop.example.com/${description}`,
  attributes: rule(description, priority),
  enforcement: [{ firewall: 'waf-eu-1', status: 'synced' }],
  ...fields,
});

/** A drift of four rules: alice changed A, carol made C by hand, bob's B fails to sync, D was deleted. */
function sampleDrift() {
  const inputs: KindPlanInput[] = [
    {
      kind: 'application_rule',
      impact,
      immutable: ['conditions', 'actions'],
      scope: { prune: true, match: {} },
      desired: [declared('A'), declared('B'), declared('D')],
      remote: [
        live('1', 'A', { changedBy: 'alice', changedAt: Date.parse('2026-11-27T08:02:13Z') }, 'low'),
        live('2', 'B', {
          changedBy: 'bob',
          changedAt: Date.parse('2026-11-26T08:02:00Z'),
          enforcement: [{ firewall: 'waf-eu-1', status: 'error' }],
        }),
        live('3', 'C', { changedBy: 'carol', changedAt: Date.parse('2026-11-27T09:30:59Z') }),
      ],
    },
  ];
  const plan = planChanges(inputs, { impactDirection: 'drift' });
  return withEnforcement(withAttribution(plan, inputs), inputs, { now: NOW });
}

describe('drift reports name who changed what', () => {
  it('text: each entry says who changed it and when, in UTC to the minute; rules not enforced are drift', () => {
    expect(renderTextDrift(sampleDrift())).toBe(
      [
        'Drift detected: 3 objects differ from the configuration; 1 managed rule is not enforced.',
        'Security impact of the drift (what was changed outside wafctl): 1 change weakens protection, 1 unenforced rule weakens protection.',
        '  ! weakens_protection  application_rule.shop.example.com/D: deleted',
        '  ! weakens_protection  application_rule.shop.example.com/B: not enforced on waf-eu-1: sync error',
        '    ~ application_rule.shop.example.com/A: priority differs (changed by alice, 2026-11-27 08:02 UTC)',
        '    - application_rule.shop.example.com/C: not in the configuration (apply would delete it) (changed by carol, 2026-11-27 09:30 UTC)',
        '    + application_rule.shop.example.com/D: missing from the firewall',
        '  ! application_rule.shop.example.com/B: not enforced on waf-eu-1: sync error (changed by bob, 2026-11-26 08:02 UTC)',
        'Run `wafctl plan` for the full diff.',
        '',
      ].join('\n'),
    );
  });

  it('markdown: opens with who changed what, newest first, and says it on each entry', () => {
    const markdown = renderMarkdownDrift(sampleDrift());
    const lines = markdown.split('\n');
    const opening = lines.indexOf('#### Who changed what');
    // Right after the title and the counts: before any other section.
    expect(lines.slice(opening - 2, opening + 6)).toEqual([
      '| 1 | 1 | 0 | 1 | 1 | 0 |',
      '',
      '#### Who changed what',
      '',
      '- carol, 2026-11-27 09:30 UTC: `application_rule.shop.example.com/C`',
      '- alice, 2026-11-27 08:02 UTC: `application_rule.shop.example.com/A`',
      '- bob, 2026-11-26 08:02 UTC: `application_rule.shop.example.com/B`',
      '',
    ]);
    expect(markdown.indexOf('#### Who changed what')).toBeLessThan(markdown.indexOf('#### Security impact'));
    expect(lines.filter((line) => line.startsWith('<summary>'))).toEqual([
      '<summary><code>~ application_rule.shop.example.com/A</code> priority differs (changed by alice, 2026-11-27 08:02 UTC)</summary>',
      '<summary><code>- application_rule.shop.example.com/C</code> not in the configuration (apply would delete it) (changed by carol, 2026-11-27 09:30 UTC)</summary>',
      '<summary><code>+ application_rule.shop.example.com/D</code> missing from the firewall</summary>',
    ]);
    expect(markdown).toContain(
      '- `application_rule.shop.example.com/B`: not enforced on waf-eu-1: sync error (changed by bob, 2026-11-26 08:02 UTC)',
    );
    expect(markdown).toContain(
      '- **weakens_protection** `application_rule.shop.example.com/B`: not enforced on waf-eu-1: sync error',
    );
  });

  it('JSON: changed_by and changed_at on entries with a record, the findings in `enforcement`; it decodes', () => {
    const json = JSON.parse(renderJsonDrift(sampleDrift()));
    expect(json).toMatchObject({ drift: true, objects: 4 });
    expect(
      json.changes.map((c: Record<string, unknown>) => [c.action, c.key, c.changed_by, c.changed_at]),
    ).toEqual([
      ['update', 'shop.example.com/A', 'alice', '2026-11-27T08:02:13.000Z'],
      ['delete', 'shop.example.com/C', 'carol', '2026-11-27T09:30:59.000Z'],
      ['create', 'shop.example.com/D', undefined, undefined],
    ]);
    expect(Object.keys(json.changes[2])).not.toContain('changed_by');
    expect(json.enforcement).toEqual([
      {
        kind: 'application_rule',
        key: 'shop.example.com/B',
        id: '2',
        changed_by: 'bob',
        changed_at: '2026-11-26T08:02:00.000Z',
        firewalls: [{ firewall: 'waf-eu-1', status: 'error', state: 'error' }],
        impact: [{ class: 'weakens_protection', reason: 'not enforced on waf-eu-1: sync error' }],
      },
    ]);
    expect(driftDocumentSchema.safeParse(json).success).toBe(true);
    // A report written before these fields still decodes.
    expect(driftDocumentSchema.safeParse(JSON.parse(renderJsonDrift(samplePlan()))).success).toBe(true);
  });

  it('a plan renders as it always did: no attribution, no enforcement', () => {
    const json = renderJsonPlan(samplePlan());
    expect(json).not.toMatch(/changed_by|changed_at|enforcement/);
    expect(renderMarkdownPlan(samplePlan())).not.toMatch(/Who changed what|Not enforced|changed by/);
  });

  it('the opening keeps within its lines and the markdown within --max-chars', () => {
    const many = WHO_CHANGED_WHAT_LINES + 40;
    const inputs: KindPlanInput[] = [
      {
        kind: 'application_rule',
        impact,
        immutable: [],
        scope: { prune: false, match: {} },
        desired: Array.from({ length: many }, (_, i) => declared(`R${i}`)),
        remote: Array.from({ length: many }, (_, i) =>
          live(`${i}`, `R${i}`, { changedBy: `user-${i}`, changedAt: NOW - i * 60_000 }, 'low'),
        ),
      },
    ];
    const plan = withAttribution(planChanges(inputs, { impactDirection: 'drift' }), inputs);
    const markdown = renderMarkdownDrift(plan);
    const items = markdown.split('\n').filter((line) => /^- user-\d+, /.test(line));
    expect(items).toHaveLength(WHO_CHANGED_WHAT_LINES);
    expect(items[0]).toBe('- user-0, 2026-11-27 10:00 UTC: `application_rule.shop.example.com/R0`');
    expect(markdown).toContain(`- _and ${many - WHO_CHANGED_WHAT_LINES} more: see each entry below`);
    const small = renderMarkdownDrift(plan, { maxChars: 1_500 });
    expect(small.length).toBeLessThanOrEqual(1_500);
    expect(small).toMatch(/not shown \(see the JSON plan \/ job log\)/);
  });

  it('escapes what the record says: a username cannot forge markdown or a line', () => {
    const inputs: KindPlanInput[] = [
      {
        kind: 'application_rule',
        impact,
        immutable: [],
        scope: { prune: false, match: {} },
        desired: [declared('A')],
        remote: [live('1', 'A', { changedBy: 'mal*<b>lory\n- forged', changedAt: NOW }, 'low')],
      },
    ];
    const plan = withAttribution(planChanges(inputs, { impactDirection: 'drift' }), inputs);
    const markdown = renderMarkdownDrift(plan);
    expect(markdown).toContain('- mal\\*&lt;b&gt;lory\\\\n- forged, 2026-11-27 10:00 UTC:');
    expect(markdown).not.toMatch(/^- forged/m);
    expect(renderTextDrift(plan)).toContain('(changed by mal*<b>lory\\n- forged, 2026-11-27 10:00 UTC)');
  });

  it('words a time in UTC to the minute, and a text no date holds as it is', () => {
    expect(utcMinute('2026-11-27T09:02:59.999+01:00')).toBe('2026-11-27 08:02 UTC');
    expect(utcMinute('yesterday')).toBe('yesterday');
  });
});
