/**
 * An application rule's action carries a `sync_status`: whether the rule reached that firewall
 * (issue 44; the vendor's "Rules" page: "The status icon represents the result of synchronization
 * process with the WAF"). The spec lists the field but not its values, so wafctl reads any value:
 *
 * - the emulator's lifecycle is `pending` (saved, not yet synchronized), then `synced` or `error`;
 * - other spellings a server may use are read by meaning, ignoring case (`success`, `failed`, ...);
 * - any other value, or none, is `unknown`: shown as it is, and treated as not yet enforced.
 */

/** What a `sync_status` says about enforcement. */
export type SyncState = 'synced' | 'pending' | 'error' | 'unknown';

/** The emulator's values, in lifecycle order (docs/emulator.md). */
export const EMULATOR_SYNC_STATUSES = { pending: 'pending', synced: 'synced', error: 'error' } as const;

const SYNCED = new Set(['synced', 'sync', 'success', 'succeeded', 'ok', 'done', 'completed', 'loaded']);
const PENDING = new Set(['pending', 'syncing', 'queued', 'in_progress', 'in progress', 'running', 'waiting']);
const ERROR = new Set(['error', 'failed', 'failure', 'fail', 'sync_error', 'sync error', 'ko']);

/** The state a `sync_status` value says, read ignoring case and surrounding blanks. */
export function syncState(status: unknown): SyncState {
  if (typeof status !== 'string') return 'unknown';
  const value = status.trim().toLowerCase();
  if (SYNCED.has(value)) return 'synced';
  if (PENDING.has(value)) return 'pending';
  if (ERROR.has(value)) return 'error';
  return 'unknown';
}

/** Whether the action is known to be enforced on its firewall: only `synced` is. */
export function isEnforced(status: unknown): boolean {
  return syncState(status) === 'synced';
}
