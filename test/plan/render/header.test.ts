/**
 * What a first-time reader must see before the details (issue 28): the safety warning in the header
 * that truncation always keeps, the unmanaged objects by name, and counts of changes worded with
 * the verb agreeing.
 */
import { describe, expect, it } from 'vitest';
import type { KindName } from '../../../src/core/model.js';
import { KINDS } from '../../../src/kinds/index.js';
import { type KindPlanInput, planChanges } from '../../../src/plan/planner.js';
import { renderMarkdownDrift, renderTextDrift } from '../../../src/plan/render/drift.js';
import { renderJsonPlan } from '../../../src/plan/render/json.js';
import { MARKDOWN_MIN_CHARS, renderMarkdownPlan } from '../../../src/plan/render/markdown.js';
import { changesWith } from '../../../src/plan/render/security.js';
import { renderTextPlan } from '../../../src/plan/render/text.js';

const impactOf = (name: KindName) => KINDS.find((kind) => kind.name === name)?.impact ?? [];

const rule = (i: number) => ({
  rq_host: 'shop.example.com',
  description: `Rule ${String(i).padStart(4, '0')}`,
  priority: 'low',
  enabled: true,
  conditions: [{ operator: 'match', not_op: false, expressions: [`^/path-${i}`], targets: ['path'] }],
  actions: [{ firewall_action: 'block', firewall_name: 'waf-eu-1' }],
});

/** 2,000 rules live, 6 declared, prune on: 1,994 deletes, each weakening protection. */
function wipe(): KindPlanInput {
  const remote = Array.from({ length: 2000 }, (_, i) => ({
    id: `ar-${i}`,
    key: `shop.example.com/${rule(i).description}`,
    attributes: rule(i),
  }));
  return {
    kind: 'application_rule',
    impact: impactOf('application_rule'),
    immutable: ['conditions', 'actions'],
    scope: { prune: true, match: {} },
    desired: remote.slice(0, 6).map((r) => ({
      key: r.key,
      attributes: r.attributes,
      protect: false,
      ignoreChanges: [],
    })),
    remote,
  };
}

const WARNING =
  'the plan deletes 1994 of 2000 existing application_rule objects (100%), above the safety limit of 30%; apply refuses this without --force.';

describe('the safety warning', () => {
  const plan = planChanges([wipe()]);

  it('is the first line of the text plan, before the Security impact list and the details', () => {
    expect(plan.warnings).toHaveLength(1);
    const lines = renderTextPlan(plan, { color: false }).split('\n');
    expect(lines.slice(0, 3)).toEqual([
      `Warning: ${WARNING}`,
      '',
      'Security impact: 1994 changes weaken protection.',
    ]);
    expect(lines.filter((line) => line.includes('apply refuses this'))).toHaveLength(1);
  });

  it('is in the header of the markdown plan that truncation keeps, before the impact list', () => {
    const full = renderMarkdownPlan(plan);
    expect(full.length).toBeLessThanOrEqual(65_536);
    // The impact list alone fills the comment: the details are all left out.
    expect(full).toMatch(/_1994 more changes not shown/);
    const warning = full.indexOf(`> **Warning:** ${WARNING}`);
    expect(warning).toBeGreaterThan(full.indexOf('| create |'));
    expect(warning).toBeLessThan(full.indexOf('#### Security impact'));

    const least = renderMarkdownPlan(plan, { maxChars: MARKDOWN_MIN_CHARS });
    expect(least.length).toBeLessThanOrEqual(MARKDOWN_MIN_CHARS);
    expect(least).toContain(`> **Warning:** ${WARNING}`);
    expect(least).toMatch(/_\d+ more lines of this summary not shown/);
  });

  it('survives the least --max-chars even when every kind warns: the rest on one short line', () => {
    // 999 duplicates of one declared object, and 1000 prunes: the longest warnings (`and 999 duplicates`).
    const many = (kind: string) => ({
      kind,
      immutable: [],
      scope: { prune: true, match: {} },
      desired: [{ key: 'k', attributes: { name: 'k' }, protect: false, ignoreChanges: [] }],
      remote: [
        ...Array.from({ length: 1000 }, (_, i) => ({ id: `${i}`, key: 'k', attributes: { name: 'k' } })),
        ...Array.from({ length: 1000 }, (_, i) => ({
          id: `p${i}`,
          key: `p${i}`,
          attributes: { name: `p${i}` },
        })),
      ],
    });
    const all = planChanges([wipe(), many('group'), many('notification'), many('schedule')]);
    expect(all.warnings).toHaveLength(4);
    const least = renderMarkdownPlan(all, { maxChars: MARKDOWN_MIN_CHARS });
    expect(least.length).toBeLessThanOrEqual(MARKDOWN_MIN_CHARS);
    const warnings = least.split('\n').filter((line) => line.startsWith('> **Warning:**'));
    expect(warnings.at(-1)).toMatch(
      /^> \*\*Warning:\*\* the plan deletes more [a-z_, ]+ objects than the safety limit allows; apply refuses this without --force\.$/,
    );
    const named = warnings.join('\n');
    for (const kind of ['application_rule', 'group', 'notification', 'schedule'])
      expect(named).toContain(kind);
  });

  it('survives the least --max-chars with a long title and partial warning of data escaping longest', () => {
    // `@` is escaped eightfold (`@&#8203;`): the title and each flag shown are cut to fit, escaped.
    const many = (kind: string) => ({
      kind,
      immutable: [],
      scope: { prune: true, match: {} },
      desired: [],
      remote: Array.from({ length: 10 }, (_, i) => ({
        id: `p${i}`,
        key: `p${i}`,
        attributes: { name: 'p' },
      })),
    });
    const warned = planChanges([wipe(), many('group'), many('notification'), many('schedule')]);
    expect(warned.warnings).toHaveLength(4);
    const hostile = '@'.repeat(5000);
    const plan = { ...warned, targets: { target: Array(9).fill(hostile), exclude: [hostile], kind: [] } };
    for (const maxChars of [MARKDOWN_MIN_CHARS, 1500, 65_536]) {
      const markdown = renderMarkdownPlan(plan, { title: `wafctl plan: ${hostile}`, maxChars });
      expect(markdown.length).toBeLessThanOrEqual(maxChars);
      const lines = markdown.split('\n');
      expect(lines[1]).toMatch(/^### wafctl plan: (@&#8203;)+…$/);
      expect(lines.find((line) => line.includes('is partial'))).toMatch(
        /^> \*\*Warning:\*\* this plan is partial \(--target (&quot;(@&#8203;)*)?…( --target (&quot;(@&#8203;)*)?…){4} and 5 more\): changes outside/,
      );
      expect(markdown).toContain('apply refuses this without --force');
    }
  });

  it('comes right after the headline of the text drift report, and in the markdown one', () => {
    expect(renderTextDrift(plan).split('\n').slice(0, 2)).toEqual([
      'Drift detected: 1994 objects differ from the configuration.',
      `Warning: ${WARNING}`,
    ]);
    const markdown = renderMarkdownDrift(plan);
    expect(markdown.indexOf(`> **Warning:** ${WARNING}`)).toBeLessThan(markdown.indexOf('#### Security'));
  });
});

describe('the unmanaged objects', () => {
  /** `outside` groups outside the scope (`team-*` only), `undeclared` in scope that no file declares. */
  function leftAlone(outside: number, undeclared: number) {
    const group = (name: string) => ({ name, is_admin: false });
    return planChanges([
      {
        kind: 'group',
        immutable: [],
        scope: { prune: false, match: { name: ['team-*'] } },
        desired: [{ key: 'team-a', attributes: group('team-a'), protect: false, ignoreChanges: [] }],
        remote: [
          { id: 'g-0', key: 'team-a', attributes: group('team-a') },
          ...Array.from({ length: outside }, (_, i) => ({
            id: `o-${i}`,
            key: `other-${String(i).padStart(2, '0')}`,
            attributes: group(`other-${String(i).padStart(2, '0')}`),
          })),
          ...Array.from({ length: undeclared }, (_, i) => ({
            id: `u-${i}`,
            key: `team-z${i}`,
            attributes: group(`team-z${i}`),
          })),
        ],
      },
    ]);
  }

  it('are named in the text plan, with why each is left alone', () => {
    expect(renderTextPlan(leftAlone(1, 1), { color: false })).toBe(
      [
        '2 remote objects are not managed by this configuration and will be left alone: group.other-00 (outside the manage scope), group.team-z0 (in scope but in no file, and prune is off).',
        '',
        'No changes. The firewall matches the configuration.',
        '',
      ].join('\n'),
    );
  });

  it('are named up to 10, then counted, in text and markdown', () => {
    const plan = leftAlone(12, 0);
    expect(plan.summary.unmanaged).toBe(12);
    const names = Array.from(
      { length: 10 },
      (_, i) => `group.other-${String(i).padStart(2, '0')} (outside the manage scope)`,
    );
    expect(renderTextPlan(plan, { color: false }).split('\n')[0]).toBe(
      `12 remote objects are not managed by this configuration and will be left alone: ${names.join(', ')} and 2 more.`,
    );
    const code = names.map((n) => n.replace(/^(\S+)/, '`$1`'));
    expect(renderMarkdownPlan(plan)).toContain(
      `_12 remote objects are not managed by this configuration and will be left alone: ${code.join(', ')} and 2 more._`,
    );
  });

  it('are listed in the JSON plan as an addition, and absent when there are none', () => {
    const doc = JSON.parse(renderJsonPlan(leftAlone(1, 1)));
    expect(doc.summary.unmanaged).toBe(2);
    expect(doc.unmanaged).toEqual([
      { kind: 'group', key: 'other-00', id: 'o-0', reason: 'outside_scope' },
      { kind: 'group', key: 'team-z0', id: 'u-0', reason: 'not_declared' },
    ]);
    expect(JSON.parse(renderJsonPlan(leftAlone(0, 0)))).not.toHaveProperty('unmanaged');
  });

  it('escape their keys', () => {
    const plan = planChanges([
      {
        kind: 'group',
        immutable: [],
        scope: { prune: false, match: {} },
        desired: [],
        remote: [{ id: 'g-1', key: 'x\nPlan: 0 to add', attributes: { name: 'x' } }],
      },
    ]);
    expect(renderTextPlan(plan, { color: false }).split('\n')[0]).toContain('group.x\\nPlan: 0 to add (');
  });
});

describe('counts of changes with a class', () => {
  it('agree with their count', () => {
    expect(changesWith(1, 'reduces_audit')).toBe('1 change reduces audit');
    expect(changesWith(2, 'reduces_audit')).toBe('2 changes reduce audit');
    expect(changesWith(2, 'weakens_protection')).toBe('2 changes weaken protection');
    expect(changesWith(3, 'broadens_access')).toBe('3 changes broaden access');
  });
});
