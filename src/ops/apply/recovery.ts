/**
 * Calls that may fail ambiguously, made safe. An answer is ambiguous when the server may have done
 * the work although it did not say so: no answer (reset, timeout), a 5xx, or a 2xx whose body is not
 * the documented JSON (a proxy's HTML page, a cut-off body, `"status": "error"`).
 *
 * A create (POST) answered ambiguously is never simply sent again: the objects are re-read by
 * natural key first, and only those still missing are created again. A create answered without an
 * error is not taken at its word either: it is done only once a re-read by the ids it gave shows
 * each object with its key and planned content (create-proof.ts); an answer whose ids are not new
 * (an old object's, a repeat) or that the re-read does not bear out is ambiguous, and so is handled
 * the same way. A delete that failed is re-read by id: what is gone is deleted, whatever the error
 * said. An update answered ambiguously is re-read too: what already holds the planned values is
 * done, the rest is sent again (a PUT is idempotent). Outcomes settled this way are marked
 * `ambiguous`, so the report can say so.
 *
 * A 2xx that does not confirm every object sent (`rule_ids: []` to a bulk delete) is such an
 * ambiguous answer too (the client's UnconfirmedWriteError, an InvalidResponseError): the objects are
 * re-read, and only those found written are done. So is a body too large to read.
 *
 * A batch refused whole without naming a culprit (a 400 to a create) or for its size (a 413 to any
 * write) is halved, each half sent on its own, until the bad objects fail alone.
 *
 * Zero duplicates, zero lost changes: every object ends done, failed with the API's message, or —
 * once the context's signal is aborted — interrupted before a call for it was (re)started.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError, ApiNetworkError, InvalidResponseError, RedirectError } from '../../api/index.js';
import type { Attributes } from '../../core/model.js';
import { changedView } from '../../core/plan-document.js';
import { plural } from '../../core/text.js';
import type { WriteContext, Writer } from '../../kinds/kind.js';
import {
  type CreateLedger,
  holds,
  idList,
  notNew,
  type ProofContext,
  proveByIds,
  proveByKey,
  UnprovenCreateError,
} from './create-proof.js';
import { type FailedOutcome, type FailedRequest, INTERRUPTED, type Outcome } from './model.js';
import type { CreateItem, DeleteItem, UpdateItem } from './order.js';

/** Attempts of one call (the client has already retried idempotent calls on transient errors). */
export const MAX_ATTEMPTS = 3;
/** Longest wait honoured for a 429's Retry-After before trying a call again. */
const MAX_RATE_LIMIT_WAIT_MS = 30_000;

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** The request an API client error names, for the report (`failed` outcomes). */
function failedRequest(error: unknown): { request?: FailedRequest } {
  if (
    !(
      error instanceof ApiError ||
      error instanceof InvalidResponseError ||
      error instanceof ApiNetworkError ||
      error instanceof RedirectError
    )
  ) {
    return {};
  }
  const { method, path } = error;
  const status = error instanceof ApiError || error instanceof RedirectError ? { status: error.status } : {};
  const server =
    error instanceof ApiError && error.serverMessage !== undefined
      ? { server_message: error.serverMessage }
      : {};
  return { request: { method, path, ...status, ...server } };
}

/** `error` as a failed outcome: its message, and the request it names. */
export const failed = (error: unknown, text = message(error)): FailedOutcome => ({
  status: 'failed',
  message: text,
  ...failedRequest(error),
});

/**
 * The server may have done the work: no answer, a server error, an answer we cannot read, or a
 * "303 See Other" (which answers a write that was carried out with where to see the result).
 */
function ambiguous(error: unknown): boolean {
  return (
    error instanceof ApiNetworkError ||
    error instanceof InvalidResponseError ||
    (error instanceof ApiError && error.status >= 500) ||
    (error instanceof RedirectError && error.status === 303)
  );
}

/** "413 Content Too Large": the batch, not any object in it, is what the server refused. */
const tooLarge = (error: unknown): boolean => error instanceof ApiError && error.status === 413;

/**
 * Sends `items` in two halves, one after the other (`send` recovers each as a batch of its own), and
 * adds their outcomes to `outcomes`.
 */
async function inHalves<I>(
  items: readonly I[],
  outcomes: Map<I, Outcome>,
  send: (part: readonly I[]) => Promise<Map<I, Outcome>>,
): Promise<Map<I, Outcome>> {
  const half = Math.ceil(items.length / 2);
  for (const part of [items.slice(0, half), items.slice(half)]) {
    for (const [item, outcome] of await send(part)) outcomes.set(item, outcome);
  }
  return outcomes;
}

/** The server refused before doing anything; waiting (unless interrupted) and trying again is safe. */
async function waitIfRateLimited(error: unknown, signal: AbortSignal | undefined): Promise<boolean> {
  if (!(error instanceof ApiError) || error.status !== 429) return false;
  const ms = Math.min(error.retryAfterMs ?? 1000, MAX_RATE_LIMIT_WAIT_MS);
  // An interruption ends the wait; the caller's loop then sees the signal and starts nothing.
  await sleep(ms, undefined, signal ? { signal } : {}).catch(() => {});
  return true;
}

export interface RecoveryContext {
  writer: Writer;
  ctx: WriteContext;
  /** The natural key of an object's attributes, planned or live. */
  keyOf: (attributes: Attributes) => string;
  /** The family's noun, for messages: `application rule`. */
  noun: string;
  /** Once aborted, no write call is started, retries included; what is left ends `interrupted`. */
  signal?: AbortSignal | undefined;
}

const settle = <I>(outcomes: Map<I, Outcome>, items: readonly I[], outcome: Outcome) => {
  for (const item of items) outcomes.set(item, outcome);
  return outcomes;
};

const DONE: Outcome = { status: 'done' };
const VERIFIED: Outcome = { status: 'done', ambiguous: true };

const rereadFailed = (error: unknown, readError: unknown): Outcome =>
  failed(
    error,
    `${message(error)}; re-reading to check whether it was applied also failed: ${message(readError)}`,
  );

/**
 * After `error`, re-reads the `remaining` objects by id (Writer.current): those `applied` says are
 * done get `outcome`; the others are returned, to be sent again. When the re-read fails too, every
 * one of them is settled as failed with both messages, and undefined is returned.
 */
async function rereadById<I>(
  writer: Writer,
  ctx: WriteContext,
  failure: { error: unknown; remaining: readonly I[]; outcomes: Map<I, Outcome> },
  idOf: (item: I) => string,
  applied: (live: Attributes | undefined, item: I) => boolean,
  outcome: Outcome,
): Promise<I[] | undefined> {
  const { error, remaining, outcomes } = failure;
  let live: ReadonlyMap<string, Attributes>;
  try {
    live = await writer.current(ctx, remaining.map(idOf));
  } catch (readError) {
    settle(outcomes, remaining, rereadFailed(error, readError));
    return undefined;
  }
  return remaining.filter((item) => {
    const done = applied(live.get(idOf(item)), item);
    if (done) outcomes.set(item, outcome);
    return !done;
  });
}

const doneWith = (id: string, ambiguous: boolean): Outcome => ({
  status: 'done',
  id,
  ...(ambiguous ? { ambiguous: true } : {}),
});

type Sent = { ok: true; ids: readonly string[] | undefined } | { ok: false; error: unknown };

async function sendCreate({ writer, ctx }: RecoveryContext, items: readonly CreateItem[]): Promise<Sent> {
  try {
    return {
      ok: true,
      ids: await writer.create(
        ctx,
        items.map((item) => item.attributes),
      ),
    };
  } catch (error) {
    return { ok: false, error };
  }
}

interface CreateState {
  remaining: readonly CreateItem[];
  outcomes: Map<CreateItem, Outcome>;
}

/**
 * After an answer without an error: what a re-read by the ids it gave proves is done (verified, after
 * an earlier ambiguous attempt); the others are returned with why, to be re-read by key. An answer
 * whose ids are not new proves nothing and is not re-read by id. When the re-read fails, every object
 * is settled as failed and undefined is returned.
 */
async function proveAnswer(
  proof: ProofContext,
  noun: string,
  { remaining, outcomes }: CreateState,
  ids: readonly string[] | undefined,
  wasAmbiguous: boolean,
): Promise<{ left: CreateItem[]; why: UnprovenCreateError } | undefined> {
  const problem = notNew(ids, remaining.length, proof.ledger, noun);
  if (problem !== undefined || ids === undefined) {
    return { left: [...remaining], why: new UnprovenCreateError(problem) };
  }
  let proven: Map<CreateItem, string>;
  try {
    proven = await proveByIds(proof, remaining, ids);
  } catch (readError) {
    // Not sent again: the answer may well be true, and a second create would double the objects.
    const text = `the create was answered with id ${idList(ids)}, but re-reading to prove it failed: ${message(readError)}`;
    settle(outcomes, remaining, failed(readError, text));
    return undefined;
  }
  for (const [item, id] of proven) outcomes.set(item, doneWith(id, wasAmbiguous));
  const provenIds = new Set(proven.values());
  const unmatched = ids.filter((id) => !provenIds.has(id));
  const why = `the answer gave id ${idList(unmatched)}, but no ${noun} with the planned key and content has it`;
  return { left: remaining.filter((item) => !proven.has(item)), why: new UnprovenCreateError(why) };
}

/**
 * After an ambiguous answer, re-reads `remaining` by natural key: what a live object with the
 * planned content proves is done (verified); the others are returned, to be sent again. When the
 * re-read fails, every one of them is settled as failed with both messages, and undefined is returned.
 */
async function rereadByKey(
  proof: ProofContext,
  error: unknown,
  { remaining, outcomes }: CreateState,
): Promise<CreateItem[] | undefined> {
  let proven: Map<CreateItem, string>;
  try {
    proven = await proveByKey(proof, remaining);
  } catch (readError) {
    settle(outcomes, remaining, rereadFailed(error, readError));
    return undefined;
  }
  for (const [item, id] of proven) outcomes.set(item, doneWith(id, true));
  return remaining.filter((item) => !proven.has(item));
}

/** The outcome of objects no attempt could create, or prove created. */
function createFailed(error: unknown, attempts: number, noun: string): Outcome {
  if (!(error instanceof UnprovenCreateError)) return failed(error);
  return failed(
    error,
    `${error.message}; re-reading by key found no new ${noun} with the planned content (${plural(attempts, 'attempt')})`,
  );
}

/** Creates `items` in one call, recovering from ambiguous failures; one outcome per item. */
export async function createWithRecovery(
  recovery: RecoveryContext,
  items: readonly CreateItem[],
  /** The ids this kind's creates have seen: old objects', and those answered or proven so far. */
  ledger: CreateLedger,
): Promise<Map<CreateItem, Outcome>> {
  const { signal, noun } = recovery;
  const proof: ProofContext = { ...recovery, ledger };
  const outcomes = new Map<CreateItem, Outcome>();
  let remaining = [...items];
  let lastError: unknown;
  let wasAmbiguous = false;
  let attempts = 0;
  while (attempts < MAX_ATTEMPTS && remaining.length > 0) {
    if (signal?.aborted) return settle(outcomes, remaining, INTERRUPTED);
    attempts += 1;
    const sent = await sendCreate(recovery, remaining);
    if (sent.ok) {
      const answer = await proveAnswer(proof, noun, { remaining, outcomes }, sent.ids, wasAmbiguous);
      if (answer === undefined || answer.left.length === 0) return outcomes;
      remaining = answer.left;
      lastError = answer.why;
    } else {
      lastError = sent.error;
      if (await waitIfRateLimited(sent.error, signal)) continue;
      if (!ambiguous(sent.error)) {
        // A refused batch names no culprit (400), or is too large (413): halve it until the invalid
        // objects fail on their own, so that one bad rule does not take a hundred good ones down.
        const refusedWhole =
          sent.error instanceof ApiError && (sent.error.status === 400 || sent.error.status === 413);
        if (remaining.length > 1 && refusedWhole) {
          return inHalves(remaining, outcomes, (part) => createWithRecovery(recovery, part, ledger));
        }
        break;
      }
    }
    // The server may hold some of them: re-read by key, and send again only what is missing.
    wasAmbiguous = true;
    const left = await rereadByKey(proof, lastError, { remaining, outcomes });
    if (left === undefined) return outcomes;
    remaining = left;
  }
  return settle(outcomes, remaining, createFailed(lastError, attempts, noun));
}

/**
 * How `writeByIdWithRecovery` sends one family's deletes or updates, and tells from a re-read by id
 * which of them are applied.
 */
interface WriteById<I> {
  /** One call for `items`. */
  send: (items: readonly I[]) => Promise<unknown>;
  /** Whether a re-read can tell what a call that failed with `error` did; if not, the failure is final. */
  rereads: (error: unknown) => boolean;
  idOf: (item: I) => string;
  /** Whether the live object (undefined: gone) shows the item applied. */
  applied: (live: Attributes | undefined, item: I) => boolean;
  /** The outcome of a clean answer to a call sent again after an ambiguous one. */
  resent: Outcome;
}

/**
 * Sends `items` in one call, up to MAX_ATTEMPTS times: a rate-limited call waits and is sent again,
 * a batch too large is halved, and after any other failure a re-read (when `rereads` allows) settles
 * what is applied, and only the rest is sent again. A failure that the re-read does not explain (no
 * object found applied) and that is not ambiguous is final.
 */
async function writeByIdWithRecovery<I>(
  recovery: Omit<RecoveryContext, 'keyOf' | 'noun'>,
  items: readonly I[],
  write: WriteById<I>,
): Promise<Map<I, Outcome>> {
  const { writer, ctx, signal } = recovery;
  const outcomes = new Map<I, Outcome>();
  let remaining = [...items];
  let lastError: unknown;
  let wasAmbiguous = false;
  for (let attempt = 1; attempt <= MAX_ATTEMPTS && remaining.length > 0; attempt++) {
    if (signal?.aborted) return settle(outcomes, remaining, INTERRUPTED);
    try {
      await write.send(remaining);
      return settle(outcomes, remaining, wasAmbiguous ? write.resent : DONE);
    } catch (error) {
      lastError = error;
      if (await waitIfRateLimited(error, signal)) continue;
      if (tooLarge(error) && remaining.length > 1) {
        return inHalves(remaining, outcomes, (part) => writeByIdWithRecovery(recovery, part, write));
      }
      if (!write.rereads(error)) break;
      wasAmbiguous ||= ambiguous(error);
      const before = remaining.length;
      const left = await rereadById(
        writer,
        ctx,
        { error, remaining, outcomes },
        write.idOf,
        write.applied,
        wasAmbiguous ? VERIFIED : DONE,
      );
      if (left === undefined) return outcomes;
      remaining = left;
      if (!ambiguous(error) && remaining.length === before) break;
    }
  }
  return settle(outcomes, remaining, failed(lastError));
}

/**
 * Deletes `items` in one call; whatever is gone afterwards counts as deleted. A DELETE retried after
 * a reset that came once the work was done answers 400 for ids that are already gone, so any failure
 * but a 403 is re-read. A bulk delete is all-or-nothing on the server: refused because some ids were
 * already gone, it deleted none of the others, which are sent again; a refusal that gone ids do not
 * explain is final. Sent again after a re-read found them still there, a clean answer is done.
 */
export function deleteWithRecovery(
  recovery: Omit<RecoveryContext, 'keyOf' | 'noun'>,
  items: readonly DeleteItem[],
): Promise<Map<DeleteItem, Outcome>> {
  return writeByIdWithRecovery(recovery, items, {
    send: (remaining) =>
      recovery.writer.delete(
        recovery.ctx,
        remaining.map((item) => item.id),
      ),
    rereads: (error) => !(error instanceof ApiError && error.status === 403),
    idOf: (item) => item.id,
    applied: (live) => live === undefined,
    resent: DONE,
  });
}

/**
 * Updates `items` in one call. A PUT is idempotent, but after an ambiguous answer the objects are
 * re-read first, so that an update that was carried out is reported done (and verified) even when
 * every answer is unreadable, and only the others are sent again. Any other failure is final.
 */
export function updateWithRecovery(
  recovery: Omit<RecoveryContext, 'keyOf' | 'noun'>,
  items: readonly UpdateItem[],
): Promise<Map<UpdateItem, Outcome>> {
  return writeByIdWithRecovery(recovery, items, {
    send: (remaining) =>
      recovery.writer.update(
        recovery.ctx,
        remaining.map((item) => item.change),
      ),
    rereads: ambiguous,
    idOf: (item) => item.change.id,
    applied: (live, item) => holds(live, changedView(item.change).after),
    resent: VERIFIED,
  });
}
