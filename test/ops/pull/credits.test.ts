/**
 * `pull` credits the person (issue 44): the hand changes it turns into code say who made them and
 * when, in the summary, the pull-request body and the JSON report.
 */
import { describe, expect, it } from 'vitest';
import { pullCredits } from '../../../src/ops/pull/credits.js';
import type { PullDecision } from '../../../src/ops/pull/decide.js';
import type { PullResult } from '../../../src/ops/pull/pull.js';
import { pullReportDocument } from '../../../src/ops/pull/report-document.js';
import { pullMarkdown, pullSummaryLines } from '../../../src/ops/pull/summary.js';
import { type KindPlanInput, planChanges } from '../../../src/plan/planner.js';

const group = (name: string, description: string) => ({ name, description });

const inputs: KindPlanInput[] = [
  {
    kind: 'group',
    immutable: [],
    scope: { prune: false, match: {} },
    desired: ['soc', 'noc', 'ops', 'gone'].map((name) => ({
      key: name,
      attributes: group(name, 'declared'),
      protect: false,
      ignoreChanges: [],
    })),
    remote: [
      {
        id: 'g1',
        key: 'soc',
        attributes: group('soc', 'by hand'),
        changedBy: 'alice',
        changedAt: Date.parse('2026-11-27T08:02:30Z'),
      },
      {
        id: 'g2',
        key: 'noc',
        attributes: group('noc', 'by hand'),
        changedBy: 'bob',
        changedAt: Date.parse('2026-11-26T17:40:00Z'),
      },
      {
        id: 'g3',
        key: 'ops',
        attributes: group('ops', 'by hand'),
        changedBy: 'alice',
        changedAt: Date.parse('2026-11-20T09:00:00Z'),
      },
      {
        id: 'g4',
        key: 'lab',
        attributes: group('lab', 'made by hand'),
        changedAt: Date.parse('2026-11-27T09:00:00Z'),
      },
      { id: 'g5', key: 'quiet', attributes: group('quiet', 'made by hand') },
    ],
  },
];

const decision: PullDecision = {
  edits: new Map(),
  conflicts: [{ kind: 'group', key: 'ops', file: 'groups.yaml', line: 3, col: 5, reason: 'protected' }],
  kept: [],
  updated: 2,
  removed: 1,
  adopted: 2,
};

function result(): PullResult {
  const plan = planChanges(inputs);
  const adopted = [
    { kind: 'group', key: 'lab' },
    { kind: 'group', key: 'quiet' },
  ];
  return {
    decision,
    files: [{ file: 'groups.yaml', before: '', after: 'x', created: false }],
    leftOut: [],
    unadopted: [],
    shared: [],
    credits: pullCredits(plan, inputs, { conflicts: decision.conflicts, adopted }),
  };
}

const meta = { environment: undefined, dryRun: false };

describe('pull credits the person', () => {
  it('credits each object pulled from a record that names someone or a time, newest first', () => {
    // ops is in conflict (nothing written), gone was deleted live (no record), quiet's record says nothing.
    expect(result().credits).toEqual([
      { address: 'group.lab', changed_at: '2026-11-27T09:00:00.000Z' },
      { address: 'group.soc', changed_by: 'alice', changed_at: '2026-11-27T08:02:30.000Z' },
      { address: 'group.noc', changed_by: 'bob', changed_at: '2026-11-26T17:40:00.000Z' },
    ]);
  });

  it('the summary names each person once, with their latest change', () => {
    expect(pullSummaryLines(result(), meta).slice(0, 2)).toEqual([
      'Pulled 5 objects (2 updated, 1 removed, 2 adopted) into 1 file.',
      'Hand changes by alice (2026-11-27 08:02 UTC), bob (2026-11-26 17:40 UTC).',
    ]);
  });

  it('the pull-request body credits them, and lists each hand change', () => {
    const markdown = pullMarkdown(result(), meta);
    expect(markdown).toContain('Hand changes by alice (2026-11-27 08:02 UTC), bob (2026-11-26 17:40 UTC).');
    expect(markdown).toContain(
      [
        '**Hand changes** (who last changed each object, as the firewall records it):',
        '',
        '- `group.lab`: 2026-11-27 09:00 UTC',
        '- `group.soc`: alice, 2026-11-27 08:02 UTC',
        '- `group.noc`: bob, 2026-11-26 17:40 UTC',
      ].join('\n'),
    );
  });

  it('the JSON report carries them; without credits it is what it was', () => {
    expect(pullReportDocument(result(), meta).credits?.[1]).toEqual({
      address: 'group.soc',
      changed_by: 'alice',
      changed_at: '2026-11-27T08:02:30.000Z',
    });
    const uncredited = { ...result(), credits: [] };
    expect(pullReportDocument(uncredited, meta)).not.toHaveProperty('credits');
    expect(pullSummaryLines(uncredited, meta).join('\n')).not.toContain('Hand changes');
  });

  it('a name cannot forge markdown', () => {
    const forged = { ...result(), credits: [{ address: 'group.soc', changed_by: '*eve*\n# x' }] };
    const markdown = pullMarkdown(forged, meta);
    expect(markdown).toContain('Hand changes by \\*eve\\*\\\\n# x.');
    expect(markdown).not.toMatch(/^# x/m);
  });
});
