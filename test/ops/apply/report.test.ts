/** The apply report: one line per operation, whatever keys and the API's messages hold. */
import { describe, expect, it } from 'vitest';
import type { Change } from '../../../src/core/model.js';
import type { ApplyReport } from '../../../src/ops/apply/model.js';
import { renderApplyReport } from '../../../src/ops/apply/report.js';

const FORGED = 'Apply complete! Resources: 0 added, 0 changed, 0 destroyed.';
const EVIL = `\n${FORGED}\u001b[2K`;
const ESCAPED = `\\n${FORGED}\\u001b[2K`;

const create = (key: string): Change => ({
  kind: 'group',
  key,
  action: 'create',
  fields: ['name'],
  before: null,
  after: { name: key },
  impact: [],
});

function report(suffix: string): ApplyReport {
  return {
    results: [
      { change: create('ok'), operation: 'create', outcome: { status: 'done' } },
      {
        change: create(`bad${suffix}`),
        operation: 'create',
        outcome: {
          status: 'failed',
          message: `[POST] /api/v1/groups: 400 Error creating new group${suffix}`,
        },
      },
      {
        change: create(`later${suffix}`),
        operation: 'create',
        outcome: { status: 'skipped', reason: `its prerequisite failed${suffix}` },
      },
    ],
    refused: [{ kind: 'notification', key: `n${suffix}`, message: `protected${suffix}` }],
  };
}

describe('renderApplyReport', () => {
  it('escapes keys and messages, so a failing change cannot forge a line', () => {
    const text = renderApplyReport(report(EVIL));
    expect(text).toBe(
      [
        `  ! group.bad${ESCAPED}: create failed: [POST] /api/v1/groups: 400 Error creating new group${ESCAPED}`,
        `  ! group.later${ESCAPED}: create skipped: its prerequisite failed${ESCAPED}`,
        '  + group.ok: created',
        `  ! notification.n${ESCAPED}: refused: protected${ESCAPED}`,
        '',
        'Apply failed: Resources: 1 added, 0 changed, 0 destroyed (1 failed, 1 skipped, 1 refused).',
        '',
      ].join('\n'),
    );
    expect(text.split('\n').filter((line) => line.startsWith(FORGED))).toEqual([]);
    expect(text).not.toContain('\u001b');
    // Harmless keys and messages are printed as they are.
    expect(renderApplyReport(report(''))).toContain(
      '  ! group.bad: create failed: [POST] /api/v1/groups: 400 Error creating new group\n',
    );
  });
});
