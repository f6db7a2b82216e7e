/** `manage.<kind>.match`: field -> glob list; an object is in scope when every listed field matches. */
import type { Attributes } from './model.js';

export interface ManageScope {
  prune: boolean;
  match: Readonly<Record<string, readonly string[]>>;
}

export const DEFAULT_SCOPE: ManageScope = { prune: false, match: {} };

const globCache = new Map<string, RegExp>();

/** `*` matches any run of characters (dots included), `?` one character; the rest is literal. */
export function globToRegExp(glob: string): RegExp {
  let re = globCache.get(glob);
  if (re === undefined) {
    const body = [...glob]
      .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[\\^$.|+()[\]{}]/g, '\\$&')))
      .join('');
    re = new RegExp(`^${body}$`, 'su');
    globCache.set(glob, re);
  }
  return re;
}

export function inScope(attributes: Attributes, scope: ManageScope): boolean {
  for (const [field, globs] of Object.entries(scope.match)) {
    const value = Object.hasOwn(attributes, field) ? attributes[field] : undefined;
    if (typeof value !== 'string') return false;
    if (!globs.some((glob) => globToRegExp(glob).test(value))) return false;
  }
  return true;
}
