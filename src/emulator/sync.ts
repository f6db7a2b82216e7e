/**
 * Synchronization of application-rule actions to their firewalls (issue 44). In Seer Box a saved rule
 * is not yet protection: each action is pushed to its firewall and carries a `sync_status`. The
 * emulator plays that out on its clock (docs/emulator.md, "Synchronization"):
 *
 * - every write of a rule (create, PUT) makes each of its actions `pending`;
 * - `delayMs` later (on the emulator's clock) each becomes `synced`, or `error` when its firewall is
 *   one of the `failing` names: the error comes after the delay too, as a real push fails only
 *   once it was tried;
 * - with no delay (the default) the outcome is there at once, as before this existed.
 *
 * A write stores each action's outcome as its `sync_status`, and, when there is a delay, when that
 * outcome is reached (`sync_due`, UNIX microseconds). What the API shows is derived at read time from
 * the clock: nothing has to run when the delay passes, and a state file or a journal replayed later
 * says the same (a rule written before this existed has no `sync_due`: its status shows as stored).
 */
import { EMULATOR_SYNC_STATUSES } from '../core/sync-status.js';
import type { ApplicationRule, RuleAction } from './records.js';

/** How actions synchronize: for how long they are pending, and which firewalls fail. */
export interface SyncSettings {
  /** Milliseconds on the emulator's clock from a write until its actions reach their outcome. */
  readonly delayMs: number;
  /** Firewall names whose actions end in `error`. */
  readonly failing: ReadonlySet<string>;
}

/** A stored action, or one about to be: what a write decides about its sync is replaced. */
type ActionFields = Omit<RuleAction, 'sync_status' | 'sync_due'> & Partial<RuleAction>;

/**
 * The action as a write at `nowMicros` (the clock's, unbumped) stores it: its outcome, and, when the
 * settings delay it, the time it is reached. Any earlier outcome is forgotten: a write starts over.
 */
export function startSync(action: ActionFields, nowMicros: number, settings: SyncSettings): RuleAction {
  const { sync_status: _status, sync_due: _due, ...fields } = action;
  const outcome = settings.failing.has(fields.firewall_name)
    ? EMULATOR_SYNC_STATUSES.error
    : EMULATOR_SYNC_STATUSES.synced;
  if (settings.delayMs === 0) return { ...fields, sync_status: outcome };
  return { ...fields, sync_status: outcome, sync_due: nowMicros + settings.delayMs * 1000 };
}

/** The action as the API shows it at `nowMicros`: pending until its outcome is due, never `sync_due`. */
export function shownAction(action: RuleAction, nowMicros: number): Omit<RuleAction, 'sync_due'> {
  const { sync_due: due, ...shown } = action;
  if (due !== undefined && nowMicros < due) return { ...shown, sync_status: EMULATOR_SYNC_STATUSES.pending };
  return shown;
}

/** The rule as the API shows it at `nowMicros` (its actions through `shownAction`). */
export function shownRule(rule: ApplicationRule, nowMicros: number): ApplicationRule {
  return { ...rule, actions: rule.actions.map((action) => shownAction(action, nowMicros)) };
}
