/** The final report of an apply, as a string: every operation, then one summary line. */
import { KIND_NAMES } from '../plan/model.js';
import { address } from '../plan/render/summary.js';
import { type ApplyReport, applySucceeded, type Operation, type OperationResult } from './model.js';

const DONE: Record<Operation, string> = { create: 'created', update: 'updated', delete: 'destroyed' };
const SIGN: Record<Operation, string> = { create: '+', update: '~', delete: '-' };

function line(result: OperationResult): string {
  const { outcome, operation } = result;
  const where = address(result.change);
  switch (outcome.status) {
    case 'done':
      return `  ${SIGN[operation]} ${where}: ${DONE[operation]}`;
    case 'failed':
      return `  ! ${where}: ${operation} failed: ${outcome.message}`;
    case 'skipped':
      return `  ! ${where}: ${operation} skipped: ${outcome.reason}`;
  }
}

const order = (r: OperationResult): [number, string] => [KIND_NAMES.indexOf(r.change.kind), r.change.key];

export function renderApplyReport(report: ApplyReport): string {
  const sorted = [...report.results].sort((a, b) => {
    const [ka, na] = order(a);
    const [kb, nb] = order(b);
    return ka - kb || (na < nb ? -1 : na > nb ? 1 : 0);
  });
  const count = (operation: Operation) =>
    report.results.filter((r) => r.operation === operation && r.outcome.status === 'done').length;
  const failed = report.results.filter((r) => r.outcome.status === 'failed').length;
  const skipped = report.results.filter((r) => r.outcome.status === 'skipped').length;
  const resources = `Resources: ${count('create')} added, ${count('update')} changed, ${count('delete')} destroyed`;

  const out = sorted.map(line);
  for (const problem of report.refused) out.push(`  ! ${address(problem)}: refused: ${problem.message}`);
  if (out.length > 0) out.push('');
  if (applySucceeded(report)) {
    out.push(`Apply complete! ${resources}.`);
  } else {
    const refused = report.refused.length > 0 ? `, ${report.refused.length} refused` : '';
    out.push(`Apply failed: ${resources} (${failed} failed, ${skipped} skipped${refused}).`);
  }
  return `${out.join('\n')}\n`;
}
