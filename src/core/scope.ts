/** `manage.<kind>.match`: field -> glob list; an object is in scope when every listed field matches. */
import { anyGlobMatcher, type GlobMatcher, globsIntersect } from './glob.js';
import type { Attributes } from './model.js';

export interface ManageScope {
  prune: boolean;
  /** Field name -> globs; an object is in scope when every listed field matches one of its globs. */
  match: Readonly<Record<string, readonly string[]>>;
}

export const DEFAULT_SCOPE: ManageScope = { prune: false, match: {} };

/** A `match` field: its globs, and their matcher (core/glob.ts: linear, whatever a file writes). */
interface MatchEntry {
  field: string;
  globs: readonly string[];
  matches: GlobMatcher;
}

/** Each `match` object's entries, compiled once: the planner asks for every object of a kind. */
const entriesCache = new WeakMap<object, MatchEntry[]>();

function matchEntries(scope: ManageScope): MatchEntry[] {
  let entries = entriesCache.get(scope.match);
  if (entries === undefined) {
    entries = Object.entries(scope.match).map(([field, globs]) => ({
      field,
      globs,
      matches: anyGlobMatcher(globs),
    }));
    entriesCache.set(scope.match, entries);
  }
  return entries;
}

/** The first `match` field an object fails, with its value (undefined when the object lacks the field). */
export interface ScopeMismatch {
  field: string;
  value: unknown;
  globs: readonly string[];
}

/**
 * Why `attributes` is outside `scope`: the first listed field (in `match` order) whose value is not
 * a string matched by one of its globs; undefined when the object is in scope. Pure: the planner
 * (through `inScope`) and `validate` (to name the failing field) share this one matcher.
 */
export function scopeMismatch(attributes: Attributes, scope: ManageScope): ScopeMismatch | undefined {
  for (const { field, globs, matches } of matchEntries(scope)) {
    const value = Object.hasOwn(attributes, field) ? attributes[field] : undefined;
    if (typeof value !== 'string' || !matches(value)) return { field, value, globs };
  }
  return undefined;
}

export function inScope(attributes: Attributes, scope: ManageScope): boolean {
  return scopeMismatch(attributes, scope) === undefined;
}

/**
 * Whether some object could be inside both scopes: for every field both list, one glob of each
 * matches a common value (a field only one lists leaves the other free). Exact, by core/glob.ts
 * `globsIntersect`; a pair too long to decide counts as overlapping.
 */
export function scopesOverlap(a: ManageScope, b: ManageScope): boolean {
  for (const [field, globs] of Object.entries(a.match)) {
    const others = Object.hasOwn(b.match, field) ? b.match[field] : undefined;
    if (others === undefined) continue;
    const meet = globs.some((glob) => others.some((other) => globsIntersect(glob, other) !== false));
    if (!meet) return false;
  }
  return true;
}
