/**
 * Calls that may fail ambiguously, made safe. A create (POST) whose answer was lost may have been
 * applied, so it is never simply sent again: the objects are re-read by natural key first, and only
 * those still missing are created again. A delete that failed is re-read by id: what is gone is
 * deleted, whatever the error said. Updates (PUT) are idempotent and are simply sent again.
 *
 * Zero duplicates, zero lost changes: every object ends done, or failed with the API's message.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError, ApiNetworkError } from '../api/index.js';
import type { WriteContext, Writer } from '../kinds/kind.js';
import type { UpdateChange } from '../plan/model.js';
import type { Outcome } from './model.js';
import type { CreateItem, DeleteItem } from './order.js';

/** Attempts of one call (the client has already retried idempotent calls on transient errors). */
export const MAX_ATTEMPTS = 3;
/** Longest wait honoured for a 429's Retry-After before trying a call again. */
const MAX_RATE_LIMIT_WAIT_MS = 30_000;

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** The server may have done the work: no answer, or a server error. */
function ambiguous(error: unknown): boolean {
  return error instanceof ApiNetworkError || (error instanceof ApiError && error.status >= 500);
}

/** The server refused before doing anything; waiting and trying again is safe. */
async function waitIfRateLimited(error: unknown): Promise<boolean> {
  if (!(error instanceof ApiError) || error.status !== 429) return false;
  await sleep(Math.min(error.retryAfterMs ?? 1000, MAX_RATE_LIMIT_WAIT_MS));
  return true;
}

export interface RecoveryContext {
  writer: Writer;
  ctx: WriteContext;
  keyOf: (item: CreateItem) => string;
}

/** Creates `items` in one call, recovering from ambiguous failures; one outcome per item. */
export async function createWithRecovery(
  { writer, ctx, keyOf }: RecoveryContext,
  items: readonly CreateItem[],
  /** Ids that already had these keys when planned (old halves of replacements): not new objects. */
  preexisting: ReadonlySet<string>,
): Promise<Map<CreateItem, Outcome>> {
  const outcomes = new Map<CreateItem, Outcome>();
  let remaining = [...items];
  let lastError: unknown;
  for (let attempt = 1; attempt <= MAX_ATTEMPTS && remaining.length > 0; attempt++) {
    try {
      await writer.create(
        ctx,
        remaining.map((item) => item.attributes),
      );
      for (const item of remaining) outcomes.set(item, { status: 'done' });
      return outcomes;
    } catch (error) {
      lastError = error;
      if (await waitIfRateLimited(error)) continue;
      if (!ambiguous(error)) {
        // A refused batch names no culprit: halve it until the invalid objects fail on their own,
        // so that one bad rule does not take a hundred good ones down with it.
        if (remaining.length > 1 && error instanceof ApiError && error.status === 400) {
          const half = Math.ceil(remaining.length / 2);
          for (const part of [remaining.slice(0, half), remaining.slice(half)]) {
            for (const [item, outcome] of await createWithRecovery(
              { writer, ctx, keyOf },
              part,
              preexisting,
            )) {
              outcomes.set(item, outcome);
            }
          }
          return outcomes;
        }
        break;
      }
      let live: Map<string, string[]>;
      try {
        live = await writer.idsByKey(
          ctx,
          remaining.map((item) => item.attributes),
        );
      } catch (readError) {
        const text = `${message(error)}; re-reading to check whether it was applied also failed: ${message(readError)}`;
        for (const item of remaining) outcomes.set(item, { status: 'failed', message: text });
        return outcomes;
      }
      remaining = remaining.filter((item) => {
        const created = (live.get(keyOf(item)) ?? []).find((id) => !preexisting.has(id));
        if (created !== undefined) outcomes.set(item, { status: 'done', id: created });
        return created === undefined;
      });
    }
  }
  for (const item of remaining) outcomes.set(item, { status: 'failed', message: message(lastError) });
  return outcomes;
}

/** Deletes `items` in one call; whatever is gone afterwards counts as deleted. */
export async function deleteWithRecovery(
  { writer, ctx }: Pick<RecoveryContext, 'writer' | 'ctx'>,
  items: readonly DeleteItem[],
): Promise<Map<DeleteItem, Outcome>> {
  const outcomes = new Map<DeleteItem, Outcome>();
  let remaining = [...items];
  let lastError: unknown;
  for (let attempt = 1; attempt <= MAX_ATTEMPTS && remaining.length > 0; attempt++) {
    try {
      await writer.delete(
        ctx,
        remaining.map((item) => item.id),
      );
      for (const item of remaining) outcomes.set(item, { status: 'done' });
      return outcomes;
    } catch (error) {
      lastError = error;
      if (error instanceof ApiError && error.status === 403) break;
      if (await waitIfRateLimited(error)) continue;
      // A DELETE retried after a reset that came once the work was done answers 400 for ids that
      // are already gone: only a re-read tells what happened.
      let still: Set<string>;
      try {
        still = await writer.existing(
          ctx,
          remaining.map((item) => item.id),
        );
      } catch (readError) {
        const text = `${message(error)}; re-reading to check whether it was applied also failed: ${message(readError)}`;
        for (const item of remaining) outcomes.set(item, { status: 'failed', message: text });
        return outcomes;
      }
      const before = remaining.length;
      remaining = remaining.filter((item) => {
        if (!still.has(item.id)) outcomes.set(item, { status: 'done' });
        return still.has(item.id);
      });
      // A bulk delete is all-or-nothing on the server: refused because some ids were already gone,
      // it deleted none of the others, which are sent again. A refusal that gone ids do not explain
      // is final.
      if (!ambiguous(error) && remaining.length === before) break;
    }
  }
  for (const item of remaining) outcomes.set(item, { status: 'failed', message: message(lastError) });
  return outcomes;
}

/** Updates are idempotent: an ambiguous or rate-limited failure is simply sent again. */
export async function updateWithRetry(
  { writer, ctx }: Pick<RecoveryContext, 'writer' | 'ctx'>,
  changes: readonly UpdateChange[],
): Promise<Outcome> {
  let lastError: unknown;
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    try {
      await writer.update(ctx, changes);
      return { status: 'done' };
    } catch (error) {
      lastError = error;
      if (!(await waitIfRateLimited(error)) && !ambiguous(error)) break;
    }
  }
  return { status: 'failed', message: message(lastError) };
}
