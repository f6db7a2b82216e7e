/**
 * The final report of an apply, as a string: every operation, then one summary line. Keys and the
 * API's messages are shown `printable`, so whatever they hold, each operation stays one line.
 */

import { plural, printable } from '../../core/text.js';
import { KIND_NAMES } from '../../kinds/index.js';
import { address } from '../../plan/render/summary.js';
import {
  type ApplyReport,
  applySucceeded,
  type EnforcedAction,
  type Enforcement,
  type Operation,
  type OperationResult,
  type OutcomeStatus,
} from './model.js';
import { formatDuration } from './wait-timeout.js';

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
 * summary line; with `--wait`, then what the wait found (`renderEnforcement`).
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
  const enforcement = report.enforcement === undefined ? '' : `\n${renderEnforcement(report.enforcement)}`;
  return `${out.join('\n')}\n${enforcement}`;
}

/** What `apply --wait` says before it waits. */
export function waitingLine(rules: number, timeoutMs: number): string {
  return rules === 0
    ? ''
    : `\nWaiting for ${plural(rules, 'application rule')} to be enforced on their firewalls (up to ${formatDuration(timeoutMs)})...\n`;
}

/**
 * Why an action is not enforced, in words: how it was read back against the plan, or by its status,
 * and for one still pending by how the wait ended. The API's values are shown `printable`.
 */
export function whyNotEnforced(action: EnforcedAction, enforcement: Enforcement): string {
  const { state, status } = action;
  const value = status === undefined ? 'no sync_status' : `sync_status ${JSON.stringify(status)}`;
  const shown = printable(action.firewall_action ?? '');
  switch (state) {
    case 'error':
      return `sync error (${value})`;
    case 'missing':
      return action.absent === 'action'
        ? 'not read back (the rule read back has no action on this firewall)'
        : 'not found when read back (deleted or changed since it was written)';
    case 'changed':
      return `read back as ${shown}, planned ${printable(action.planned_action ?? '')}`;
    case 'unplanned':
      return `read back as ${shown}, on a firewall not planned`;
  }
  const known = state === 'unknown' && status !== undefined ? ', a value wafctl does not know' : '';
  const waited =
    enforcement.result === 'timed_out'
      ? `not synced within ${formatDuration(enforcement.timeoutMs)}`
      : 'not confirmed synced';
  return `${waited} (${action.absent === 'unread' ? 'not read' : `${value}${known}`})`;
}

/** ` on ` the firewalls of `actions`, sorted, without repeats (` on waf-eu-1, waf-us-1`); or nothing. */
function onFirewalls(actions: readonly EnforcedAction[]): string {
  const names = [...new Set(actions.map((a) => printable(a.firewall)))].sort();
  return names.length === 0 ? '' : ` on ${names.join(', ')}`;
}

/**
 * What `apply --wait` found: one line per action that is not synced as written (`! ADDRESS on
 * FIREWALL: WHY`), then a summary line that says the writes are done whatever the wait found.
 */
export function renderEnforcement(enforcement: Enforcement): string {
  const { actions, result } = enforcement;
  if (enforcement.rules === 0) {
    return 'Enforcement: no application rule was created, replaced or updated; nothing to wait for.\n';
  }
  const unsynced = actions.filter((a) => a.state !== 'synced');
  const out = unsynced.map(
    (a) => `  ! ${address(a.change)} on ${printable(a.firewall)}: ${whyNotEnforced(a, enforcement)}`,
  );
  if (out.length > 0) out.push('');
  const failing = new Set(unsynced.map((a) => a.id)).size;
  const rules = plural(enforcement.rules, 'application rule');
  const within = formatDuration(enforcement.timeoutMs);
  switch (result) {
    case 'enforced':
      out.push(`Enforced: ${rules} synced${onFirewalls(actions)}.`);
      break;
    case 'not_enforced':
      out.push(`Not enforced: ${failing} of ${rules} not synced${onFirewalls(unsynced)}.`);
      break;
    case 'timed_out':
      out.push(`Not enforced within ${within}: ${failing} of ${rules} not synced${onFirewalls(unsynced)}.`);
      break;
    case 'interrupted':
      out.push(
        `Stopped waiting for enforcement (interrupted): the writes are done; ${failing} of ${rules} not confirmed synced. wafctl drift reports rules that are not enforced.`,
      );
      break;
    case 'unreadable':
      out.push(
        `Could not read the rules back to wait for them: ${printable(enforcement.error?.message ?? 'unknown error')}. The writes are done, but whether ${rules} ${enforcement.rules === 1 ? 'is' : 'are'} enforced is unknown.`,
      );
  }
  return `${out.join('\n')}\n`;
}
