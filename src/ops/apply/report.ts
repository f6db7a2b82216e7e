/**
 * The final report of an apply, as a string: every operation, then one summary line. Keys and the
 * API's messages are shown `printable`, so whatever they hold, each operation stays one line.
 */

import { printable } from '../../core/text.js';
import { KIND_NAMES } from '../../kinds/index.js';
import { address } from '../../plan/render/summary.js';
import {
  type ApplyReport,
  applySucceeded,
  type Operation,
  type OperationResult,
  type OutcomeStatus,
} from './model.js';

const DONE: Record<Operation, string> = { create: 'created', update: 'updated', delete: 'destroyed' };
const SIGN: Record<Operation, string> = { create: '+', update: '~', delete: '-' };
const VERIFIED = ' (the answer was ambiguous; verified by re-reading)';

function line(result: OperationResult): string {
  const { outcome, operation } = result;
  const where = address(result.change);
  switch (outcome.status) {
    case 'done':
      return `  ${SIGN[operation]} ${where}: ${DONE[operation]}${outcome.ambiguous ? VERIFIED : ''}`;
    case 'failed':
      return `  ! ${where}: ${operation} failed: ${printable(outcome.message)}`;
    case 'skipped':
      return `  ! ${where}: ${operation} skipped: ${printable(outcome.reason)}`;
    case 'interrupted':
      return `  ! ${where}: ${operation} not started (interrupted)`;
  }
}

const order = (r: OperationResult): [number, string] => [KIND_NAMES.indexOf(r.change.kind), r.change.key];

/**
 * The report: each operation, by kind (registry order) and key, the refused objects, then the
 * summary line.
 */
export function renderApplyReport(report: ApplyReport): string {
  const sorted = [...report.results].sort((a, b) => {
    const [ka, na] = order(a);
    const [kb, nb] = order(b);
    return ka - kb || (na < nb ? -1 : na > nb ? 1 : 0);
  });
  const count = (status: OutcomeStatus, operation?: Operation) =>
    report.results.filter(
      (r) => r.outcome.status === status && (operation === undefined || r.operation === operation),
    ).length;
  const ambiguous = report.results.filter((r) => r.outcome.status === 'done' && r.outcome.ambiguous).length;
  const resources = `Resources: ${count('done', 'create')} added, ${count('done', 'update')} changed, ${count('done', 'delete')} destroyed`;
  const verified = ambiguous > 0 ? `${ambiguous} ambiguous, verified done` : '';

  const out = sorted.map(line);
  for (const problem of report.refused)
    out.push(`  ! ${address(problem)}: refused: ${printable(problem.message)}`);
  if (out.length > 0) out.push('');
  const interrupted = count('interrupted');
  const refused = report.refused.length > 0 ? `, ${report.refused.length} refused` : '';
  const outcomes = `${verified ? `${verified}, ` : ''}${count('failed')} failed, ${count('skipped')} skipped${refused}`;
  if (applySucceeded(report)) {
    out.push(`Apply complete! ${resources}${verified ? ` (${verified})` : ''}.`);
  } else if (interrupted > 0) {
    out.push(
      `Apply interrupted: ${resources}; ${interrupted} not started (${outcomes}).`,
      'Run apply again to finish: it plans from the live state, so it picks up where this one stopped.',
    );
  } else {
    out.push(`Apply failed: ${resources} (${outcomes}).`);
  }
  return `${out.join('\n')}\n`;
}
