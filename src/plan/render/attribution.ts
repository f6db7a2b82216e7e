/**
 * Who changed what, and when, as a drift report words it (issue 44): `changed by alice, 2026-11-27
 * 08:02 UTC` after each entry whose live record says so, and the list of those entries newest first
 * that opens the markdown report. The values are the record's (`changed_by`, `changed_at`, set by
 * src/plan/attribution.ts); what it does not give is not said. Plans carry neither, so nothing here
 * changes a plan's output.
 */
import type { Change, EnforcementFinding, ReadOnlyDrift } from '../../core/model.js';
import { printable } from '../../core/text.js';
import { address } from './summary.js';

/** A drift entry that may say who changed it: a change, a read-only object, an enforcement finding. */
export type AttributedEntry = Change | ReadOnlyDrift | EnforcementFinding;

/** What an entry may say of its last change (plan-document.ts `attribution`). */
export type Attributed = { changed_by?: string | undefined; changed_at?: string | undefined };

const attributionOf = (entry: AttributedEntry): Attributed =>
  'changed_by' in entry || 'changed_at' in entry ? (entry as Attributed) : {};

const pad = (n: number): string => String(n).padStart(2, '0');

/** `2026-11-27 08:02 UTC`: an ISO time to the minute, in UTC; a text no date can hold, as it is. */
export function utcMinute(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return printable(iso);
  const day = `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
  return `${day} ${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())} UTC`;
}

/**
 * `changed by alice, 2026-11-27 08:02 UTC`, `changed by alice`, or `changed 2026-11-27 08:02 UTC`,
 * as printable text; undefined when the entry says neither.
 */
export function changedText(entry: AttributedEntry): string | undefined {
  const { changed_by: by, changed_at: at } = attributionOf(entry);
  if (by === undefined && at === undefined) return undefined;
  const who = by === undefined ? '' : ` by ${printable(by)}`;
  const when = at === undefined ? '' : `${by === undefined ? ' ' : ', '}${utcMinute(at)}`;
  return `changed${who}${when}`;
}

/** ` (changed by alice, 2026-11-27 08:02 UTC)`, or nothing: what a drift line ends with. */
export const changedSuffix = (entry: AttributedEntry): string => {
  const text = changedText(entry);
  return text === undefined ? '' : ` (${text})`;
};

/** One line of "Who changed what": who, when (each when known), and the entry's address. */
export interface WhoChangedWhat {
  by: string | undefined;
  /** `2026-11-27 08:02 UTC`. */
  at: string | undefined;
  /** `kind.key`, printable. */
  address: string;
  entry: AttributedEntry;
}

/**
 * `entries` by `changed_at`, newest first; those without a readable time last, each group in the
 * given order (a new array).
 */
export function newestFirst<T extends Attributed>(entries: readonly T[]): T[] {
  const time = (at: string | undefined) => {
    const ms = at === undefined ? Number.NaN : Date.parse(at);
    return Number.isNaN(ms) ? Number.NEGATIVE_INFINITY : ms;
  };
  // Equal times (two without one included: -Infinity - -Infinity is NaN) keep the given order.
  return entries
    .map((entry, order) => ({ entry, order, time: time(entry.changed_at) }))
    .sort((a, b) => b.time - a.time || a.order - b.order)
    .map(({ entry }) => entry);
}

/**
 * The entries that say who changed them or when, newest first (those without a readable time last,
 * in the report's order).
 */
export function whoChangedWhat(entries: readonly AttributedEntry[]): WhoChangedWhat[] {
  const known = entries
    .map((entry) => ({ entry, ...attributionOf(entry) }))
    .filter(({ changed_by, changed_at }) => changed_by !== undefined || changed_at !== undefined);
  return newestFirst(known).map(({ entry, changed_by, changed_at }) => ({
    by: changed_by === undefined ? undefined : printable(changed_by),
    at: changed_at === undefined ? undefined : utcMinute(changed_at),
    address: address(entry),
    entry,
  }));
}
