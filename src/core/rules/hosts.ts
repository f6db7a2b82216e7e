/**
 * Which rules a request's host selects: `rq_host` compared with the host ignoring case, `*` any run
 * of characters (dots included), `?` one character, a port compared as text. Exact hosts are looked
 * up in a Map; only glob hosts are tested per request, and the candidates of a host are kept.
 */
import { globMatcher, isGlob } from '../glob.js';

/** Whether `rqHost` is a glob rather than one host. */
export const isHostGlob = (rqHost: string): boolean => isGlob(rqHost);

/**
 * The test of one `rq_host` against a host, ignoring case. Linear (core/glob.ts): a glob such as
 * `*a*a*a*a*b` cannot make the matcher crawl on a long host name.
 */
export const hostMatcher = (rqHost: string): ((host: string) => boolean) =>
  globMatcher(rqHost, { ignoreCase: true });

/** Candidate lists kept per host; past this many hosts the memo starts again (bounded memory). */
const MEMO_LIMIT = 4096;

/**
 * Items indexed by their `rq_host`. Items are added in decision order; `candidates(host)` returns
 * those whose `rq_host` matches `host`, in that order.
 */
export class HostIndex<T> {
  private readonly exact = new Map<string, { order: number; item: T }[]>();
  private readonly globs: { order: number; item: T; matches: (host: string) => boolean }[] = [];
  private readonly memo = new Map<string, readonly T[]>();
  private added = 0;

  /** Adds `item` after every item added before it. */
  add(rqHost: string, item: T, matches: (host: string) => boolean): void {
    const order = this.added++;
    if (this.memo.size > 0) this.memo.clear();
    if (isHostGlob(rqHost)) {
      this.globs.push({ order, item, matches });
      return;
    }
    const key = rqHost.toLowerCase();
    const list = this.exact.get(key);
    if (list === undefined) this.exact.set(key, [{ order, item }]);
    else list.push({ order, item });
  }

  candidates(host: string): readonly T[] {
    const key = host.toLowerCase();
    let found = this.memo.get(key);
    if (found === undefined) {
      found = this.merge(key);
      if (this.memo.size >= MEMO_LIMIT) this.memo.clear();
      this.memo.set(key, found);
    }
    return found;
  }

  /** The exact list and the matching globs, merged by the order they were added in. */
  private merge(host: string): T[] {
    const exact = this.exact.get(host) ?? [];
    const globs = this.globs.filter((glob) => glob.matches(host));
    if (globs.length === 0) return exact.map((entry) => entry.item);
    const merged: T[] = [];
    let i = 0;
    let j = 0;
    while (i < exact.length || j < globs.length) {
      const left = exact[i];
      const right = globs[j];
      if (right === undefined || (left !== undefined && left.order < right.order)) {
        merged.push((left as { item: T }).item);
        i++;
      } else {
        merged.push(right.item);
        j++;
      }
    }
    return merged;
  }
}
